"""The five external-agent tools, registered only when ``MAPLE_AGENTS`` names a provider."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import (
    CallToolResult,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field

from maple_adapters.log import ServerLog
from maple_core.agent_ports import AgentPool, AgentSession
from maple_core.agents import AgentRun, AgentState, render_run
from maple_entrypoints.mcp_agent_models import AgentRunModel, ProvidersModel
from maple_entrypoints.mcp_results import add_tool
from maple_entrypoints.mcp_toolkit import READER

__all__ = ["AGENT_TOOLS", "register_agent_tools"]

AGENT_TOOLS = ("list_agent_providers", "agent_start", "agent_send", "agent_status", "agent_cancel")
_PROGRESS_S = 15.0
_CHANGER = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=True)
_STOPPER = ToolAnnotations(read_only_hint=False, destructive_hint=True)

Provider = Annotated[
    Literal["codex", "claude"], Field(description="The external agent: codex or claude.")
]
AgentId = Annotated[
    str, Field(min_length=1, max_length=64, description="The agent's id, from agent_start.")
]
Background = Annotated[
    bool,
    Field(description="Return at once; the result arrives as a notification and agent_status."),
]


def _run_result(run: AgentRun) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=render_run(run))],
        structured_content=run.to_json(),
    )


async def _until_settled(session: AgentSession, ctx: Context) -> AgentRun:
    """Wait for the turn to end or ask a question, reporting progress every 15 s."""
    waited = 0.0
    while True:
        run = await anyio.to_thread.run_sync(session.wait, _PROGRESS_S, abandon_on_cancel=True)
        if run.state is not AgentState.RUNNING:
            return run
        waited += _PROGRESS_S
        await ctx.report_progress(waited, None, f"{session.agent_id} is still working")


class _AgentTools:
    """The five tools, over what they share: the pool, the log, each background turn's listener."""

    def __init__(self, pool: AgentPool, log: ServerLog) -> None:
        self.pool = pool
        self.log = log
        self.listeners: dict[str, Callable[[AgentRun], None]] = {}  # agent id -> its listener

    def dispatch(self, run: AgentRun) -> None:
        """Every agent reports here; a turn started in the background is delivered."""
        deliver = self.listeners.pop(run.agent_id, None)
        if deliver is not None:
            deliver(run)

    def notifier(self, ctx: Context) -> Callable[[AgentRun], None]:
        """What delivers a background turn's result to ``ctx``'s client, as a notification."""
        token = anyio.lowlevel.current_token()
        session = ctx.session
        log = self.log

        def deliver(run: AgentRun) -> None:
            async def send() -> None:
                # On the connection, not the request's stream: the tool call has returned.
                await session.send_notification(
                    LoggingMessageNotification(
                        params=LoggingMessageNotificationParams(
                            level="info", data=render_run(run), logger="maple.agents"
                        )
                    )
                )

            try:
                anyio.from_thread.run(send, token=token)
            except Exception as exc:
                log.warn(
                    "An agent's result could not be delivered as a notification.", error=str(exc)
                )

        return deliver

    async def list_agent_providers(self) -> Annotated[CallToolResult, ProvidersModel]:
        """List external agents.

        The external agents this server offers: installed or not, version, sign-in status, and setup
        or sign-in guidance.
        """
        infos = [
            await anyio.to_thread.run_sync(provider.detect)
            for provider in self.pool.providers.values()
        ]
        lines = [
            f"{i.provider}: {'installed ' + (i.version or '') if i.installed else 'not installed'}"
            f"; signed in: {'unknown' if i.signed_in is None else 'yes' if i.signed_in else 'no'}"
            f". {i.guidance}"
            for i in infos
        ]
        return CallToolResult(
            content=[TextContent(type="text", text="\n".join(lines))],
            structured_content={"providers": [i.to_json() for i in infos]},
        )

    async def agent_start(
        self,
        provider: Provider,
        prompt: Annotated[
            str,
            Field(min_length=1, max_length=100_000, description="The self-contained briefing."),
        ],
        ctx: Context,
        background: Background = False,
        model: Annotated[str | None, Field(max_length=128, description="Model name.")] = None,
        effort: Annotated[
            str | None, Field(max_length=32, description="Reasoning effort, such as high.")
        ] = None,
        cwd: Annotated[
            str | None,
            Field(max_length=4_096, description="Working folder, inside the project root."),
        ] = None,
    ) -> Annotated[CallToolResult, AgentRunModel]:
        """Start an external agent.

        Start an agent (codex or claude) on a self-contained briefing. Blocking by default;
        background: true returns at once. The agent's own sandbox and approval settings decide what
        it may do; this server accepts the approvals it asks for.
        """
        deliver = self.notifier(ctx)

        def start() -> AgentSession:
            return self.pool.start(
                provider, prompt, cwd=cwd, model=model, effort=effort, on_turn_end=self.dispatch
            )

        session = await anyio.to_thread.run_sync(start)
        if background:
            self.listeners[session.agent_id] = deliver
            if session.snapshot().state is not AgentState.RUNNING:  # ended before we listened
                self.dispatch(session.snapshot())
            return _run_result(session.snapshot())
        return _run_result(await _until_settled(session, ctx))

    async def agent_send(
        self,
        provider: Provider,
        agentId: AgentId,  # noqa: N803 - the tool's argument name
        message: Annotated[str, Field(min_length=1, max_length=100_000)],
        ctx: Context,
        background: Background = False,
    ) -> Annotated[CallToolResult, AgentRunModel]:
        """Instruct an external agent.

        Give a started agent more instructions in the same thread, or answer the question it asked.
        Blocking by default; background: true returns at once.
        """
        session = self.pool.get(provider, agentId)
        if background:
            self.listeners[agentId] = self.notifier(ctx)
        else:
            self.listeners.pop(agentId, None)
        await anyio.to_thread.run_sync(session.send, message)
        if background:
            return _run_result(session.snapshot())
        return _run_result(await _until_settled(session, ctx))

    async def agent_status(
        self,
        provider: Provider,
        agentId: AgentId,  # noqa: N803
    ) -> Annotated[CallToolResult, AgentRunModel]:
        """Read an external agent's status.

        An agent's status, last message, changed files and commands.
        """
        return _run_result(self.pool.get(provider, agentId).snapshot())

    async def agent_cancel(
        self,
        provider: Provider,
        agentId: AgentId,  # noqa: N803
    ) -> Annotated[CallToolResult, AgentRunModel]:
        """Stop an external agent.

        Stop an agent's current turn and its process. The thread stays on disk; the next agent_send
        resumes it in a fresh process.
        """
        session = self.pool.get(provider, agentId)
        return _run_result(await anyio.to_thread.run_sync(session.cancel))


def register_agent_tools(server: MCPServer, pool: AgentPool, log: ServerLog) -> None:
    """Add the five tools to ``server``, over the agents in ``pool``."""
    agents = _AgentTools(pool, log)
    for tool, hints in (
        (agents.list_agent_providers, READER),
        (agents.agent_start, _CHANGER),
        (agents.agent_send, _CHANGER),
        (agents.agent_status, READER),
        (agents.agent_cancel, _STOPPER),
    ):
        add_tool(server, tool, hints)
