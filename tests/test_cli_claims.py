"""``maple comments claim|release`` (a person's claims, ``--force``) and ``maple agents status``.

The installed ``maple`` runs as a process in a scratch repository on the file store, beside an
agent session's claim made through the store itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from maple_adapters.files.store import FileCommentStore
from maple_adapters.sessions import SessionRegistry
from maple_adapters.system import SystemClock
from maple_core.claims import Claimant, ClaimRequest, claim_of, live_claim
from maple_core.comments import NewComment
from maple_core.listing import list_all
from tests.support import maple as run
from tests.test_cli_commands import BRANCH, repo

__all__ = ["repo"]  # the fixture this module shares
AGENT = Claimant.of("claude-code", "ms-agent")


@pytest.fixture
def temp(tmp_path: Path) -> Path:
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


def store(repo: Path) -> FileCommentStore:
    return FileCommentStore(SystemClock(), repo)


def comment(repo: Path) -> str:
    return store(repo).append(NewComment(branch=BRANCH, body="Tighten the header.")).id


def holder(repo: Path, comment_id: str) -> str | None:
    [found] = [c for c in list_all(store(repo), BRANCH) if c.id == comment_id]
    claim = live_claim(found, SystemClock().now())
    return claim.session if claim is not None else None


def test_a_person_claims_and_releases_their_own(repo: Path, temp: Path) -> None:
    comment_id = comment(repo)
    done = run(repo, "comments", "claim", comment_id, "--lease", "60", "--json", TMPDIR=str(temp))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["outcome"] == "claimed"
    assert answer["claim"]["agent"].endswith("(person)")
    assert answer["claim"]["session"].startswith("cli-")
    assert holder(repo, comment_id) == answer["claim"]["session"]
    released = run(repo, "comments", "release", comment_id, TMPDIR=str(temp))
    assert released.returncode == 0, released.stderr
    assert released.stdout.strip() == f"{comment_id} released"
    assert holder(repo, comment_id) is None


def test_an_agents_claim_is_named_and_only_force_takes_it_over(repo: Path, temp: Path) -> None:
    comment_id = comment(repo)
    store(repo).claim(comment_id, ClaimRequest.claim(AGENT))
    refused = run(repo, "comments", "claim", comment_id, TMPDIR=str(temp))
    assert refused.returncode == 1
    assert "claimed by claude-code (session ms-agent)" in refused.stderr
    assert "--force" in refused.stderr
    assert holder(repo, comment_id) == "ms-agent"
    not_theirs = run(repo, "comments", "release", comment_id, TMPDIR=str(temp))
    assert not_theirs.returncode == 1
    taken = run(repo, "comments", "claim", comment_id, "--force", TMPDIR=str(temp))
    assert taken.returncode == 0, taken.stderr
    assert "taken over" in taken.stdout
    assert "ms-agent" in taken.stdout
    assert (holder(repo, comment_id) or "").startswith("cli-")


def test_a_person_ends_an_agents_claim_by_force(repo: Path, temp: Path) -> None:
    comment_id = comment(repo)
    store(repo).claim(comment_id, ClaimRequest.claim(AGENT))
    ended = run(repo, "comments", "release", comment_id, "--force", TMPDIR=str(temp))
    assert ended.returncode == 0, ended.stderr
    assert holder(repo, comment_id) is None
    [found] = list_all(store(repo), BRANCH)
    assert claim_of(found) is not None  # the ended claim stays on the record, lapsed


def test_agents_status_lists_the_sessions_holding_claims(repo: Path, temp: Path) -> None:
    first, second, third = comment(repo), comment(repo), comment(repo)
    watch = Claimant.of("claude (maple watch)", "mw-0123456789ab")
    store(repo).claim(first, ClaimRequest.claim(AGENT))
    store(repo).claim_many([second, third], ClaimRequest.claim(watch))
    registry = SessionRegistry(str(temp))
    registry.write(
        {
            "session": "mw-0123456789ab",
            "kind": "maple watch",
            "agent": watch.agent,
            "pid": os.getpid(),
            "client": os.getpid(),
        }
    )
    registry.write(
        {
            "session": "ms-idle",
            "kind": "maple-mcp",
            "agent": "codex-mcp-client",
            "pid": os.getpid(),
            "client": os.getppid(),
        }
    )
    done = run(repo, "agents", "status", "--json", TMPDIR=str(temp))
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    sessions = {s["session"]: s for s in listed["sessions"]}
    assert set(sessions) == {"ms-agent", "mw-0123456789ab"}
    assert [c["id"] for c in sessions["ms-agent"]["claims"]] == [first]
    assert sorted(c["id"] for c in sessions["mw-0123456789ab"]["claims"]) == sorted([second, third])
    assert sessions["mw-0123456789ab"]["local"]["kind"] == "maple watch"
    assert sessions["ms-agent"]["local"] is None
    assert [e["session"] for e in listed["idle"]] == ["ms-idle"]
    text = run(repo, "agents", "status", TMPDIR=str(temp))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert any(
        line.startswith("mw-0123456789ab  claude (maple watch)  (maple watch, pid")
        and "2 claim(s)" in line
        for line in lines
    ), lines
    assert any(line.startswith("ms-idle") and line.endswith("no claims") for line in lines)
