"""What a change is reported to, and what a report says: the values of "after a change"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from maple_core.gate import GateReport
from maple_core.gate_ports import GatePublisher, GateRefresher
from maple_core.gate_rules import DEFAULT_RULES, GateRules
from maple_core.json_types import JsonObject

__all__ = ["Fix", "GateLog", "GateTarget", "NotPublished", "PublishOutcome", "Published"]


class GateLog(Protocol):
    """Where a report records what did not happen (a server's log)."""

    def warn(self, message: str, **fields: str) -> None:
        """Record something that did not happen as hoped."""
        ...

    def error(self, message: str, error: BaseException | None = None, **fields: str) -> None:
        """Record a failure and the error behind it."""
        ...


@dataclass(frozen=True, slots=True)
class GateTarget:
    """What a change is reported to: the one "after a change" target of every entrypoint.

    ``gate`` is the publisher the verdict is published with (``MAPLE_GATE_TOKEN``, the route's
    App), or the route asked to publish it (``MAPLE_URL``), or ``None`` for no gate; ``rules``
    are what it decides by; ``log`` records what failed, since a report never fails the change.
    """

    log: GateLog
    gate: GatePublisher | GateRefresher | None = None
    rules: GateRules = DEFAULT_RULES


@dataclass(frozen=True, slots=True)
class Published:
    """:func:`publish_gate` published ``report``."""

    report: GateReport


@dataclass(frozen=True, slots=True)
class NotPublished:
    """:func:`publish_gate` published nothing, and ``reason`` says why."""

    reason: str


PublishOutcome = Published | NotPublished
"""What :func:`publish_gate` did."""


@dataclass(frozen=True, slots=True)
class Fix:
    """What a comment is resolved with: the commit that addressed it, a note, who says so.

    ``by`` is the agent's signature, when an agent resolves it: its agent, model and session
    (:meth:`~maple_core.claims.Claimant.signature`).
    """

    sha: str
    note: str | None = None
    author: JsonObject | None = None
    by: JsonObject | None = None
