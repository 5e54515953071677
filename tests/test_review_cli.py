"""``maple review`` as a process: a line for each comment that arrives, SIGTERM stopping the
``--cmd`` app even before it has printed its address, and an app that exits at once reported
with its exit code and last lines (issue 17, point 6)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from contract_tests.support import make_repo
from maple_core.comments import Comment
from maple_entrypoints.review.feed import comment_line
from tests.loopback import free_port
from tests.mcp_support import OutputLines, clean_env

BRANCH = "feat/cli"
MAPLE = str(Path(sys.executable).with_name("maple"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", BRANCH)


def review(repo: Path, *where: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [MAPLE, "review", *where, "--no-open"],
        cwd=repo,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie nobody has reaped yet has stopped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture
def served(repo: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    # the comments go to the proxy's own route: no app need answer behind it
    process = review(repo, "--url", f"http://127.0.0.1:{free_port()}")
    assert process.stdout is not None
    address = process.stdout.readline().strip()
    yield process, address
    process.terminate()
    process.communicate(timeout=15)


def test_each_comment_received_is_printed_on_a_line_of_its_own(
    served: tuple[subprocess.Popen[str], str],
) -> None:
    process, address = served
    assert address.startswith("http://127.0.0.1:")
    assert process.stdout is not None
    lines = []
    ids = []
    for body, name in (("The heading is\ntoo small.", "Ana"), ("Pay is hidden.", "")):
        answer = httpx.post(
            address + "/__maple/api/comments",
            json={
                "branch": BRANCH,
                "body": body,
                "anchor": {"selector": "h1"},
                "context": {"url": "http://localhost:3000/cart?step=2"},
                "author": {"id": "browser-id-0001", "name": name},
            },
            headers={"origin": address},
            timeout=10,
        )
        assert answer.status_code == 201
        ids.append(answer.json()["id"])
        lines.append(process.stdout.readline().strip())
    assert lines == [
        f"comment {ids[0]} by Ana on /cart: The heading is too small.",
        f"comment {ids[1]} by Guest on /cart: Pay is hidden.",
    ]


def test_a_comment_the_feed_cannot_read_is_shown_inert_and_the_feed_goes_on(
    served: tuple[subprocess.Popen[str], str],
) -> None:
    """A malformed address (``http://[oops/cart``) or a field of the wrong shape is shown as
    text, and the next comment is printed too (issue 22, point 5)."""
    process, address = served
    assert process.stdout is not None
    printed = OutputLines(process.stdout)  # a feed that died would print nothing: no hang
    lines = []
    hostile = [
        {"url": "http://[oops/cart"},
        {"url": "http://[::1]:99999/x"},
        {"url": ["not", "a", "string"]},
        {"url": "http://localhost:3000/ok"},
    ]
    for i, context in enumerate(hostile):
        answer = httpx.post(
            address + "/__maple/api/comments",
            json={
                "branch": BRANCH,
                "body": f"Comment {i}",
                "anchor": {"selector": "h1"},
                "context": context,
                "author": {"id": "browser-id-0001", "name": "Ana"},
            },
            headers={"origin": address},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        lines.append(printed.next(30))
    assert [line.split(": ", 1)[-1] for line in lines] == [f"Comment {i}" for i in range(4)]
    assert " on http://[oops/cart: " in lines[0]  # as written, one inert line
    assert lines[3].endswith(" by Ana on /ok: Comment 3")


def test_comment_line_names_the_comment_its_author_page_and_body() -> None:
    comment = Comment.from_json(
        {
            "id": "loc_1",
            "branch": BRANCH,
            "body": "Too   small,\nmake it " + "much " * 30 + "bigger.",
            "status": "open",
            "anchor": {},
            "context": {"url": "http://localhost:3000/cart?step=2"},
            "author": {"id": "browser:x", "name": "Ana", "provenance": "client"},
        }
    )
    line = comment_line(comment)
    assert line.startswith("comment loc_1 by Ana on /cart: Too small, make it much much")
    assert line.endswith("…")
    assert len(line.split(": ", 1)[1]) == 100


def test_comment_line_is_inert_on_a_terminal() -> None:
    hostile = "\x1b]0;pwned\x07\x1b[2J\u202eevil\r\x08"
    comment = Comment.from_json(
        {
            "id": "loc_2",
            "branch": BRANCH,
            "body": "Fix " + hostile,
            "status": "open",
            "anchor": {},
            "context": {"url": "http://localhost:3000/" + hostile},
            "author": {"id": "browser:x", "name": "Ana" + hostile, "provenance": "client"},
        }
    )
    line = comment_line(comment)
    assert line.isprintable(), repr(line)
    assert line.startswith("comment loc_2 by Ana]0;pwned[2Jevil")  # the words stay, inert


def test_sigterm_stops_the_command_even_before_it_printed_its_address(
    repo: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "app.pid"
    process = review(repo, "--cmd", f"echo $$ > {pid_file}; echo starting; exec sleep 60")
    assert process.stderr is not None
    assert process.stderr.readline().strip() == "starting"  # relayed: the app runs, no address yet
    app = int(pid_file.read_text())
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=15)
    assert process.returncode != 0
    deadline = time.monotonic() + 10
    while alive(app) and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive(app):
        os.kill(app, signal.SIGKILL)
        pytest.fail("the app outlived maple review after SIGTERM")


def test_an_app_that_exits_at_once_is_reported_with_its_exit_code_and_last_lines(
    repo: Path,
) -> None:
    command = "echo compiling; echo 'Error: port 3000 is in use' >&2; exit 3"
    started = time.monotonic()
    done = subprocess.run(
        [MAPLE, "review", "--cmd", command, "--no-open"],
        cwd=repo,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.monotonic() - started < 20  # not after a 60 s wait for an address
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"maple: `{command}` exited with code 3 before printing a local address (such as "
        "http://localhost:3000); its last lines: compiling | Error: port 3000 is in use"
    )


def test_the_feed_line_is_one_bounded_printable_line_whatever_the_record_holds() -> None:
    comment = Comment.from_json(
        {
            "id": "loc_1\x1b]0;owned\x07\x1b[2J\nfake",
            "branch": BRANCH,
            "body": "b",
            "status": "open",
            "anchor": {},
            "author": {"id": "x", "name": "Ana" * 1000},
            "context": {"url": "http://localhost:3000/" + "p" * 100_000},
        }
    )
    line = comment_line(comment)
    assert line.isprintable(), repr(line[:60])
    assert len(line) < 400, len(line)


def test_an_address_after_bytes_that_are_not_utf8_is_found(repo: Path) -> None:
    from maple_entrypoints.cli.review import _Command

    child = _Command("printf 'caf\\351 ready\\n'; echo 'Local: http://localhost:3000'; sleep 30")
    try:
        assert child.address() == "http://localhost:3000"
    finally:
        child.stop()


def test_the_app_is_never_blocked_by_its_own_output(tmp_path: Path) -> None:
    from maple_entrypoints.cli.review import _Command

    done = tmp_path / "done"
    script = (
        "echo 'Local: http://localhost:3000'; sleep 0.5; printf 'GET /caf\\351 200\\n'; "
        f"head -c 200000 /dev/zero | tr '\\0' x; echo; touch {done}; sleep 30"
    )
    child = _Command(script)
    try:
        assert child.address() == "http://localhost:3000"
        deadline = time.monotonic() + 60
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert done.exists(), "the app is stuck writing to a pipe nobody reads"
    finally:
        child.stop()


def test_the_early_exit_report_is_one_printable_bounded_line(repo: Path) -> None:
    long = "$(head -c 5000 /dev/zero | tr '\\0' y)"
    command = f"printf 'boot\\n\\033]0;TITLE\\007\\033[2J oops %s\\n' {long}; exit 3"
    done = subprocess.run(
        [MAPLE, "review", "--no-open", "--cmd", command],
        cwd=repo,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    report = next(line for line in done.stderr.splitlines() if line.startswith("maple: `"))
    assert "exited with code 3" in report
    assert report.isprintable(), repr(report)
    assert len(report) < 1500, len(report)


def test_outside_a_git_repository_review_refuses_to_start_and_says_why(tmp_path: Path) -> None:
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    done = subprocess.run(
        [MAPLE, "review", "--url", "http://127.0.0.1:9", "--no-open"],
        cwd=plain,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode != 0
    assert "is not in a git repository" in done.stderr
    assert "git init" in done.stderr
    assert not (plain / ".maple").exists()  # nothing written where nobody reads


def test_comments_left_through_review_keep_git_status_clean(
    repo: Path, served: tuple[subprocess.Popen[str], str]
) -> None:
    _, address = served
    comment = {
        "branch": BRANCH,
        "body": "Typed into the form: hunter2",
        "anchor": {"selector": "main"},
        "context": {"url": "http://localhost:3000/"},
        "createdAt": "2026-12-01T12:00:00.000Z",
    }
    answer = httpx.post(
        address + "/__maple/api/comments", json=comment, headers={"origin": address}
    )
    assert answer.status_code == 201, answer.text
    assert (repo / ".maple" / ".gitignore").read_text().splitlines()[-1] == "*"
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""
