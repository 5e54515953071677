"""``maple watch``: wake a Codex thread or a Claude Code session when reviewers comment.

It waits for comments on the branch (as ``maple comments wait --follow`` does) and hands each
batch to the agent as a new turn of one thread: the one ``--session`` names, or one it starts on
the first batch. Turns never overlap: comments that arrive during a turn wait in the store and go
together as the next turn. A turn that fails is shown and its comments are kept: they go again,
with whatever came since, when the next comment arrives. Ctrl-C or SIGTERM ends the running turn
and every process the agent started.

The watch is a session of its own (``mw-<hex>``, noted on this machine for the Stop hook and
``maple agents status``): it claims each batch before the turn (a comment another live session
claimed is never handed over; it goes in a later batch once that claim lapses), its agent's
``maple-mcp`` claims as the same session (``MAPLE_SESSION``), the claims are renewed while the
turn runs and released when it ends.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from maple_core.agent_ports import AgentProvider, AgentSession
from maple_core.agents import AgentRun, AgentState
from maple_core.claiming import keeps_claims
from maple_core.claims import ClaimOutcome, ClaimRequest
from maple_core.comments import Comment
from maple_core.cursor import FreshComments, parse_cursor, select_fresh
from maple_core.errors import ConfigurationError, MapleError
from maple_core.inert_text import inert_field
from maple_core.json_types import JsonObject
from maple_core.listing import list_all
from maple_core.ports import CommentClaims, CommentStore
from maple_core.statuses import CommentStatus
from maple_core.text import one_line
from maple_core.waiting import wait_for_comments
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    BranchOption,
    branch_of,
    fail,
    local_here,
    loop_here,
)
from maple_entrypoints.cli.output import terminal_text, warn
from maple_entrypoints.cli.watch_prompt import watch_prompt
from maple_entrypoints.mcp_session import ClaimSession, Registry, new_session_id

__all__ = [
    "MAX_FAILED_TURNS",
    "NO_ONE_TO_ASK",
    "Watcher",
    "watch",
]

WAIT_MS = 30_000
"""How long one wait on the store lasts before the next (the loop never ends by itself)."""
MAX_FAILED_TURNS = 3
"""Turns a batch may fail in a row before it is set aside (named on stderr) so later comments
still reach the agent."""

_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")
_RETRY_S = (1.0, 2.0, 5.0, 10.0, 30.0)

NO_ONE_TO_ASK = (
    "Nobody is at maple watch's terminal to answer questions. Decide for yourself, or ask the "
    "reviewer with reply_to_comment (question: true) and go on with the other comments."
)
"""The answer a question the agent asks during a watched turn gets."""


class AgentName(StrEnum):
    """The agents ``maple watch`` can wake."""

    CODEX = "codex"
    CLAUDE = "claude"


def _worth_sending(found: FreshComments, cursor: str | None) -> tuple[Comment, ...]:
    """The comments a batch hands over: on the first look, only those not resolved yet."""
    if cursor is not None:
        return found.comments
    return tuple(c for c in found.comments if c.status is not CommentStatus.RESOLVED)


@dataclass(slots=True, eq=False)
class Watcher:
    """One agent thread, given one turn per batch; turns run one at a time.

    Attributes:
        provider: the agent's provider.
        agent: its name (``codex`` or ``claude``), for the turn lines.
        cwd: the agent's working folder.
        thread_id: the thread (Codex) or session (Claude Code) to resume; ``None`` starts one on
            the first batch.
        kill_all: ends every process the agents started, when the watcher stops.
        tick: called every moment a turn runs (the batch's claims renewed).
        session: the agent's session, once the first turn started it.
    """

    provider: AgentProvider
    agent: str
    cwd: str
    thread_id: str | None = None
    kill_all: Callable[[], None] = lambda: None
    tick: Callable[[], None] | None = None
    session: AgentSession | None = field(default=None, init=False)
    _agent_id: str = field(init=False)

    def __post_init__(self) -> None:
        self._agent_id = f"{self.agent}-{os.getpid()}"

    def turn(self, prompt: str) -> AgentRun:
        """Run one turn on ``prompt`` to its end; questions get :data:`NO_ONE_TO_ASK`."""
        try:
            if self.session is None:
                if self.thread_id:
                    self.session = self.provider.resume(
                        self._agent_id, self.thread_id, prompt, self.cwd
                    )
                else:
                    self.session = self.provider.start(self._agent_id, prompt, self.cwd)
            else:
                self.session.send(prompt)
        except MapleError as exc:
            return AgentRun(
                self.agent, self._agent_id, self.thread_id, AgentState.FAILED, error=str(exc)
            )
        while True:
            run = self.session.wait(0.2)
            if self.tick is not None:
                self.tick()
            if run.state is AgentState.WAITING:
                self.session.send(NO_ONE_TO_ASK)
                continue
            if run.state is not AgentState.RUNNING:
                break
        if run.thread_id:
            self.thread_id = run.thread_id
        return run

    def stop(self) -> None:
        """End the running turn, if any, and every process the agent started."""
        session, self.session = self.session, None
        try:
            if session is not None:
                if session.snapshot().state in (AgentState.RUNNING, AgentState.WAITING):
                    session.cancel()
                session.close()
        finally:
            self.kill_all()


def turn_line(agent: str, thread_id: str | None, count: int, run: AgentRun) -> str:
    """The one line a turn prints: time, agent, thread, how many comments, and how it ended."""
    if run.state is AgentState.IDLE:
        outcome = "done"
    elif run.state is AgentState.FAILED:
        why = one_line(terminal_text(run.error or "the turn failed"))[:200]
        outcome = f"failed: {why} (the comments go again with the next one)"
    else:
        outcome = run.state.value
    when = datetime.now().astimezone().strftime("%H:%M:%S")
    return f"{when}  {agent}  {thread_id or '-'}  {count} comment(s)  {outcome}"


class _StopRequestedError(Exception):
    """SIGTERM or SIGINT arrived."""


def _raise_stopped(*_: Any) -> None:
    raise _StopRequestedError


def _later(a: str | None, b: str) -> str:
    """The later of two cursors."""
    return b if a is None or parse_cursor(b) >= parse_cursor(a) else a


def _taken(claims: ClaimSession, batch: Sequence[Comment]) -> tuple[Comment, ...]:
    """The comments of ``batch`` the watch's session holds now: each one claimed for the turn.

    A comment another live session holds (found so, or refused) is left out; it comes back in a
    later batch once that claim lapses or is released. One write claims them all.
    """
    store = claims.store
    if not batch or not keeps_claims(store) or not isinstance(store, CommentClaims):
        return tuple(batch)
    branch = batch[0].branch
    ordered, others = claims.shown(batch, branch, claims.clock.now())
    wanted = [c.id for c in ordered if c.id not in others]
    request = ClaimRequest.claim(claims.claimant(), claims.lease_s)
    results = store.claim_many(wanted, request)
    refused = [r.comment for r in results if r.outcome is ClaimOutcome.HELD]
    claims.shown(refused, branch, claims.clock.now())  # remembered: a lapse brings them back
    granted = {r.comment.id for r in results if r.decision.granted}
    if granted:
        claims.holds_on(branch)
    return tuple(c for c in ordered if c.id in granted)


def _pick(
    claims: ClaimSession, branch: str, cursor: str | None, comments: Sequence[Comment]
) -> tuple[FreshComments, float | None]:
    """A wait's choice for the watch's session (see :meth:`ClaimSession.pick`)."""
    return claims.pick(comments, branch, cursor, claims.clock.now())


def _loop(watcher: Watcher, store: CommentStore, branch: str, claims: ClaimSession) -> None:
    sent: str | None = None  # every comment up to here reached the agent
    seen: str | None = None  # every comment up to here was read (a failed batch lies between)
    failed = 0  # turns the unsent batch has failed in a row
    errors = 0
    clock = claims.clock
    while True:
        try:
            found = wait_for_comments(
                store,
                branch,
                seen,
                WAIT_MS,
                clock,
                report=warn,
                pick=functools.partial(_pick, claims, branch, seen),
            )
            if found.comments and failed:  # the unsent batch goes again, with everything since
                found = select_fresh(list_all(store, branch, report=warn), sent)
        except ConfigurationError:
            raise
        except MapleError as exc:  # a store that fails now and then does not end the watch
            delay = _RETRY_S[min(errors, len(_RETRY_S) - 1)]
            errors += 1
            sys.stderr.write(
                f"maple: the store failed ({one_line(str(exc))}); trying again in {delay:g} s\n"
            )
            time.sleep(delay)
            continue
        errors = 0
        seen = _later(seen, found.cursor)
        if not found.comments:
            if not failed:
                sent = seen  # nothing came that the agent has not had
            continue
        batch = _taken(claims, _worth_sending(found, sent))
        if not batch:
            sent = found.cursor
            continue
        try:
            run = watcher.turn(watch_prompt(batch, branch, sent))
        finally:
            claims.end()  # the turn is over: its comments are everyone's again
        print(turn_line(watcher.agent, watcher.thread_id, len(batch), run), flush=True)
        failed = failed + 1 if run.state is not AgentState.IDLE else 0
        if failed >= MAX_FAILED_TURNS:  # one bad comment must not hold back every later one
            ids = ", ".join(inert_field(c.id, 64) for c in batch)
            sys.stderr.write(
                f"maple: {len(batch)} comment(s) failed {failed} turns in a row and are set "
                f"aside: {ids}; the next comments go without them (see them with maple "
                "comments list).\n"
            )
            failed = 0
        if not failed:
            sent = found.cursor


def watch(
    agent: Annotated[
        AgentName, typer.Option("--agent", help="codex or claude.", case_sensitive=False)
    ],
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            help="The Codex thread or Claude Code session to resume; default: start one on the "
            "first batch.",
        ),
    ] = None,
    branch: BranchOption = None,
    approve_all: Annotated[
        bool,
        typer.Option(
            "--approve-all",
            help="Say yes to every permission request the agent makes. Off by default: the "
            "turns run unattended on reviewers' words, so only what the client's own settings "
            "allow may run.",
        ),
    ] = False,
) -> None:
    """Wake an agent when reviewers comment: each batch of comments is one turn of its thread.

    Prints one line per turn (time, agent, thread, comments, outcome). A failed turn is shown
    and its comments go again with the next comment. Runs until Ctrl-C or SIGTERM, which end
    the agent's processes too; exit 0. Nobody watches these turns, so every permission request
    is refused unless --approve-all: allow what the agent needs in the client's own settings
    (Claude Code's permissions.allow, Codex's approval policy and sandbox).
    """
    if approve_all and local_here(Path.cwd()).agents.unattended:
        raise fail(
            "--approve-all cannot be used here: MAPLE_UNATTENDED says this runs in a turn nobody "
            "watches, which cannot approve more for the agents it starts than it has itself.",
            EXIT_CONFIG,
        )
    if session is not None and not _SESSION_ID.fullmatch(session):
        raise fail(
            f"{one_line(session)[:80]!r} is not a thread or session id; pass the id Codex or "
            "Claude Code shows (letters, digits, '-', '_', '.', ':').",
            EXIT_CONFIG,
        )
    if shutil.which(agent.value) is None:
        raise fail(
            f"`{agent.value}` is not found on PATH; install it and sign in "
            "(`maple agents providers` says how).",
            EXIT_CONFIG,
        )
    cwd = Path.cwd()
    loop = loop_here(cwd)
    name = branch_of(branch, cwd)
    agents = loop.local.agents
    claims = ClaimSession(loop.store, loop.clock, new_session_id("mw"), report=warn)
    claims.learn_agent(f"{agent.value} (maple watch)")
    try:
        provider = agents.provider(
            agent.value, approve=approve_all, unattended=True, session=claims.id
        )
    except MapleError as exc:
        raise fail(str(exc), EXIT_CONFIG) from None
    registry = loop.local.sessions
    _note_watch(registry, claims, cwd)
    watcher = Watcher(
        provider,
        agent.value,
        str(cwd.resolve()),
        session,
        kill_all=agents.kill_all,
        tick=claims.renew_due,
    )
    previous = {sig: signal.signal(sig, _raise_stopped) for sig in (signal.SIGTERM, signal.SIGINT)}
    sys.stderr.write(
        f"maple: watching {terminal_text(one_line(name))} for comments; each batch wakes "
        f"{agent.value}{' session ' + session if session else ''} (Ctrl-C stops).\n"
    )
    sys.stderr.flush()
    try:
        _loop(watcher, loop.store, name, claims)
    except (_StopRequestedError, KeyboardInterrupt):
        pass
    finally:
        for sig in previous:  # a second signal must not cut the clean-up short
            signal.signal(sig, signal.SIG_IGN)
        try:
            watcher.stop()
        finally:
            claims.end()
            registry.forget(claims.id)
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _note_watch(registry: Registry, claims: ClaimSession, cwd: Path) -> None:
    """Note the watch's session on this machine.

    The Stop hook of its agent (which runs under this process) then knows the batch's claims as
    its own, and ``maple agents status`` lists it.
    """
    entry: JsonObject = {
        "session": claims.id,
        "kind": "maple watch",
        "agent": claims.agent,
        "pid": os.getpid(),
        "client": os.getpid(),
        "cwd": str(cwd),
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    with contextlib.suppress(OSError):
        registry.write(entry)
