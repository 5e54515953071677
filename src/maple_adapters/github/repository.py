"""The repository a GitHub store works in, as its parts reach it."""

from __future__ import annotations

from dataclasses import dataclass

from maple_adapters.github.transport import GitHubTransport

__all__ = ["Repository"]


@dataclass(frozen=True, slots=True)
class Repository:
    """``owner/name`` on GitHub, reached through ``transport``.

    Attributes:
        transport: how to reach GitHub (``api`` or ``cli``), already resilient and conditional.
        owner: the repository's owner.
        name: the repository's name.
        store: the name of the store working in it, for the errors its parts raise.
    """

    transport: GitHubTransport
    owner: str
    name: str
    store: str

    @property
    def base(self) -> str:
        """The repository's path in GitHub's API: ``/repos/owner/name``."""
        return f"/repos/{self.owner}/{self.name}"
