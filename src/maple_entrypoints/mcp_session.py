"""A ``maple-mcp`` session: who claims, which claims it holds, and what it has been shown.

One MCP connection is one session; over stdio that is one ``maple-mcp`` process. Its id is
``MAPLE_SESSION`` when set (``maple watch`` sets it for the agent it wakes, so the agent's claims
are the watch's), else a new ``ms-<hex>`` for the process. Its agent is the name the client
gives in its ``initialize`` (``claude-code``, ``codex-mcp-client``…), made inert and bounded;
its model is what the agent says it is when it claims, replies or resolves.

The session's activity renews its claims: every tool call, and a wait while it waits, renews
those past half their lease (one write per branch). When the session ends cleanly (the client
closes stdin, or SIGTERM) it releases them; killed outright, its claims lapse at their expiry.
A session that took its id from ``MAPLE_SESSION`` leaves the release to the session that owns
the id.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from maple_core.claim_views import (
    claimed_by_others,
    next_lapse,
    ready_comments,
)
from maple_core.claiming import sweep_session, visible_to
from maple_core.claims import (
    DEFAULT_LEASE_S,
    Claim,
    Claimant,
    ClaimRequest,
    check_session_id,
)
from maple_core.comments import Comment
from maple_core.cursor import FreshComments, select_fresh
from maple_core.errors import InvalidInputError, MapleError
from maple_core.json_types import JsonObject
from maple_core.ports import Clock, CommentStore
from maple_entrypoints.settings import SessionSettings

__all__ = [
    "ClaimSession",
    "Registry",
    "SessionIdentity",
    "SessionNote",
    "UNNAMED_CLIENT",
    "new_session_id",
]

UNNAMED_CLIENT = "an unnamed MCP client"
"""The agent's name when its client gives none."""


def new_session_id(prefix: str = "ms") -> str:
    """A fresh session id: ``<prefix>-`` and 12 hex digits."""
    return f"{prefix}-{secrets.token_hex(6)}"


@dataclass(frozen=True, slots=True)
class SessionIdentity:
    """Who a ``maple-mcp`` session is, and what it reads about itself.

    Its id is ``MAPLE_SESSION``'s, checked, when ``maple watch`` handed it one; else a fresh one.
    """

    session_id: str
    inherited: bool
    settings: SessionSettings

    @classmethod
    def load(cls) -> SessionIdentity:
        """The identity the environment names.

        Raises:
            InvalidInputError: ``MAPLE_SESSION`` is not a plain session id.
        """
        settings = SessionSettings.load()
        given = settings.session
        session_id = check_session_id(given) if given else new_session_id()
        return cls(session_id, given is not None, settings)


class ClaimSession:
    """The claims of one session over one store (see the module docstring).

    Args:
        store: the store the session claims on.
        clock: ``now`` for every claim decision.
        session_id: the session's id (checked).
        inherited: the id came from ``MAPLE_SESSION``: another session owns and releases it.
        report: where a renewal or release that failed is told (a server's log).
        lease_s: the lease each claim takes, unless the agent asks for another.
    """

    def __init__(
        self,
        store: CommentStore,
        clock: Clock,
        session_id: str,
        *,
        inherited: bool = False,
        report: Callable[[str], None] = lambda message: None,
        lease_s: float = DEFAULT_LEASE_S,
    ) -> None:
        self.store = store
        self.clock = clock
        self.id = check_session_id(session_id)
        self.inherited = inherited
        self.agent = UNNAMED_CLIENT
        self.model: str | None = None
        self.lease_s = lease_s
        self._report = report
        self._lock = threading.Lock()
        self._branches: dict[str, float] = {}  # branch -> monotonic time of the last renewal
        self._withheld: dict[str, set[str]] = {}  # branch -> comments shown as others'

    # -- who claims ---------------------------------------------------------------------------

    def learn_agent(self, name: str | None) -> None:
        """The client named itself ``name`` (once known, it stays)."""
        if name and self.agent == UNNAMED_CLIENT:
            with contextlib.suppress(InvalidInputError):
                self.agent = Claimant.of(name, self.id).agent

    def declare_model(self, model: str | None) -> None:
        """The agent says which model it is; a name that cannot be shown is refused.

        Raises:
            InvalidInputError: the name is empty once made inert.
        """
        if model:
            self.model = Claimant.of(self.agent, self.id, model).model

    def claimant(self) -> Claimant:
        """The session as it claims: its agent, id and model."""
        return Claimant(self.agent, self.id, self.model)

    def signature(self) -> JsonObject:
        """What a reply or a resolution records of the session."""
        return self.claimant().signature()

    # -- claims held --------------------------------------------------------------------------

    def holds_on(self, branch: str) -> None:
        """The session claimed something on ``branch``: renew it there, release it at the end."""
        with self._lock:
            self._branches.setdefault(branch, self.clock.monotonic())

    def branches(self) -> list[str]:
        """The branches the session claimed on."""
        with self._lock:
            return sorted(self._branches)

    def renewal_due(self) -> bool:
        """Whether :meth:`renew_due` has a branch to renew now: a quick look, no I/O.

        A hundred waits woken at once then ask this on the event loop instead of each taking a
        worker thread to find nothing due.
        """
        now = self.clock.monotonic()
        with self._lock:
            return any(now - at >= self.lease_s / 3 for at in self._branches.values())

    def renew_due(self) -> None:
        """Renew the session's claims on each branch not renewed for a third of a lease.

        Blocking (run it on a worker thread); a failure is reported, never raised: a claim that
        was not renewed lapses, which only lets another session take it.
        """
        now = self.clock.monotonic()
        with self._lock:
            due = [b for b, at in self._branches.items() if now - at >= self.lease_s / 3]
            for branch in due:
                self._branches[branch] = now
        for branch in due:
            self._sweep(branch, ClaimRequest.claim(self.claimant(), self.lease_s), "renewed")

    def end(self) -> None:
        """Release every claim the session holds (not when another session owns the id)."""
        if self.inherited:
            return
        for branch in self.branches():
            self._sweep(branch, ClaimRequest.release(self.claimant()), "released")
        with self._lock:
            self._branches.clear()

    def _sweep(self, branch: str, request: ClaimRequest, done: str) -> None:
        try:
            sweep_session(self.store, branch, request)
        except MapleError as exc:
            self._report(
                f"The claims of session {self.id} on {branch} could not be {done} ({exc}); "
                "they lapse at their expiry."
            )

    # -- what the session is shown ------------------------------------------------------------

    def shown(
        self, comments: Sequence[Comment], branch: str, now: datetime
    ) -> tuple[list[Comment], dict[str, Claim]]:
        """``comments`` as the session sees them (unclaimed first) and the others' claims.

        Comments shown as another's are remembered, so the session's next wait is woken when
        their claim lapses.
        """
        ordered, claimed = visible_to(comments, self.id, now)
        with self._lock:
            withheld = self._withheld.setdefault(branch, set())
            withheld.difference_update(c.id for c in comments if c.id not in claimed)
            withheld.update(claimed)
        return ordered, claimed

    def pick(
        self, comments: Sequence[Comment], branch: str, cursor: str | None, now: datetime
    ) -> tuple[FreshComments, float | None]:
        """A wait's choice: what is ready for this session, and when to look again.

        See :func:`~maple_core.claim_views.ready_comments`; the second value is the seconds until
        another session's claim on the branch lapses (when the answer can change unwritten).
        """
        with self._lock:
            withheld = set(self._withheld.get(branch, ()))
        found = ready_comments(
            select_fresh(comments, cursor), comments, self.id, now, withheld, cursor
        )
        return found, next_lapse(claimed_by_others(comments, self.id, now), now)


class Registry(Protocol):
    """Where this machine's sessions say who they are (``maple_adapters.sessions``)."""

    def write(self, entry: JsonObject) -> None:
        """Record ``entry``."""
        ...

    def forget(self, session: str) -> None:
        """Remove the session's entry."""
        ...


@dataclass(slots=True, eq=False)
class SessionNote:
    """The session's entry on this machine, for the Stop hook and ``maple agents status``.

    It names the session, its agent and model, this process and its client's (the Stop hook's
    own ancestors include its client), the client's own session id when it gives one, and the
    folder served. A session that took its id from ``MAPLE_SESSION`` writes none: the session
    owning the id (``maple watch``) wrote its own.

    Attributes:
        registry: where the entry is written.
        session: the session it names.
        conversation: the client's own session id, if it gave one.
        cwd: the folder served.
    """

    registry: Registry
    session: ClaimSession
    conversation: str | None
    cwd: Path
    _started: str = field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"), init=False
    )

    def entry(self) -> JsonObject:
        """The entry as written now."""
        session = self.session
        out: JsonObject = {
            "session": session.id,
            "kind": "maple-mcp",
            "agent": session.agent,
            "pid": os.getpid(),
            "client": os.getppid(),
            "cwd": str(self.cwd),
            "started": self._started,
        }
        if session.model:
            out["model"] = session.model
        if self.conversation:
            out["conversation"] = self.conversation[:128]
        return out

    def write(self) -> None:
        """Write (or rewrite) the entry; a failure only costs the Stop hook its certainty."""
        if self.session.inherited:
            return
        with contextlib.suppress(OSError):
            self.registry.write(self.entry())

    def agent_known(self, agent: str) -> None:
        """The client named itself: rewrite the entry with its name."""
        self.write()

    def forget(self) -> None:
        """The session ended: remove its entry."""
        if not self.session.inherited:
            self.registry.forget(self.session.id)
