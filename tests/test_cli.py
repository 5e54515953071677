"""The installed ``maple`` command, run as a subprocess in real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from contract_tests.support import git, make_repo

MAPLE = Path(sys.executable).with_name("maple")
SECRET = "ghp_cli_secret_token_do_not_print_123"


def run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))}
    return subprocess.run(
        [str(MAPLE), *args],
        cwd=cwd,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", "feat/x")


def test_add_then_list_on_the_checked_out_branch(repo: Path) -> None:
    added = run(repo, "comments", "add", "--body", "Tighten the header.")
    assert added.returncode == 0, added.stderr
    comment_id = added.stdout.strip()
    assert comment_id.startswith("loc_")
    listed = run(repo, "comments", "list")
    assert listed.returncode == 0
    [line] = listed.stdout.splitlines()
    fields = line.split("\t")
    assert (fields[0], fields[1], fields[3]) == (comment_id, "open", "Tighten the header.")
    assert (repo / ".maple" / "feat-x" / "comments.json").is_file()


def test_json_output_is_the_stored_comments_newest_first(repo: Path) -> None:
    run(repo, "comments", "add", "--body", "first")
    run(repo, "comments", "add", "--body", "second", "--branch", "feat/other")
    out = run(repo, "comments", "list", "--json")
    data = json.loads(out.stdout)
    assert [c["body"] for c in data] == ["first"]
    assert data[0]["status"] == "open"
    assert data[0]["branch"] == "feat/x"
    other = json.loads(run(repo, "comments", "list", "--json", "--branch", "feat/other").stdout)
    assert [c["body"] for c in other] == ["second"]


def test_status_filters(repo: Path) -> None:
    run(repo, "comments", "add", "--body", "one")
    opened = json.loads(run(repo, "comments", "list", "--json", "--status", "open").stdout)
    assert len(opened) == 1
    resolved = run(repo, "comments", "list", "--json", "-s", "resolved", "-s", "orphaned")
    assert json.loads(resolved.stdout) == []
    bad = run(repo, "comments", "list", "--status", "done")
    assert bad.returncode == 2
    assert "done" in bad.stderr


def test_no_branch_checked_out_asks_for_one(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    out = run(repo, "comments", "list")
    assert out.returncode == 2
    assert out.stderr.strip() == "maple: no branch is checked out here; pass --branch NAME."
    assert run(repo, "comments", "list", "--branch", "feat/x").returncode == 0


def test_an_unknown_store_is_one_line_naming_the_variable(repo: Path) -> None:
    out = run(repo, "comments", "list", MAPLE_STORE="sqlite")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        'maple: Unknown MAPLE_STORE sqlite; "github" and "file" exist, "route" for a deployed '
        'Maple route and "sql" for a database.'
    )
    assert "Traceback" not in out.stderr


def test_a_github_configuration_is_refused_without_printing_the_token(repo: Path) -> None:
    half = run(repo, "comments", "list", GITHUB_TOKEN=SECRET)
    assert half.returncode == 2
    assert half.stderr.startswith("maple: MAPLE_GITHUB_OWNER is not set; maple cannot start")
    out = run(
        repo,
        "comments",
        "list",
        GITHUB_TOKEN=SECRET,
        MAPLE_GITHUB_OWNER="acme",
        MAPLE_GITHUB_REPO="web",
        MAPLE_GITHUB_API="https://127.0.0.1:9/api/v3",  # a closed loopback port: refused at once
    )
    assert out.returncode == 1
    assert "GitHub could not be reached" in out.stderr
    assert SECRET not in half.stdout + half.stderr
    assert SECRET not in out.stdout + out.stderr


def test_a_corrupt_ledger_is_reported_and_left_alone(repo: Path) -> None:
    path = repo / ".maple" / "feat-x" / "comments.json"
    path.parent.mkdir(parents=True)
    path.write_text("not json")
    out = run(repo, "comments", "add", "--body", "x")
    assert out.returncode == 1
    assert "is not a Maple comments file" in out.stderr
    assert "Traceback" not in out.stderr
    assert path.read_text() == "not json"


# -- exit codes, as docs/cli.md documents them for every command ------------------------------

EXIT_CODES = [
    (["comments", "list", "--status", "done"], 2, "done"),
    (["comments", "wait", "--cursor", "yesterday", "--timeout-ms", "1"], 1, "not a timestamp"),
    (["comments", "show", "loc_nope"], 1, "No comment loc_nope"),
    (["comments", "resolve", "loc_nope"], 1, "No comment with id loc_nope"),
    (["gate", "publish"], 2, "maple: no event to publish for"),
    (["solo", "not-a-url"], 1, "maple: Could not start the solo bridge: not-a-url is not an http"),
    (
        ["solo", "ftp://x.example/"],
        1,
        "maple: Could not start the solo bridge: ftp://x.example/ is",
    ),
    (["solo", "https://x.example/", "--port", "70000"], 2, "65535"),
    (["route", "serve", "--store", "sqlite"], 2, "maple: unknown --store sqlite"),
    (["route", "serve", "--prefix", "api"], 2, "maple: --prefix must start with /"),
    (["agents", "start", "gpt", "Fix it."], 2, "maple: unknown provider gpt"),
    (["agents", "status", "codex-1"], 1, "maple: no agent codex-1 here"),
    (["install", "emacs"], 2, "emacs"),
    (["review"], 2, "maple: say where the app is with exactly one of --url, --port or --cmd"),
    (["review", "--url", "ftp://x.example/", "--no-open"], 1, "maple: --url must start with"),
    (["review", "--cmd", "true", "--no-open"], 1, "maple: `true` exited with code 0 before"),
    (["no-such-command"], 2, "no-such-command"),
]


@pytest.mark.parametrize(("args", "code", "says"), EXIT_CODES, ids=lambda v: str(v))
def test_every_command_exits_with_the_code_docs_cli_documents(
    repo: Path, args: list[str], code: int, says: str
) -> None:
    done = run(repo, *args)
    assert done.returncode == code, done.stderr
    assert says in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def held_port() -> Iterator[int]:
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield int(held.getsockname()[1])


@pytest.mark.parametrize(
    "args",
    [
        ["solo", "https://x.example/", "--port"],
        ["route", "serve", "--port"],
        ["review", "--port", "3000", "--no-open", "--listen"],
    ],
    ids=["solo", "route serve", "review"],
)
def test_a_port_that_cannot_be_listened_on_is_exit_1_in_one_line(
    repo: Path, held_port: int, args: list[str]
) -> None:
    done = run(repo, *args, str(held_port))
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("maple: ")
    assert f"cannot listen on 127.0.0.1:{held_port}" in line


def _solo_json(repo: Path, preview_url: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """``maple solo --json`` started in ``repo``, and what it printed once its bridge listens."""
    import select

    process = subprocess.Popen(
        [str(MAPLE), "solo", preview_url, "--json"],
        cwd=repo,
        env={k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 60)
    if not ready:
        process.kill()
        process.communicate()
        raise AssertionError("maple solo printed nothing within 60 s")
    return process, json.loads(process.stdout.readline())


def test_maple_solo_json_prints_link_bridge_and_origin(repo: Path) -> None:
    import signal

    from maple_entrypoints.solo_pairing import pairing_of

    origin = "https://feat-x.preview.example"
    process, shown = _solo_json(repo, origin + "/menu?tab=2")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert sorted(shown) == ["bridge", "link", "origin"]
    assert shown["origin"] == origin
    assert shown["bridge"].startswith("http://127.0.0.1:")
    assert shown["link"].startswith(origin + "/menu?tab=2#maple-solo=")
    pairing = pairing_of(shown["link"])
    assert pairing is not None
    assert pairing[1] == shown["bridge"]
    assert process.returncode == 0, err


def _signal_another_thread(pid: int, signum: int) -> bool:
    """Send ``signum`` to one thread of ``pid`` other than its main one, as the kernel may deliver
    a process-wide signal to any thread; False when it has no other thread."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    tgkill = 131 if os.uname().machine in ("aarch64", "arm64") else 234  # x86_64's number
    others = sorted(int(t.name) for t in Path(f"/proc/{pid}/task").iterdir() if int(t.name) != pid)
    return bool(others) and libc.syscall(tgkill, pid, others[0], signum) == 0


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_maple_solo_stops_whichever_thread_the_signal_lands_on(repo: Path, signum: str) -> None:
    import signal

    process, _ = _solo_json(repo, "https://feat-x.preview.example/menu")
    try:
        assert _signal_another_thread(process.pid, getattr(signal, signum))
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.communicate()
    assert process.returncode == 0, err
