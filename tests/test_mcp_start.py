"""``maple-mcp`` answers the handshake before the MCP SDK has loaded, as the SDK itself does.

Every test here runs the real ``maple-mcp`` over pipes. "Held" runs hold the SDK's import
(``held_maple_mcp.py``) until the test opens the gate, so an answer read before that was given
without the SDK, and the rest must still reach the SDK, in order, each answered once.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from contract_tests.support import make_repo
from tests.mcp_start_support import (
    Gate,
    Wire,
    answer_id,
    envelope,
    initialize,
    notification,
    record,
    recorded_methods,
    request,
)
from tests.mcp_support import MAPLE_MCP, clean_env, structured
from tests.test_mcp_stdio import SNAPSHOT, tools_snapshot

BRANCH = "feat/start"
LIST_CALL = {"name": "list_comments", "arguments": {"branch": BRANCH}}
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", BRANCH)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def legacy(version: str) -> list[str]:
    """What a handshake client sends first: every recordable request, on ``version``."""
    return [
        initialize(version),
        notification("notifications/initialized"),
        request(1, "tools/list", {"_meta": {"progressToken": 0}}),
        request(2, "tools/list"),
        request(3, "ping"),
        request(4, "prompts/list"),
        request(5, "resources/list"),
        request(6, "resources/templates/list"),
        request("listen:0", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}),
    ]


def modern(capabilities: dict[str, object] | None = None) -> list[str]:
    """What a 2026-07-28 client sends first, as Claude Code does (``ping`` is no method there)."""
    meta = envelope(capabilities)
    changes = {"toolsListChanged": True, "promptsListChanged": True, "resourcesListChanged": True}
    return [
        request("server-discover-probe-1", "server/discover", meta),
        request("listen:0", "subscriptions/listen", {**meta, "notifications": changes}),
        request(1, "tools/list", meta),
        request(2, "ping", meta),
        request(3, "prompts/list", meta),
        request(4, "resources/list", meta),
        request(5, "resources/templates/list", meta),
        request(6, "server/discover", meta),
    ]


CONVERSATIONS = {
    **{f"initialize {v}": legacy(v) for v in HANDSHAKE_PROTOCOL_VERSIONS},
    "initialize with an unknown version": legacy("2099-01-01"),
    **{f"discover {v}": modern() for v in MODERN_PROTOCOL_VERSIONS},
    **{f"discover {v} with tasks": modern(TASKS) for v in MODERN_PROTOCOL_VERSIONS},
}
TOOL_SETS = {
    "maple's tools": {},
    "with external agents": {"MAPLE_AGENTS": "codex,claude"},
    "in a turn nobody watches": {"MAPLE_AGENTS": "codex,claude", "MAPLE_UNATTENDED": "1"},
}


def requests_in(lines: list[str]) -> int:
    return sum(1 for text in lines if answer_id(text) is not None)


@pytest.mark.parametrize("tool_set", TOOL_SETS.values(), ids=TOOL_SETS.keys())
@pytest.mark.parametrize("conversation", CONVERSATIONS.values(), ids=CONVERSATIONS.keys())
def test_answers_given_before_the_sdk_loads_are_the_sdks_byte_for_byte(
    repo: Path, cache: Path, conversation: list[str], tool_set: dict[str, str]
) -> None:
    count = requests_in(conversation)
    live = Wire(repo, cache, **tool_set)  # nothing recorded yet: the SDK answers, and records
    live.send(*conversation)
    sdk = {answer_id(text): text for text in live.answers(count)}
    code, closing, err = live.finish()  # a listen is answered when the connection closes
    assert (code, err) == (0, "")
    distinct = {(m["method"], json.dumps(m.get("params"))) for m in map(json.loads, conversation)}
    assert sorted(recorded_methods(cache)) == sorted(
        m for m, _ in distinct if m != "notifications/initialized"
    )

    held = Wire(repo, cache, held=True, **tool_set)
    held.send(*conversation)
    replayed = {answer_id(text): text for text in held.answers(count)}  # the SDK is not loaded
    assert replayed == sdk
    held.open_gate()
    held.send(request(99, "tools/call", {"name": "list_comments", "arguments": {"branch": "x"}}))
    assert answer_id(held.answer()) == 99
    assert held.finish() == (0, closing, "")  # no second answer, no mismatch reported


AGENTS = {"MAPLE_AGENTS": "codex,claude"}


@pytest.mark.parametrize(
    ("recorded_with", "running_with", "agent_tools"),
    [
        ({}, AGENTS, True),
        (AGENTS, {}, False),
        (AGENTS, {**AGENTS, "MAPLE_UNATTENDED": "1"}, False),
    ],
    ids=["agents added", "agents removed", "a turn nobody watches"],
)
def test_another_tool_set_is_never_answered_from_this_ones_record(
    repo: Path,
    cache: Path,
    recorded_with: dict[str, str],
    running_with: dict[str, str],
    agent_tools: bool,
) -> None:
    conversation = legacy("2025-11-25")
    recorded = record(repo, cache, conversation, **recorded_with)
    assert ('"agent_start"' in recorded[1]) is not agent_tools
    held = Wire(repo, cache, held=True, **running_with)
    held.send(*conversation)
    held.open_gate()  # nothing recorded for this configuration: every answer is the SDK's
    answers = {answer_id(text): text for text in held.answers(requests_in(conversation))}
    tools = [t["name"] for t in json.loads(answers[1])["result"]["tools"]]
    assert ("agent_start" in tools) is agent_tools
    assert held.finish()[::2] == (0, "")


def handed_over(transcript: Path, sent: list[str], replayed: set[object]) -> None:
    """The SDK read exactly ``sent``, in order; the ``replayed`` requests under ids of their own."""
    read = transcript.read_text().splitlines()
    assert len(read) == len(sent)
    private = set()
    for got, text in zip(read, sent, strict=True):
        if answer_id(text) in replayed:
            mine, theirs = json.loads(got), json.loads(text)
            assert mine.pop("id") not in private | {theirs.pop("id")}
            assert mine == theirs
            private.add(answer_id(got))
        else:
            assert got == text


def test_a_burst_sent_before_the_sdk_loads_reaches_it_in_order_and_each_is_answered_once(
    repo: Path, cache: Path, tmp_path: Path
) -> None:
    record(repo, cache, legacy("2025-11-25"))
    burst = [initialize("2025-11-25"), notification("notifications/initialized")]
    fast, slow = [0], []
    for i in range(60):
        burst.append(request(100 + i, "tools/list", {"_meta": {"progressToken": 0}}))
        burst.append(request(200 + i, "tools/call", LIST_CALL))
        burst.append(request(300 + i, "ping"))
        burst.append(notification("notifications/cancelled", {"requestId": 9999 + i}))
        fast += [100 + i, 300 + i]
        slow.append(200 + i)
    transcript = tmp_path / "transcript"
    held = Wire(repo, cache, held=True, transcript=transcript)
    held.send(*burst)
    before = held.answers(len(fast))  # the SDK has not loaded: these are replayed, in order
    assert [answer_id(text) for text in before] == fast
    held.open_gate()
    after = held.answers(len(slow))
    assert sorted(answer_id(text) for text in after) == slow
    assert all('"result":{"content":' in text for text in after)
    assert held.finish() == (0, [], "")  # nothing answered twice
    handed_over(transcript, burst, set(fast))


def test_a_tools_call_sent_with_the_handshake_is_answered_after_it(repo: Path, cache: Path) -> None:
    record(repo, cache, legacy("2025-06-18"))
    held = Wire(repo, cache, held=True)
    held.send(
        initialize("2025-06-18"),
        notification("notifications/initialized"),
        request(7, "tools/call", LIST_CALL),
    )
    assert answer_id(held.answer()) == 0
    held.open_gate()
    called = json.loads(held.answer())  # had the SDK seen it before initialize, an error
    assert called["id"] == 7
    assert called["result"]["structuredContent"]["result"] == []
    assert held.finish() == (0, [], "")


def test_the_first_request_still_decides_the_protocol_era(repo: Path, cache: Path) -> None:
    record(repo, cache, modern())
    held = Wire(repo, cache, held=True)
    held.send(request(1, "server/discover", envelope()), initialize("2025-11-25", request_id=2))
    assert answer_id(held.answer()) == 1
    held.open_gate()
    refused = json.loads(held.answer())  # the SDK saw discover first: a modern connection
    assert refused["id"] == 2
    assert "initialize handshake is not accepted" in refused["error"]["message"]
    assert held.finish() == (0, [], "")
    assert "subscriptions/listen" in recorded_methods(cache)


def test_a_client_that_closes_while_the_sdk_loads_is_handed_over_all_the_same(
    repo: Path, cache: Path, tmp_path: Path
) -> None:
    record(repo, cache, legacy("2025-11-25"))
    sent = [
        initialize("2025-11-25"),
        notification("notifications/initialized"),
        request(1, "tools/list", {"_meta": {"progressToken": 0}}),
        request(2, "tools/call", LIST_CALL),
    ]
    transcript = tmp_path / "transcript"
    held = Wire(repo, cache, held=True, transcript=transcript)
    held.send_raw("\n".join(sent))  # the last line without its newline, then the end
    assert [answer_id(text) for text in held.answers(2)] == [0, 1]
    held.close_stdin()
    held.open_gate()
    code, rest, err = held.finish()
    assert (code, err) == (0, "")
    assert [answer_id(text) for text in rest] in ([], [2])  # as the SDK does at the end
    handed_over(transcript, sent, {0, 1})


def test_a_malformed_line_ends_the_replay_and_reaches_the_sdk_as_it_came(
    repo: Path, cache: Path, tmp_path: Path
) -> None:
    sdk = record(repo, cache, legacy("2025-11-25"))
    sent = [
        initialize("2025-11-25"),
        notification("notifications/initialized"),
        '{"jsonrpc":"2.0","id":40,"method":"tools/list"',
        request(1, "tools/list", {"_meta": {"progressToken": 0}}),
        request(2, "tools/call", LIST_CALL),
    ]
    transcript = tmp_path / "transcript"
    held = Wire(repo, cache, held=True, transcript=transcript)
    held.send(*sent)
    assert answer_id(held.answer()) == 0
    held.open_gate()
    answers = {answer_id(text): text for text in held.answers(2)}  # the SDK's own
    assert answers[1] == sdk[1]
    assert held.finish() == (0, [], "")
    handed_over(transcript, sent, {0})


def test_an_answer_the_sdk_contradicts_is_reported_forgotten_and_recorded_again(
    repo: Path, cache: Path
) -> None:
    conversation = legacy("2025-11-25")
    sdk = record(repo, cache, conversation)
    (path,) = (cache / "maple" / "mcp-answers").glob("*.json")
    stored = json.loads(path.read_text())
    stored["answers"] = {
        key: rest.replace("newest first", "oldest first") for key, rest in stored["answers"].items()
    }
    path.write_text(json.dumps(stored))
    held = Wire(repo, cache, held=True)
    held.send(*conversation)
    replayed = {answer_id(text): text for text in held.answers(requests_in(conversation))}
    assert "oldest first" in replayed[1]  # proof that it came from the record
    held.open_gate()
    held.send(request(8, "tools/call", LIST_CALL))
    assert answer_id(held.answer()) == 8
    code, rest, err = held.finish()
    assert (code, rest) == (0, [])  # the SDK's own answers were still not sent twice
    (warning,) = err.splitlines()
    assert "answered a recorded request differently" in warning
    assert '"method": "tools/list"' in warning
    assert not path.exists()
    assert record(repo, cache, conversation) == sdk
    assert path.exists()


@pytest.mark.anyio
async def test_the_official_client_connects_and_lists_the_tools_before_the_sdk_loads(
    repo: Path, cache: Path
) -> None:
    env = clean_env(XDG_CACHE_HOME=str(cache))
    async with Client(StdioServerParameters(command=str(MAPLE_MCP), cwd=repo, env=env)) as client:
        await client.list_tools()  # recorded
    gate = Gate(repo.parent)
    command, *args = gate.command()
    held = StdioServerParameters(command=command, args=args, cwd=repo, env=env)
    try:
        async with Client(held) as client:
            assert client.server_info.name == "maple"
            listed = tools_snapshot(await client.list_tools())
            gate.open()
            called = await client.call_tool("list_comments", {"branch": BRANCH})
    finally:
        gate.close()
    assert listed == json.loads(SNAPSHOT.read_text())
    assert structured(called) == []


def test_a_bad_configuration_fails_with_its_one_line_before_any_answer(
    repo: Path, cache: Path
) -> None:
    record(repo, cache, legacy("2025-11-25"))
    done = subprocess.run(
        [str(MAPLE_MCP)],
        cwd=repo,
        env=clean_env(XDG_CACHE_HOME=str(cache), MAPLE_STORE="sqlite"),
        input="\n".join(legacy("2025-11-25")) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("maple-mcp: Unknown MAPLE_STORE sqlite")
    assert len(done.stderr.splitlines()) == 1
