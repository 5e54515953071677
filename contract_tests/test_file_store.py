"""What only the file store does: folders, worktrees, the on-disk format, corruption and media."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from contract_tests.support import FakeClock, git, make_repo
from maple_adapters.files.git import find_checkout
from maple_adapters.files.media import FileMedia
from maple_adapters.files.place import slug, url_slug
from maple_adapters.files.store import FileCommentStore
from maple_core.comments import NewComment
from maple_core.errors import (
    CorruptLedgerError,
    InvalidMediaKeyError,
    NotFoundError,
    StoreUnavailableError,
)
from maple_core.listing import list_all
from maple_core.paging import ListQuery
from maple_core.ports import Capability
from maple_core.statuses import CommentStatus


def new(body: str, branch: str = "feat/x") -> NewComment:
    return NewComment(branch=branch, body=body)


def canonical(path: Path) -> str:
    return json.dumps(json.loads(path.read_text()), indent=2, ensure_ascii=False) + "\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "main", "feat/x")


class TestFolders:
    def test_capabilities_are_all_but_head(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        assert Capability.HEAD not in store.capabilities
        assert {Capability.SET_STATUS, Capability.APPEND_MANY, Capability.APPROVALS} <= (
            store.capabilities
        )

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("feat/x", "feat-x"),
            ("Feat/X", "feat-x"),
            ("feature/web-482", "feature-web-482"),
            ("release/1.2", "release-1.2"),
            ("--a//b--", "a-b"),
            ("...", "default"),
            ("", "default"),
        ],
    )
    def test_slugs(self, text: str, expected: str) -> None:
        assert slug(text) == expected

    def test_url_slug_keeps_only_the_authority(self) -> None:
        assert url_slug("http://localhost:3000/") == "localhost-3000"
        assert url_slug("https://Feat-X.preview.example/menu?x=1#y") == "feat-x.preview.example"

    @pytest.mark.parametrize(
        ("url", "key"),
        [
            ("http://localhost:3000/?next=https://x.example/y", "localhost-3000"),
            # Maple drops everything up to the first "://", wherever it is (issue 22, point 6)
            ("localhost:3000/?next=https://x.example/y", "x.example"),
            ("localhost:3000/login", "localhost-3000"),
            ("a://b://c/d", "b"),
        ],
    )
    def test_url_slug_is_the_folder_maples_normalize_url_names(self, url: str, key: str) -> None:
        assert url_slug(url) == key

    def test_the_folder_is_named_by_the_checked_out_branch(self, repo: Path) -> None:
        FileCommentStore(FakeClock(), repo).append(new("hello"))
        assert (repo / ".maple" / "feat-x" / "comments.json").is_file()

    def test_worktrees_share_the_main_checkout_but_keep_their_own_folders(
        self, repo: Path, tmp_path: Path
    ) -> None:
        git(repo, "worktree", "add", "-q", "-b", "feat/one", str(tmp_path / "one"))
        git(repo, "worktree", "add", "-q", "-b", "feat/two", str(tmp_path / "two"))
        one = FileCommentStore(FakeClock(), tmp_path / "one")
        two = FileCommentStore(FakeClock(), tmp_path / "two")
        one.append(new("from one", "shared"))
        two.append(new("from two", "shared"))
        assert [c.body for c in list_all(one, "shared")] == ["from one"]
        assert [c.body for c in list_all(two, "shared")] == ["from two"]
        folders = sorted(p.name for p in (repo / ".maple").iterdir() if p.is_dir())
        assert folders == ["feat-one", "feat-two"]
        assert not (tmp_path / "one" / ".maple").exists()

    def test_comments_outlive_a_removed_worktree(self, repo: Path, tmp_path: Path) -> None:
        git(repo, "worktree", "add", "-q", "-b", "feat/one", str(tmp_path / "one"))
        FileCommentStore(FakeClock(), tmp_path / "one").append(new("kept", "feat/one"))
        git(repo, "worktree", "remove", str(tmp_path / "one"))
        git(repo, "checkout", "-q", "feat/one")
        assert [c.body for c in list_all(FileCommentStore(FakeClock(), repo), "feat/one")] == [
            "kept"
        ]

    def test_switching_branches_switches_folders_without_a_new_store(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("on x"))
        git(repo, "checkout", "-q", "-b", "feat/y")
        assert list_all(store, "feat/x") == []
        git(repo, "checkout", "-q", "feat/x")
        assert len(list_all(store, "feat/x")) == 1

    def test_a_detached_head_uses_the_url_folder(self, repo: Path) -> None:
        git(repo, "checkout", "-q", "--detach")
        FileCommentStore(FakeClock(), repo, url="http://localhost:3000").append(new("d"))
        assert (repo / ".maple" / "localhost-3000" / "comments.json").is_file()

    def test_outside_a_repository_the_folder_is_the_url_or_default(self, tmp_path: Path) -> None:
        plain = tmp_path / "plain"
        plain.mkdir()
        FileCommentStore(FakeClock(), plain, url="http://localhost:3000/").append(new("u"))
        FileCommentStore(FakeClock(), plain).append(new("d"))
        assert sorted(p.name for p in (plain / ".maple").iterdir() if p.is_dir()) == [
            "default",
            "localhost-3000",
        ]

    def test_a_new_store_reads_the_old_data(self, repo: Path) -> None:
        FileCommentStore(FakeClock(), repo).append(new("persisted"))
        assert [c.body for c in list_all(FileCommentStore(FakeClock(), repo), "feat/x")] == [
            "persisted"
        ]


class TestGitDiscovery:
    """Reading ``.git`` by hand gives the same answers as the real git binary."""

    def check(self, cwd: Path) -> None:
        found = find_checkout(cwd)
        try:
            branch: str | None = git(cwd, "symbolic-ref", "--short", "-q", "HEAD")
        except Exception:
            branch = None
        common = Path(git(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir"))
        root = common.parent if common.name == ".git" else common
        assert found.branch == (branch or None)
        assert Path(found.root) == root.resolve()

    def test_main_checkout_and_subdirectory(self, repo: Path) -> None:
        (repo / "src" / "app").mkdir(parents=True)
        self.check(repo)
        self.check(repo / "src" / "app")

    def test_a_linked_worktree(self, repo: Path, tmp_path: Path) -> None:
        git(repo, "worktree", "add", "-q", "-b", "wt", str(tmp_path / "wt"))
        self.check(tmp_path / "wt")
        assert find_checkout(tmp_path / "wt").branch == "wt"

    def test_a_detached_head_has_no_branch(self, repo: Path) -> None:
        git(repo, "checkout", "-q", "--detach")
        self.check(repo)
        assert find_checkout(repo).branch is None

    def test_outside_git_there_is_no_branch(self, tmp_path: Path) -> None:
        found = find_checkout(tmp_path)
        assert (found.branch, Path(found.root)) == (None, tmp_path.resolve())


class TestLedgerFile:
    def test_the_file_is_maples_format(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        store.append_many([new("two"), new("three ünïcode")])
        path = repo / ".maple" / "feat-x" / "comments.json"
        text = path.read_text(encoding="utf-8")
        assert text == canonical(path)
        data = json.loads(text)
        assert list(data) == ["version", "comments", "approvals"]
        assert data["version"] == 1
        assert [c["body"] for c in data["comments"]] == ["one", "two", "three ünïcode"]

    def test_every_write_path_leaves_the_canonical_format(self, repo: Path) -> None:
        from maple_core.approvals import NewApproval

        clock = FakeClock()
        store = FileCommentStore(clock, repo)
        path = repo / ".maple" / "feat-x" / "comments.json"
        first = store.append(new("one"))
        clock.advance(1)
        store.append(new("two"))
        clock.advance(1)
        store.set_status(first.id, CommentStatus.RESOLVED)
        store.approve(NewApproval("feat/x", "abc1234", "2026-01-01T00:00:00.000Z"))
        store.append(new("three"))
        assert path.read_text() == canonical(path)
        assert [c.body for c in list_all(store, "feat/x")] == ["three", "two", "one"]

    def test_twenty_concurrent_appends_in_one_process_all_land(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        threads = [threading.Thread(target=store.append, args=(new(f"c{i}"),)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(list_all(store, "feat/x")) == 20

    @pytest.mark.parametrize(
        "content",
        ["not even json", "[1, 2]", '{"version": 1, "comments": {}}', '{"comments": [7]}'],
    )
    def test_a_corrupt_file_is_refused_and_left_untouched(self, repo: Path, content: str) -> None:
        path = repo / ".maple" / "feat-x" / "comments.json"
        path.parent.mkdir(parents=True)
        path.write_text(content)
        store = FileCommentStore(FakeClock(), repo)
        with pytest.raises(CorruptLedgerError, match="not a Maple comments file") as caught:
            list_all(store, "feat/x")
        assert str(path) in str(caught.value)
        assert "will not overwrite it" in str(caught.value)
        with pytest.raises(CorruptLedgerError):
            store.append(new("lost?"))
        with pytest.raises(CorruptLedgerError):
            store.set_status("x", CommentStatus.RESOLVED)
        assert path.read_text() == content

    def test_a_file_maple_wrote_is_read_and_appended_to(self, repo: Path) -> None:
        path = repo / ".maple" / "feat-x" / "comments.json"
        path.parent.mkdir(parents=True)
        maple = {
            "version": 1,
            "comments": [
                {
                    "branch": "feat/x",
                    "body": "From the TypeScript overlay",
                    "anchor": {"kind": "page"},
                    "createdAt": "2026-01-01T12:00:00.000Z",
                    "author": {"id": "guest", "name": "Guest", "provenance": "guest"},
                    "id": "loc_0123456789ab",
                    "status": "open",
                }
            ],
        }
        path.write_text(json.dumps(maple, indent=2) + "\n")
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("ours"))
        data = json.loads(path.read_text())
        # kept as Maple wrote it, with the context Maple's writers read added (it had none)
        assert data["comments"][0] == {**maple["comments"][0], "context": {"url": ""}}
        assert data["approvals"] == []
        assert [c["body"] for c in data["comments"]] == ["From the TypeScript overlay", "ours"]

    def test_a_foreign_rewrite_between_appends_is_noticed(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        path = repo / ".maple" / "feat-x" / "comments.json"
        data = json.loads(path.read_text())
        data["comments"][0]["body"] = "edited by hand, same size"[:3]
        path.write_text(json.dumps(data, indent=4))  # another writer, another layout
        store.append(new("two"))
        assert [c.body for c in store.list(ListQuery(branch="feat/x")).comments] == ["edi", "two"]
        assert path.read_text() == canonical(path)

    def test_an_in_place_edit_that_keeps_size_and_times_is_caught_before_splicing(
        self, repo: Path
    ) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        store.append(new("two"))
        path = repo / ".maple" / "feat-x" / "comments.json"
        before = path.stat()
        data = path.read_bytes()
        # Another tool shortens a body by a byte and pads after the array: same size, shifted.
        edited = data.replace(b'"two"', b'"tw"').replace(b'"approvals": []', b'"approvals":  []')
        assert len(edited) == len(data)
        with open(path, "r+b") as handle:
            handle.write(edited)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert (path.stat().st_ino, path.stat().st_size, path.stat().st_mtime_ns) == (
            before.st_ino,
            before.st_size,
            before.st_mtime_ns,
        )
        store.append(new("three"))
        assert [c.body for c in store.list(ListQuery(branch="feat/x")).comments] == [
            "one",
            "tw",
            "three",
        ]
        assert path.read_text() == canonical(path)

    def test_a_file_replaced_right_after_our_write_is_never_spliced(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        path = repo / ".maple" / "feat-x" / "comments.json"
        other = path.with_name("other.json")
        other.write_text(json.dumps({"version": 1, "comments": [], "approvals": []}, indent=2))
        os.replace(other, path)  # a writer that takes no lock, between our write and the next
        store.append(new("two"))
        assert [c.body for c in store.list(ListQuery(branch="feat/x")).comments] == ["two"]
        assert path.read_text() == canonical(path)

    def test_a_mistyped_seal_is_ignored(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        seal = repo / ".maple" / "feat-x" / "comments.json.seal"
        data = json.loads(seal.read_text())
        seal.write_text(json.dumps({**data, "close": "x"}))
        store.append(new("two"))
        assert len(list_all(store, "feat/x")) == 2

    def test_lone_surrogates_from_javascript_are_kept_escaped(self, repo: Path) -> None:
        path = repo / ".maple" / "feat-x" / "comments.json"
        path.parent.mkdir(parents=True)
        record = (
            '{"id": "loc_1", "branch": "feat/x", "body": "half \\ud83d emoji", "status": "open"}'
        )
        path.write_text('{"version": 1, "comments": [' + record + '], "approvals": []}')
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("two"))
        store.set_status("loc_1", CommentStatus.RESOLVED)
        assert "\\ud83d" in path.read_text()
        assert next(iter(store.list(ListQuery(branch="feat/x")).comments)).body == (
            "half \ud83d emoji"
        )

    def test_an_unknown_id_is_not_found_and_writes_nothing(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        store.append(new("one"))
        path = repo / ".maple" / "feat-x" / "comments.json"
        before = path.read_bytes()
        with pytest.raises(NotFoundError, match="No comment with id loc_missing"):
            store.set_status("loc_missing", CommentStatus.RESOLVED)
        assert path.read_bytes() == before

    def test_reading_never_creates_the_folder(self, repo: Path) -> None:
        store = FileCommentStore(FakeClock(), repo)
        assert list_all(store, "feat/x") == []
        assert store.approvals("feat/x") == []
        assert not (repo / ".maple").exists()


class TestMedia:
    def test_a_blob_is_stored_under_its_extension(self, repo: Path) -> None:
        media = FileMedia(repo)
        ref = media.put(b"\x89PNG fake", "image/png")
        assert ref.key.startswith("shot-")
        assert ref.to_json() == {"connector": "file", "key": ref.key, "contentType": "image/png"}
        assert (repo / ".maple" / "feat-x" / "media" / f"{ref.key}.png").read_bytes() == (
            b"\x89PNG fake"
        )
        assert media.get(ref.key) == (b"\x89PNG fake", "image/png")
        assert media.data_url(ref.key).startswith("data:image/png;base64,")

    def test_the_type_comes_from_the_extension(self, repo: Path) -> None:
        media = FileMedia(repo)
        ref = media.put(b"x", "image/jpeg")
        assert media.get(ref.key)[1] == "image/jpeg"
        other = media.put(b"x", "text/plain")
        assert (repo / ".maple" / "feat-x" / "media" / f"{other.key}.bin").exists()

    @pytest.mark.parametrize("key", ["../comments", "a/b", "shot.png", ""])
    def test_keys_with_path_characters_are_refused(self, repo: Path, key: str) -> None:
        with pytest.raises(InvalidMediaKeyError, match="No blob is held under"):
            FileMedia(repo).get(key)

    def test_a_missing_blob_is_not_found_and_remove_is_quiet(self, repo: Path) -> None:
        media = FileMedia(repo)
        with pytest.raises(NotFoundError, match="No blob is held under shot-000000000000"):
            media.get("shot-000000000000")
        ref = media.put(b"x", "image/png")
        media.remove(ref.key)
        media.remove(ref.key)
        with pytest.raises(NotFoundError):
            media.get(ref.key)


def test_a_key_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidMediaKeyError):
        FileMedia(tmp_path).get("shot-1\n")


def test_an_empty_dot_git_folder_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # a sandbox's mount point, say: git itself ignores it
    inside = tmp_path / "work"
    inside.mkdir()
    found = find_checkout(inside)
    assert found.git_dir is None or not found.git_dir.startswith(str(tmp_path))
    assert found.branch is None


def test_a_ledger_the_system_will_not_read_is_unavailable_and_named(repo: Path) -> None:
    store = FileCommentStore(FakeClock(), repo)
    ledger = Path(store.place().ledger)
    ledger.mkdir(parents=True)  # a folder where the file belongs: reading it fails with EISDIR
    with pytest.raises(StoreUnavailableError, match=r"comments\.json could not be used") as caught:
        store.list(ListQuery(branch="feat/x"))
    assert (caught.value.store, caught.value.operation) == ("file", "list")
    with pytest.raises(StoreUnavailableError, match="could not be used"):
        store.append(new("kept nowhere"))


def test_a_reader_never_sees_half_a_claims_write(repo: Path) -> None:
    """claims.json is written in place: its readers (listing, the Stop hook) share its lock, so a
    claim held throughout is seen in every listing while other claims come and go."""
    from maple_adapters.files.records import blocking_records
    from maple_adapters.system import SystemClock
    from maple_core.claims import Claimant, ClaimRequest

    store = FileCommentStore(SystemClock(), repo)
    held, busy = (store.append(NewComment(branch="feat/x", body=b)).id for b in ("held", "busy"))
    holder = Claimant.of("claude-code", "ms-holder")
    assert store.claim(held, ClaimRequest.claim(holder, 3600)).decision.granted
    ledger = repo / ".maple" / slug("feat/x") / "comments.json"
    done = threading.Event()

    def churn() -> None:  # claims of every length, as renewals and other sessions write them
        for i in range(400):
            who = Claimant.of("codex-mcp-client" + "x" * (i % 40), f"ms-{i:06d}")
            store.claim(busy, ClaimRequest.claim(who, 600))
            store.claim(busy, ClaimRequest.release(who))
        done.set()

    writer = threading.Thread(target=churn)
    writer.start()
    seen = 0
    while not done.is_set():
        listed = {c.id: c for c in list_all(store, "feat/x")}
        assert listed[held].extra["claim"]["session"] == "ms-holder"
        hook = {r["id"]: r for r in blocking_records(str(ledger), "feat/x", {"open"})}
        assert hook[held]["claim"]["session"] == "ms-holder"
        seen += 1
    writer.join()
    assert seen > 10
