"""Symbolic links a pushed commit can plant under ``.maple/`` are never followed.

Each attack aims a link at a victim outside the folder; maple must refuse it with a one-line
error that names the link, and leave the victim's bytes, times and folder exactly as they were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from contract_tests.support import FakeClock, make_repo
from maple_adapters.files import FileCommentStore, FileMedia
from maple_core.approvals import NewApproval
from maple_core.comments import NewComment, Resolution
from maple_core.errors import UnsafePathError
from maple_core.statuses import CommentStatus
from maple_entrypoints.route import RouteOptions
from tests.mcp_support import clean_env
from tests.route_support import live_route
from tests.test_stop_decision import RECORDED_CLAUDE_CODE_STOP

MAPLE = Path(sys.executable).with_name("maple")
HOOK = Path(sys.executable).with_name("maple-stop-hook")
BRANCH = "feat/x"
SLUG = "feat-x"
PAST_NS = 1_600_000_000 * 10**9
VICTIM = b"export SECRET=do-not-touch\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64

Snapshot = dict[str, tuple[int, bytes, int]]


def ledger_text(body: str) -> bytes:
    comment = {"id": "loc_victim", "branch": BRANCH, "body": body, "status": "open"}
    return json.dumps({"version": 1, "comments": [comment], "approvals": []}).encode()


def snapshot(top: Path) -> Snapshot:
    """Each entry at and under ``top``: mode, bytes (or link target), mtime; links unfollowed."""
    entries: Snapshot = {}

    def note(path: Path) -> None:
        stat = path.lstat()
        if path.is_symlink():
            content = os.readlink(path).encode()
        elif path.is_file():
            content = path.read_bytes()
        else:
            content = b""
        entries[str(path.relative_to(top.parent))] = (stat.st_mode, content, stat.st_mtime_ns)

    note(top)
    if top.is_dir() and not top.is_symlink():
        for folder, dirs, files in os.walk(top):
            for name in [*dirs, *files]:
                note(Path(folder) / name)
    return entries


def aged(path: Path, data: bytes = VICTIM) -> Path:
    """Write ``data`` at ``path`` and date it in the past, so any write shows in its mtime."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, ns=(PAST_NS, PAST_NS))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BRANCH)


@pytest.fixture
def elsewhere(tmp_path: Path) -> Iterator[Path]:
    """The victim: a folder outside the repository holding a file, all dated in the past."""
    victim = tmp_path / "elsewhere"
    aged(victim / "victim.txt")
    os.utime(victim, ns=(PAST_NS, PAST_NS))
    before = snapshot(victim)
    yield victim
    assert snapshot(victim) == before, "the link's target was changed"


def branch_folder(repo: Path) -> Path:
    return Path(os.path.realpath(repo)) / ".maple" / SLUG


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MAPLE), *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_names_the_link(message: str, link: Path) -> None:
    assert str(link) in message
    assert "is a symbolic link" in message
    assert "will not follow" in message
    assert "Remove the link" in message


def assert_refused(done: subprocess.CompletedProcess[str], link: Path) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert_names_the_link(done.stderr, link)


def new(body: str) -> NewComment:
    return NewComment(branch=BRANCH, body=body)


class TestFolders:
    def test_a_linked_maple_folder_is_refused_and_its_target_untouched(
        self, repo: Path, elsewhere: Path
    ) -> None:
        link = Path(os.path.realpath(repo)) / ".maple"
        link.symlink_to(elsewhere, target_is_directory=True)
        assert_refused(run(repo, "comments", "add", "--body", "through the link"), link)
        assert_refused(run(repo, "comments", "list"), link)
        assert link.is_symlink()

    def test_a_linked_branch_folder_is_refused_and_its_target_untouched(
        self, repo: Path, elsewhere: Path
    ) -> None:
        link = branch_folder(repo)
        link.parent.mkdir()
        link.symlink_to(Path("..") / ".." / "elsewhere", target_is_directory=True)
        assert link.resolve() == elsewhere.resolve()
        assert_refused(run(repo, "comments", "add", "--body", "through the link"), link)
        assert_refused(run(repo, "comments", "list"), link)

    def test_a_linked_folder_is_refused_even_when_its_target_is_missing(
        self, repo: Path, tmp_path: Path
    ) -> None:
        link = Path(os.path.realpath(repo)) / ".maple"
        link.symlink_to(tmp_path / "not-yet")
        assert_refused(run(repo, "comments", "add", "--body", "through the link"), link)
        assert not (tmp_path / "not-yet").exists()

    def test_comments_beyond_a_linked_folder_are_not_read(
        self, repo: Path, elsewhere: Path, tmp_path: Path
    ) -> None:
        aged(tmp_path / "shared" / SLUG / "comments.json", ledger_text("a secret"))
        link = Path(os.path.realpath(repo)) / ".maple"
        link.symlink_to(tmp_path / "shared", target_is_directory=True)
        listed = run(repo, "comments", "list")
        assert_refused(listed, link)
        assert "a secret" not in listed.stdout


class TestFiles:
    def test_a_linked_ledger_is_neither_read_nor_replaced(self, repo: Path, tmp_path: Path) -> None:
        victim = aged(tmp_path / "shared" / "ledger.json", ledger_text("a secret"))
        before = snapshot(victim.parent)
        link = branch_folder(repo) / "comments.json"
        link.parent.mkdir(parents=True)
        link.symlink_to(victim)
        listed = run(repo, "comments", "list")
        assert_refused(listed, link)
        assert "a secret" not in listed.stdout
        assert_refused(run(repo, "comments", "add", "--body", "over the link"), link)
        assert link.is_symlink()
        assert snapshot(victim.parent) == before

    @pytest.mark.parametrize("operation", ["append", "set_status", "approve"])
    def test_a_linked_seal_is_never_truncated(
        self, repo: Path, elsewhere: Path, operation: str
    ) -> None:
        store = FileCommentStore(FakeClock(), repo)
        first = store.append(new("one"))
        seal = branch_folder(repo) / "comments.json.seal"
        seal.unlink()
        seal.symlink_to(elsewhere / "victim.txt")
        ledger = snapshot(branch_folder(repo) / "comments.json")
        actions: dict[str, Callable[[], object]] = {
            "append": lambda: store.append(new("two")),
            "set_status": lambda: store.set_status(
                first.id, CommentStatus.RESOLVED, Resolution(sha="abc1234", at="2026-01-01")
            ),
            "approve": lambda: store.approve(
                NewApproval(branch=BRANCH, commit="abc1234", at="2026-01-01T00:00:00Z")
            ),
        }
        with pytest.raises(UnsafePathError) as refused:
            actions[operation]()
        assert_names_the_link(str(refused.value), seal)
        assert snapshot(branch_folder(repo) / "comments.json") == ledger
        assert seal.is_symlink()

    @pytest.mark.parametrize("existing", [True, False], ids=["existing", "dangling"])
    def test_a_linked_lock_is_neither_created_nor_locked(
        self, repo: Path, elsewhere: Path, existing: bool
    ) -> None:
        target = elsewhere / ("victim.txt" if existing else "made-by-maple")
        lock = branch_folder(repo) / "comments.json.lock"
        lock.parent.mkdir(parents=True)
        lock.symlink_to(target)
        with pytest.raises(UnsafePathError) as refused:
            FileCommentStore(FakeClock(), repo).append(new("one"))
        assert_names_the_link(str(refused.value), lock)
        assert not (branch_folder(repo) / "comments.json").exists()


class TestMedia:
    def test_a_linked_media_folder_takes_no_upload(self, repo: Path, elsewhere: Path) -> None:
        link = branch_folder(repo) / "media"
        link.parent.mkdir(parents=True)
        link.symlink_to(elsewhere, target_is_directory=True)
        with pytest.raises(UnsafePathError) as refused:
            FileMedia(repo).put(PNG, "image/png")
        assert_names_the_link(str(refused.value), link)
        options = RouteOptions(store=FileCommentStore(FakeClock(), repo), media=FileMedia(repo))
        with live_route(options) as route:
            answer = route.client.post("/media", content=PNG, headers={"content-type": "image/png"})
        assert answer.status_code == 500

    def test_a_linked_media_folder_serves_nothing(self, repo: Path, tmp_path: Path) -> None:
        aged(tmp_path / "shots" / "shot-aaaaaaaaaaaa.png", VICTIM)
        link = branch_folder(repo) / "media"
        link.parent.mkdir(parents=True)
        link.symlink_to(tmp_path / "shots", target_is_directory=True)
        options = RouteOptions(store=FileCommentStore(FakeClock(), repo), media=FileMedia(repo))
        with live_route(options) as route:
            answer = route.client.get("/media/shot-aaaaaaaaaaaa")
        assert answer.status_code == 500
        assert VICTIM not in answer.content

    def test_a_linked_blob_is_not_served(self, repo: Path, elsewhere: Path) -> None:
        link = branch_folder(repo) / "media" / "shot-bbbbbbbbbbbb.png"
        link.parent.mkdir(parents=True)
        link.symlink_to(elsewhere / "victim.txt")
        with pytest.raises(UnsafePathError) as refused:
            FileMedia(repo).get("shot-bbbbbbbbbbbb")
        assert_names_the_link(str(refused.value), link)
        options = RouteOptions(store=FileCommentStore(FakeClock(), repo), media=FileMedia(repo))
        with live_route(options) as route:
            answer = route.client.get("/media/shot-bbbbbbbbbbbb")
        assert answer.status_code == 500
        assert VICTIM not in answer.content


@pytest.mark.parametrize("linked", [".maple", SLUG, "comments.json"])
def test_the_stop_hook_reports_a_link_in_one_line_and_lets_the_stop_go_ahead(
    repo: Path, tmp_path: Path, linked: str
) -> None:
    shared = tmp_path / "shared"
    aged(shared / SLUG / "comments.json", ledger_text("a secret that would block"))
    maple = Path(os.path.realpath(repo)) / ".maple"
    if linked == ".maple":
        link, target = maple, shared
    elif linked == SLUG:
        maple.mkdir()
        link, target = maple / SLUG, shared / SLUG
    else:
        (maple / SLUG).mkdir(parents=True)
        link, target = maple / SLUG / "comments.json", shared / SLUG / "comments.json"
    link.symlink_to(target)
    before = snapshot(shared)
    payload = {**RECORDED_CLAUDE_CODE_STOP, "cwd": str(repo), "stop_hook_active": False}
    temp = tmp_path / "tmp"
    temp.mkdir()
    done = subprocess.run(
        [str(HOOK)],
        input=json.dumps(payload),
        cwd=repo,
        env=clean_env(TMPDIR=str(temp)),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "{}")
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert_names_the_link(done.stderr, link)
    assert snapshot(shared) == before


class TestTemporaryFiles:
    @staticmethod
    def dead_pid() -> int:
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        return child.pid

    @staticmethod
    def temp(folder: Path, name: str, pid: int, tag: str, age_s: float) -> Path:
        path = folder / f"{name}.{pid}.{tag}.tmp"
        path.write_bytes(b"half a write")
        when = time.time() - age_s
        os.utime(path, (when, when))
        return path

    def test_a_crashed_writers_temp_files_are_swept_on_the_next_write(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        folder = branch_folder(repo)
        dead = self.dead_pid()
        crashed = self.temp(folder, "comments.json", dead, "0badf00d", 300)
        ancient = self.temp(folder, "comments.json", os.getppid(), "deadbeef", 2 * 86400)
        store.append(new("two"))
        assert not crashed.exists()
        assert not ancient.exists()

    def test_a_crashed_uploads_temp_file_is_swept_on_the_next_upload(self, repo: Path) -> None:
        media = FileMedia(repo)
        media.put(PNG, "image/png")
        folder = branch_folder(repo) / "media"
        crashed = self.temp(folder, "shot-1.png", self.dead_pid(), "a1b2c3d4", 300)
        media.put(PNG, "image/png")
        assert not crashed.exists()

    def test_a_live_writers_temp_file_and_other_files_are_never_swept(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        folder = branch_folder(repo)
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            kept = [
                self.temp(folder, "comments.json", os.getpid(), "0badf00d", 0),
                self.temp(folder, "comments.json", sleeper.pid, "deadbeef", 600),
                self.temp(folder, "comments.json", self.dead_pid(), "feedface", 0),
                self.temp(folder, "notes", 12, "not-hex!", 2 * 86400),
            ]
            (folder / "notes.tmp").write_bytes(b"mine")
            os.utime(folder / "notes.tmp", ns=(PAST_NS, PAST_NS))
            kept.append(folder / "notes.tmp")
            store.append(new("two"))
            assert [path.exists() for path in kept] == [True] * len(kept)
        finally:
            sleeper.kill()
            sleeper.wait()


class TestAgentRecords:
    """``maple agents status|cancel`` read ``.maple/agents/``, which a commit can plant too."""

    def test_a_linked_agents_folder_is_refused(self, repo: Path, elsewhere: Path) -> None:
        agents = Path(os.path.realpath(repo)) / ".maple" / "agents"
        agents.parent.mkdir()
        agents.symlink_to(elsewhere, target_is_directory=True)
        assert_refused(run(repo, "agents", "status", "codex-41237"), agents)

    @pytest.mark.parametrize("agent_id", ["../../elsewhere/victim", "codex-1/../x", "x" * 300])
    def test_an_agent_id_is_never_a_path(self, repo: Path, elsewhere: Path, agent_id: str) -> None:
        done = run(repo, "agents", "status", agent_id)
        assert done.returncode == 1, done.stderr  # an input error
        assert "is not an agent id" in done.stderr
        assert done.stderr.count("\n") == 1

    def test_a_planted_record_cannot_name_another_process_to_stop(self, repo: Path) -> None:
        bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            agents = Path(os.path.realpath(repo)) / ".maple" / "agents"
            agents.mkdir(parents=True)
            run_json = {"status": "running", "agentId": f"codex-{bystander.pid}"}
            planted = {"pid": bystander.pid, "run": run_json, "text": "\x1b]0;pwned\x07 running"}
            (agents / f"codex-{bystander.pid}.json").write_text(json.dumps(planted))
            done = run(repo, "agents", "cancel", f"codex-{bystander.pid}")
            assert done.returncode == 1, done.stderr
            assert "not a maple agent run" in done.stderr
            assert bystander.poll() is None  # still alive
            shown = run(repo, "agents", "status", f"codex-{bystander.pid}")
            assert shown.returncode == 0, shown.stderr
            assert "\x1b" not in shown.stdout
        finally:
            bystander.kill()
            bystander.wait()


def test_the_maple_folder_keeps_itself_out_of_git_never_through_a_link_or_over_a_choice(
    tmp_path: Path,
) -> None:
    fresh = make_repo(tmp_path / "fresh", BRANCH)
    store = FileCommentStore(FakeClock(), fresh)
    store.append(NewComment(branch=BRANCH, body="b", created_at="2026-01-01T00:00:00.000Z"))
    assert (fresh / ".maple" / ".gitignore").read_text().splitlines()[-1] == "*"
    chosen = make_repo(tmp_path / "chosen", BRANCH)
    (chosen / ".maple").mkdir()
    (chosen / ".maple" / ".gitignore").write_text("media/\n")  # the team's own choice stays
    FileCommentStore(FakeClock(), chosen).append(
        NewComment(branch=BRANCH, body="b", created_at="2026-01-01T00:00:00.000Z")
    )
    assert (chosen / ".maple" / ".gitignore").read_text() == "media/\n"
    linked = make_repo(tmp_path / "linked", BRANCH)
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM)
    (linked / ".maple").mkdir()
    (linked / ".maple" / ".gitignore").symlink_to(victim)
    FileCommentStore(FakeClock(), linked).append(
        NewComment(branch=BRANCH, body="b", created_at="2026-01-01T00:00:00.000Z")
    )
    assert victim.read_bytes() == VICTIM
