"""A ``maple-mcp`` session that ends cleanly releases its claims at once, and forgets its note.

The real ``maple-mcp`` over stdio, on the file store: the client closing stdin, and SIGTERM,
each end the session; its claims are released then, not at their expiry, and its entry in this
machine's session notes (``maple_adapters.sessions``) is removed. A process killed outright
keeps its claims until they lapse (the contract suite's SIGKILL test).
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.sessions import SessionRegistry
from maple_adapters.system import SystemClock
from maple_core.claims import live_claim
from maple_core.comments import NewComment
from maple_core.listing import list_all
from tests.mcp_support import MAPLE_MCP, clean_env, stdio_server, structured

BRANCH = "feat/claims"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BRANCH)


def add(repo: Path, body: str) -> str:
    return FileCommentStore(SystemClock(), repo).append(NewComment(branch=BRANCH, body=body)).id


def holder(repo: Path, comment_id: str) -> str | None:
    store = FileCommentStore(SystemClock(), repo)
    [found] = [c for c in list_all(store, BRANCH) if c.id == comment_id]
    claim = live_claim(found, SystemClock().now())
    return claim.session if claim is not None else None


@pytest.mark.anyio
async def test_closing_stdin_releases_the_sessions_claims_and_forgets_its_note(
    repo: Path, tmp_path: Path
) -> None:
    comment = add(repo, "Tighten the header.")
    notes = SessionRegistry(str(tmp_path))
    async with stdio_server(repo, TMPDIR=str(tmp_path)) as client:
        looked = structured(
            await client.call_tool("get_comment_context", {"id": comment, "branch": BRANCH})
        )
        session = looked["comment"]["claim"]["session"]
        assert holder(repo, comment) == session
        assert [e["session"] for e in notes.entries()] == [session]
    assert holder(repo, comment) is None
    assert notes.entries() == []


def test_sigterm_releases_the_sessions_claims(repo: Path, tmp_path: Path) -> None:
    comment = add(repo, "Tighten the header.")
    process = subprocess.Popen(
        [str(MAPLE_MCP)],
        cwd=repo,
        env=clean_env(TMPDIR=str(tmp_path)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test-client", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "claim_comment", "arguments": {"id": comment}},
        },
    ]
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(2)]
        assert not answers[1]["result"].get("isError"), answers[1]
        assert holder(repo, comment) is not None
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
    assert holder(repo, comment) is None
    assert SessionRegistry(str(tmp_path)).entries() == []
