"""The installed ``maple`` command, run as a subprocess in real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
        'maple: Unknown MAPLE_STORE sqlite; "github" and "file" exist, and "route" for a '
        "deployed Maple route."
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
