"""One poll per pull request per machine: answers and the rate budget shared on disk.

Several ``SharedTransport``s on one folder stand for several maple processes (the last tests
run real processes, and kill one with SIGKILL). The fake GitHub counts what reaches it.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contract_tests.github_peers import TOKEN
from maple_adapters.github.budget_recorder import BudgetRecorder
from maple_adapters.github.shared import SharedCache, cache_folder
from maple_adapters.github.shared_transport import SharedTransport
from maple_adapters.github.transport import GitHubError, PyGithubTransport
from maple_adapters.github.wrappers import ResilientTransport
from tests.github.fake_github import FakeGitHub, Fault, Served

PATH = "/repos/acme/web/issues/1/comments"
PARAMS = {"per_page": 100, "page": 1}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull("feat/x")
    return served.fake


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return cache_folder(tmp_path / "cache", [TOKEN, "https://127.0.0.1/api/v3", "acme/web"])


def process(served: Served, folder: Path, max_age: float = 2.0) -> SharedTransport:
    """What one maple process builds: its own cache object on the shared folder."""
    cache = SharedCache(folder)
    inner = BudgetRecorder(PyGithubTransport(TOKEN, served.base_url, served.ca_file), cache)
    return SharedTransport(
        ResilientTransport(inner, secrets=[TOKEN], sleep=lambda s: None), cache, max_age
    )


def gets(fake: FakeGitHub) -> list[int]:
    return [
        status for method, path, status in fake.requests if method == "GET" and path.endswith(PATH)
    ]


def test_processes_share_one_answer_per_interval(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    one, two, three = (process(served, folder, max_age=0.5) for _ in range(3))
    fake.requests.clear()
    for transport in (one, two, three, one, two, three):
        assert transport.request("GET", PATH, params=PARAMS).data == []
    assert gets(fake) == [200]  # one request for all three, within the interval
    time.sleep(0.5)
    for transport in (two, three, one):
        transport.request("GET", PATH, params=PARAMS)
    assert gets(fake) == [200, 304]  # whoever asked first refreshed it, conditionally


def test_a_write_makes_every_process_read_again(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    reader, writer = process(served, folder), process(served, folder)
    assert reader.request("GET", PATH, params=PARAMS).data == []
    writer.request("POST", "/repos/acme/web/issues/1/comments", body={"body": "hello"})
    listed = reader.request("GET", PATH, params=PARAMS).data
    assert [c["body"] for c in listed] == ["hello"]  # type: ignore[union-attr]


def test_the_folder_is_private_and_holds_no_token(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    process(served, folder).request("GET", PATH, params=PARAMS)
    assert TOKEN not in str(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert TOKEN.encode() not in path.read_bytes(), path


def test_a_linked_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "github").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="private folder"):
        SharedCache(tmp_path / "github")


def test_polling_pauses_at_the_reserve_until_the_reset_and_says_so(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    fake.core_window.used = 4000  # 1,000 of 5,000 left: the 20% reserve
    fake.core_window.reset = time.time() + 1.5
    poller = process(served, folder, max_age=0.2)
    poller.request("GET", PATH, params=PARAMS)  # the first look is made, and reads the budget
    verdict = poller.verdict()
    assert not verdict.poll
    assert "down to 999 of 5,000" in verdict.reason
    assert "polling pauses until" in verdict.reason
    fake.requests.clear()
    time.sleep(0.3)
    poller.request("GET", PATH, params=PARAMS)
    assert gets(fake) == []  # the kept answer stands
    poller.request("POST", "/repos/acme/web/issues/1/comments", body={"body": "the agent acts"})
    assert len(poller.request("GET", PATH, params=PARAMS).data) == 1  # type: ignore[arg-type]
    while time.time() < fake.core_window.reset + 0.05:
        time.sleep(0.05)
    fake.requests.clear()
    time.sleep(0.25)
    poller.request("GET", PATH, params=PARAMS)
    assert gets(fake) == [304]
    assert poller.verdict().poll


def test_a_secondary_limit_pauses_every_process(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    one, two = process(served, folder, max_age=0.1), process(served, folder, max_age=0.1)
    one.request("GET", PATH, params=PARAMS)
    time.sleep(0.15)
    fake.faults.append(
        Fault(
            "GET",
            PATH,
            403,
            {"message": "You have exceeded a secondary rate limit."},
            {"retry-after": "60"},
        )
    )
    with pytest.raises(GitHubError):
        one.request("GET", PATH, params=PARAMS)
    fake.requests.clear()
    time.sleep(0.15)
    assert two.request("GET", PATH, params=PARAMS).data == []
    assert fake.requests == []
    assert "secondary rate limit" in two.verdict().reason


def worker(
    served: Served, folder: Path, *extra: str, max_age: float = 0.4
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.github.poll_worker",
            served.base_url,
            served.ca_file,
            str(folder),
            str(max_age),
            *extra,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def ended(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def first_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    return proc.stdout.readline().strip()


def test_five_processes_poll_as_one_and_one_killed_changes_nothing(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    pollers = [worker(served, folder) for _ in range(5)]
    try:
        for proc in pollers:
            assert first_line(proc).startswith("0 ")
        fake.requests.clear()
        time.sleep(4.0)
        # at most one request a 0.4 s interval for all five (five apart would make about 50)
        assert 1 <= len(gets(fake)) <= 4.0 / 0.4 + 3
        pollers[0].send_signal(signal.SIGKILL)
        pollers[0].wait()
        fake.add_comment(1, "a new comment", login="rev")
        added = time.time()
        for proc in pollers[1:]:
            count, when = first_line(proc).split()
            assert count == "1"
            # two intervals, and some slack for a loaded machine (the bench measures it closely)
            assert float(when) - added <= 2 * 0.4 + 2.0
    finally:
        for proc in pollers:
            ended(proc)


def test_a_poller_killed_while_refreshing_leaves_no_lock_behind(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    holder = worker(served, folder, "--hold", "600")
    try:
        assert first_line(holder) == "holding"
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        began = time.monotonic()
        assert process(served, folder).request("GET", PATH, params=PARAMS).data == []
        assert time.monotonic() - began < 5  # not the 15 s a hung holder would cost
    finally:
        ended(holder)


def test_a_304_that_brings_a_new_link_is_kept_with_it(
    served: Served, fake: FakeGitHub, folder: Path
) -> None:
    """A new page makes the last one point on, though its body (and ETag) did not change."""
    one, two = process(served, folder, max_age=0.2), process(served, folder, max_age=0.2)
    for body in ("a", "b"):
        fake.add_comment(1, body, login="rev")
    small = {"per_page": 2, "page": 1}
    assert "next" not in one.request("GET", PATH, params=small).headers.get("link", "")
    fake.add_comment(1, "c", login="rev")
    time.sleep(0.25)
    fake.requests.clear()
    assert 'rel="next"' in one.request("GET", PATH, params=small).headers["link"]
    assert gets(fake) == [304]
    assert 'rel="next"' in two.request("GET", PATH, params=small).headers["link"]  # from the folder
    assert gets(fake) == [304]
