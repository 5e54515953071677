"""The gate's ports: the commits a resolution names, the check run, its refresh, push access.

A resolution's sha is checked against the commits (:class:`Commits`); after a change the gate is
published as a check run (:class:`GatePublisher`) or a route is asked to refresh it
(:class:`GateRefresher`); who may ask is whoever can push (:class:`PushAccess`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol, runtime_checkable

from maple_core.gate import GateReport, GateVerdict

__all__ = [
    "CommitCheck",
    "Commits",
    "GatePublisher",
    "GateRefresher",
    "PushAccess",
    "PushAnswer",
]


class CommitCheck(StrEnum):
    """What a checkout says of a commit a resolution names."""

    REACHABLE = "reachable"
    UNREACHABLE = "unreachable"
    UNKNOWN = "unknown"
    NO_CHECKOUT = "no-checkout"


class Commits(Protocol):
    """The git checkout the agent works in, asked about the commits it claims."""

    def check(self, sha: str) -> tuple[CommitCheck, str | None]:
        """Whether ``sha`` names a commit reachable from HEAD, and that commit's full sha."""
        ...

    def head(self) -> str | None:
        """The checkout's HEAD commit, or ``None`` outside a checkout."""
        ...


class GatePublisher(Protocol):
    """Shows the gate's verdict where the merge is decided (a GitHub check run, a route)."""

    @property
    def name(self) -> str:
        """A stable lowercase id such as ``memory``."""
        ...

    def publish(self, report: GateReport) -> None:
        """Show ``report``'s verdict on its commit, replacing what was shown before."""
        ...

    def read(self, branch: str, sha: str) -> GateVerdict | None:
        """The verdict last shown on ``sha``, or ``None`` when there is none."""
        ...


@runtime_checkable
class GateRefresher(Protocol):
    """Asks someone else to decide and publish the gate for a branch (a deployed route)."""

    @property
    def name(self) -> str:
        """A stable lowercase id such as ``route``."""
        ...

    def refresh(self, branch: str) -> None:
        """Ask for ``branch``'s gate to be published again; raise when that was refused."""
        ...


class PushAnswer(StrEnum):
    """What the forge said about a token and the repository."""

    PUSH = "push"
    DENIED = "denied"
    BAD_TOKEN = "bad-token"


class PushAccess(Protocol):
    """Says whether a caller's token can push to the repository (the route asks it)."""

    def __call__(self, token: str) -> PushAnswer:
        """The answer for ``token``; raise when the forge answered something else."""
        ...
