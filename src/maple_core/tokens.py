"""Access tokens maple issues to agents that reach a deployed route (``maple tokens``).

A token is a random secret shown once, when it is issued; a store keeps only its SHA-256
digest (the secret is 256 random bits, so a fast hash is enough), the repository it is scoped
to, its scope, and when it expires or was revoked. A ``read`` token lists and waits; only a
``write`` token may also resolve, reply and publish the merge gate. How long a token lives and
whether one presented may act are ``token_access.py``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "AccessToken",
    "IssuedToken",
    "TOKEN_PREFIX",
    "TokenScope",
    "token_digest",
]

TOKEN_PREFIX = "maple_"
"""How every secret maple issues begins, so a scanner (or a person) can tell one on sight."""


class TokenScope(StrEnum):
    """What a token may do: ``read`` lists and waits; ``write`` also resolves and replies."""

    READ = "read"
    WRITE = "write"

    def allows(self, needed: TokenScope) -> bool:
        """Whether a token of this scope may do what ``needed`` names."""
        return self is TokenScope.WRITE or needed is TokenScope.READ


@dataclass(frozen=True, slots=True)
class AccessToken:
    """A token as a store keeps it: never the secret, only what it is for.

    Attributes:
        id: the public id a person names it by (``tok_…``), in listings and revocations.
        repository: the one repository it opens (``owner/name``).
        scope: ``read`` or ``write``.
        created_at: when it was issued (ISO 8601 UTC).
        expires_at: when it stops working (ISO 8601 UTC).
        revoked_at: when it was revoked, or ``None``.
        label: what its issuer said it is for, or ``None``.
    """

    id: str
    repository: str
    scope: TokenScope
    created_at: str
    expires_at: str
    revoked_at: str | None = None
    label: str | None = None

    def to_json(self) -> dict[str, str | None]:
        """The token's public fields (``maple tokens list --json``)."""
        return {
            "id": self.id,
            "repository": self.repository,
            "scope": self.scope.value,
            "createdAt": self.created_at,
            "expiresAt": self.expires_at,
            "revokedAt": self.revoked_at,
            "label": self.label,
        }


@dataclass(frozen=True, slots=True)
class IssuedToken:
    """A token just issued: what the store keeps, and the secret, shown this once."""

    token: AccessToken
    secret: str

    def __repr__(self) -> str:
        return f"IssuedToken(token={self.token!r}, secret='…')"


def token_digest(secret: str) -> str:
    """The SHA-256 hex digest a store keeps in place of ``secret``."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()
