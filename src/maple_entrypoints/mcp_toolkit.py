"""What ``maple-mcp``'s tools share: the loop's parts, their hints, what the server keeps."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations

from maple_adapters.log import ServerLog
from maple_core.gate_ports import Commits
from maple_core.ports import Clock, CommentStore
from maple_core.reporting import report_to_gate
from maple_core.storage_ports import MediaStore
from maple_core.targets import GateTarget
from maple_entrypoints.mcp_session import ClaimSession
from maple_entrypoints.mcp_watches import Watches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.solo_bridges import SoloBridges

__all__ = ["ADDER", "ClientNote", "READER", "SETTER", "Toolkit"]

READER = ToolAnnotations(read_only_hint=True, open_world_hint=False)
"""A tool that only reads."""
SETTER = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""A tool that changes local state, the same way however often it is called."""
ADDER = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
"""A tool that adds something each time it is called."""

ClientNote = Callable[[str, str, str, bool], None]
"""Told a client's name, version, protocol and whether it waits as a task (it can wake)."""


@dataclass(eq=False)
class Toolkit:
    """What the tools work with: the agent loop's parts, and what the server keeps between calls.

    Attributes:
        store: where comments live.
        target: what a resolve or a reply is reported to.
        clock: stamps resolutions.
        log: where a stored record maple cannot fully read is reported (once).
        media: where a comment's images are read from, if anywhere.
        commits: the checkout a resolution's sha must be reachable in, if any.
        solo: pairs previews with bridges (``start_solo``), if available.
        on_client: told how each client waits, once per client and way.
        claims: the server's session: its claims and what it has been shown
            (:mod:`~maple_entrypoints.mcp_session`).
        on_agent: told the client's name once the session learns it (its note on this machine).
        watches: the branches' change signals, shared by every wait.
    """

    store: CommentStore
    target: GateTarget
    clock: Clock
    log: ServerLog
    claims: ClaimSession
    media: MediaStore | None = None
    commits: Commits | None = None
    solo: SoloBridges | None = None
    on_client: ClientNote | None = None
    on_agent: Callable[[str], None] | None = None
    watches: Watches = field(init=False)
    _reported: set[str] = field(default_factory=set, init=False)
    _noted: set[tuple[str, bool]] = field(default_factory=set, init=False)

    def __post_init__(self) -> None:
        self.watches = Watches(self.store)

    def touched(self, ctx: Context | None) -> None:
        """A tool was called (blocking): learn the client's name, renew the claims due."""
        claims = self.claims
        if ctx is not None:
            known = claims.agent
            claims.learn_agent(_client_name(ctx))
            if self.on_agent is not None and claims.agent != known:
                with contextlib.suppress(Exception):  # a note for others never fails a tool
                    self.on_agent(claims.agent)
        claims.renew_due()

    async def active(self, ctx: Context | None) -> None:
        """As :meth:`touched`, from an ``async`` tool."""
        await anyio.to_thread.run_sync(self.touched, ctx)

    def gate_after(self, branch: str) -> None:
        """A claim changed: report it, as the gate's summary says who is on each comment."""
        report_to_gate(self.store, branch, self.target, self.clock.now())

    def report(self, problem: str) -> None:
        """Log a stored record maple cannot fully read, once per server."""
        if problem not in self._reported:
            self._reported.add(problem)
            self.log.warn(problem)

    async def note_client(self, ctx: Context, tasks: bool) -> None:
        """Tell :attr:`on_client` how this client waits, once per client and way.

        ``tasks``: the client runs the wait as an MCP task. A failure is ignored.
        """
        if self.on_client is None:
            return
        try:
            session = ctx.session
            params = session.client_params
            info = params.client_info if params is not None else None
            name = info.name if info is not None else "an unnamed client"
            version = info.version if info is not None else ""
            protocol = str(session.protocol_version or "")
        except (AttributeError, ValueError):
            return
        if (name, tasks) in self._noted:
            return
        self._noted.add((name, tasks))
        with contextlib.suppress(Exception):  # a note for maple doctor never fails a wait
            await anyio.to_thread.run_sync(self.on_client, name, version, protocol, tasks)


def _client_name(ctx: Context) -> str | None:
    """The name the client gave in its ``initialize``, if it gave one."""
    try:
        params = ctx.session.client_params
        info = params.client_info if params is not None else None
    except (AttributeError, ValueError):
        return None
    return info.name if info is not None else None
