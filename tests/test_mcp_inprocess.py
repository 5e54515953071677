"""The MCP tools over the memory store and the memory gate, through the official client in-process.

These are Maple's handler, gate and logger cases (behaviour §10.3–10.5).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.client import Client

from contract_tests.support import FakeClock
from maple_adapters.log import ServerLog
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.memory_gate import InMemoryGatePublisher
from maple_core.comments import Comment, NewComment
from maple_core.gate import GateReport
from maple_core.gate_rules import GateRules
from maple_core.paging import CommentPage, ListQuery
from maple_core.ports import BranchState, Capability, CommentStore
from maple_core.targets import GateTarget
from maple_entrypoints.mcp_server import build_server
from tests.mcp_support import EVENT_S, error_text, structured

pytestmark = pytest.mark.anyio
BRANCH = "feature/agent"
HEAD = "9ab1c2d"
TOKEN = "ghp_expired_gate_token_0042"


def at(minute: int) -> str:
    return f"2026-01-01T12:{minute:02d}:00.000Z"


class PagedStore(InMemoryCommentStore):
    """A memory store that answers one comment per page, to prove every page is gathered."""

    def list(self, query: ListQuery) -> CommentPage:
        return super().list(ListQuery(query.branch, query.statuses, query.cursor, limit=1))


class AppendOnlyStore(InMemoryCommentStore):
    """A memory store that cannot change a status."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.SET_STATUS}


class BrokenGate(InMemoryGatePublisher):
    def publish(self, report: GateReport) -> None:
        raise RuntimeError(f"GitHub 401 on /check-runs: Bad credentials (token {TOKEN})")


def seed(store: CommentStore, minutes: Sequence[int], branch: str = "feature/x") -> list[Comment]:
    return [
        store.append(NewComment(branch=branch, body=f"c{m}", created_at=at(m))) for m in minutes
    ]


async def test_list_gathers_every_page_newest_first() -> None:
    store = PagedStore(FakeClock())
    seed(store, [1, 3, 2])
    async with Client(build_server(store)) as client:
        listed = structured(await client.call_tool("list_comments", {"branch": "feature/x"}))
    assert [c["createdAt"] for c in listed] == [at(3), at(2), at(1)]


async def test_wait_returns_only_what_is_newer_than_the_cursor() -> None:
    store = InMemoryCommentStore(FakeClock())
    comments = seed(store, [1, 2, 3])
    async with Client(build_server(store)) as client:
        found = structured(
            await client.call_tool(
                "wait_for_comments", {"branch": "feature/x", "cursor": comments[1].received_at}
            )
        )
    assert [c["body"] for c in found["comments"]] == ["c3"]
    assert found["cursor"] == comments[2].received_at


async def test_a_store_that_cannot_set_a_status_says_where_to_resolve() -> None:
    async with Client(build_server(AppendOnlyStore(FakeClock()))) as client:
        message = error_text(await client.call_tool("resolve_comment", {"id": "x", "sha": "abc"}))
    assert "The memory store cannot change a status; resolve the comment where it lives." in message


def gate_setup(
    gate: InMemoryGatePublisher, *, require_approval: bool = False, log: ServerLog | None = None
) -> tuple[InMemoryCommentStore, Any]:
    store = InMemoryCommentStore(FakeClock(), heads={BRANCH: HEAD})
    log = log or ServerLog("maple-mcp")
    rules = GateRules(require_approval=require_approval)
    server = build_server(store, target=GateTarget(log, gate, rules), log=log)
    return store, server


async def test_resolving_one_of_two_publishes_blocked_then_clear() -> None:
    gate = InMemoryGatePublisher()
    store, server = gate_setup(gate)
    first, second = seed(store, [1, 2], BRANCH)
    async with Client(server) as client:
        await client.call_tool("resolve_comment", {"id": first.id, "sha": HEAD})
        verdict = gate.read(BRANCH, HEAD)
        assert verdict is not None
        assert (verdict.conclusion, verdict.reason, verdict.open) == ("blocked", "comments-open", 1)
        await client.call_tool("resolve_comment", {"id": second.id, "sha": HEAD})
    verdict = gate.read(BRANCH, HEAD)
    assert verdict is not None
    assert (verdict.conclusion, verdict.reason) == ("clear", "all-resolved")


async def test_required_approval_holds_the_gate_after_the_last_resolve() -> None:
    gate = InMemoryGatePublisher()
    store, server = gate_setup(gate, require_approval=True)
    [only] = seed(store, [1], BRANCH)
    async with Client(server) as client:
        await client.call_tool("resolve_comment", {"id": only.id, "sha": HEAD})
    verdict = gate.read(BRANCH, HEAD)
    assert verdict is not None
    assert (verdict.conclusion, verdict.reason) == ("blocked", "awaiting-approval")


async def test_without_a_gate_a_resolve_only_resolves() -> None:
    store = InMemoryCommentStore(FakeClock(), heads={BRANCH: HEAD})
    [only] = seed(store, [1], BRANCH)
    async with Client(build_server(store)) as client:
        resolved = structured(
            await client.call_tool("resolve_comment", {"id": only.id, "sha": HEAD})
        )
    assert resolved["status"] == "resolved"


async def test_a_failing_gate_never_fails_the_resolve_and_never_logs_the_token() -> None:
    sink = io.StringIO()
    log = ServerLog("maple-mcp", secrets=[TOKEN], stream=sink)
    store, server = gate_setup(BrokenGate(), log=log)
    [only] = seed(store, [1], BRANCH)
    async with Client(server) as client:
        resolved = structured(
            await client.call_tool("resolve_comment", {"id": only.id, "sha": HEAD})
        )
    assert resolved["status"] == "resolved"
    lines = sink.getvalue().splitlines()
    assert len(lines) == 1
    assert " error " in lines[0]
    assert "could not publish the merge gate" in lines[0]
    assert '"service": "maple-mcp"' in lines[0]
    assert "GitHub 401" in lines[0]
    assert TOKEN not in sink.getvalue()


async def test_a_store_without_a_head_publishes_nothing_and_says_so() -> None:
    sink = io.StringIO()
    gate = InMemoryGatePublisher()
    store = InMemoryCommentStore(FakeClock())
    [only] = seed(store, [1], BRANCH)
    log = ServerLog("maple-mcp", stream=sink)
    server = build_server(store, target=GateTarget(log, gate), log=log)
    async with Client(server) as client:
        await client.call_tool("resolve_comment", {"id": only.id, "sha": HEAD})
    assert gate.read(BRANCH, HEAD) is None
    assert "cannot name a head commit, so no gate was published" in sink.getvalue()


JSON_ANY = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
TOOLS = ["list_comments", "wait_for_comments", "resolve_comment", "get_comment_context"]
KEYS = ["branch", "statuses", "cursor", "timeoutMs", "id", "sha", "note", "extra"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool=st.sampled_from(TOOLS),
    arguments=st.dictionaries(
        st.sampled_from(KEYS),
        JSON_ANY | st.text(min_size=2000, max_size=3000) | st.just("feature/x"),
        max_size=5,
    ),
)
def test_any_arguments_give_a_result_or_a_clear_error_and_the_server_keeps_serving(
    tool: str, arguments: dict[str, Any]
) -> None:
    import anyio

    if tool == "wait_for_comments":
        arguments = {**arguments, "timeoutMs": 1}

    async def scenario() -> None:
        store = InMemoryCommentStore(FakeClock())
        seed(store, [1])
        async with Client(build_server(store)) as client:
            with anyio.fail_after(EVENT_S):  # a busy machine is slow, not broken
                result = await client.call_tool(tool, arguments)
            if result.is_error:
                text = error_text(result)
                assert text.startswith(f"Error executing tool {tool}: ")
                assert len(text) > len(f"Error executing tool {tool}: ") + 5
            else:
                structured(result)
            assert (
                len(structured(await client.call_tool("list_comments", {"branch": "feature/x"})))
                == 1
            )

    anyio.run(scenario)


class CountingStore(InMemoryCommentStore):
    """A memory store that counts how often it is read (a listing or a whole branch's state)."""

    def __init__(self) -> None:
        super().__init__(FakeClock())
        self.lists = 0

    def list(self, query: ListQuery) -> CommentPage:
        self.lists += 1
        return super().list(query)

    def state(self, branch: str) -> BranchState:
        self.lists += 1
        return super().state(branch)


async def test_an_idle_wait_reads_the_store_only_when_it_changes() -> None:
    store = CountingStore()
    async with Client(build_server(store)) as client:
        result = await client.call_tool(
            "wait_for_comments",
            {"branch": "b", "cursor": "2999-01-01T00:00:00Z", "timeoutMs": 2000},
        )
    assert structured(result)["status"] == "timeout"
    assert store.lists == 1


async def test_a_cancelled_wait_stops_reading_the_store() -> None:
    import anyio

    store = CountingStore()
    async with Client(build_server(store)) as client:
        with anyio.move_on_after(0.3):
            await client.call_tool(
                "wait_for_comments",
                {"branch": "b", "cursor": "2999-01-01T00:00:00Z", "timeoutMs": 55000},
            )
        await anyio.sleep(0.5)
        after_cancel = store.lists
        seed(store, [1], "b")  # a change the cancelled wait would wake for
        await anyio.sleep(0.5)
        assert store.lists == after_cancel


async def test_an_empty_cursor_drains_as_maple_does() -> None:
    store = InMemoryCommentStore(FakeClock())
    seed(store, [1, 2])
    async with Client(build_server(store)) as client:
        found = structured(
            await client.call_tool("wait_for_comments", {"branch": "feature/x", "cursor": ""})
        )
    assert len(found["comments"]) == 2


async def test_half_an_emoji_never_breaks_the_wire() -> None:
    store = InMemoryCommentStore(FakeClock())
    store.append(NewComment(branch="b", body="half \ud83d emoji"))
    async with Client(build_server(store)) as client:
        [comment] = structured(await client.call_tool("list_comments", {"branch": "b"}))
        assert comment["body"] == "half \ufffd emoji"
        assert structured(await client.call_tool("list_comments", {"branch": "b"}))
