"""Access tokens maple issues to agents that reach a deployed route (``maple tokens``).

A token is a random secret shown once, when it is issued; a store keeps only its SHA-256
digest (the secret is 256 random bits, so a fast hash is enough), the repository it is scoped
to, its scope, and when it expires or was revoked. A ``read`` token lists and waits; only a
``write`` token may also resolve, reply and publish the merge gate.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from maple_core.cursor import parse_stamp
from maple_core.errors import InvalidInputError

__all__ = [
    "AccessToken",
    "IssuedToken",
    "MAX_LIFETIME",
    "TOKEN_PREFIX",
    "TokenScope",
    "access_refusal",
    "parse_lifetime",
    "token_digest",
]

TOKEN_PREFIX = "maple_"
"""How every secret maple issues begins, so a scanner (or a person) can tell one on sight."""
MAX_LIFETIME = timedelta(days=366)
"""The longest a token may live: every token expires."""
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}


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


def parse_lifetime(text: str) -> timedelta:
    """How long a token lives, from ``90d``, ``12h`` or ``30m``.

    Raises:
        InvalidInputError: not a whole number and a unit, or longer than 366 days.
    """
    number, unit = text[:-1], text[-1:].lower()
    if unit not in _UNITS or not (number.isascii() and number.isdigit()) or int(number) <= 0:
        raise InvalidInputError(
            f"--expires {text!r} is not a lifetime; give a whole number and a unit: 90d (days), "
            "12h (hours) or 30m (minutes)."
        )
    lifetime = int(number) * _UNITS[unit]
    if lifetime > MAX_LIFETIME:
        raise InvalidInputError(
            f"--expires {text} is longer than a token may live ({MAX_LIFETIME.days} days); "
            "issue a shorter one and a new one when it expires."
        )
    return lifetime


def access_refusal(
    token: AccessToken | None, repository: str, needed: TokenScope, now: datetime
) -> str | None:
    """Why ``token`` may not do ``needed`` on ``repository`` at ``now``, or ``None`` when it may.

    The reasons name the fix but never the token: an unknown token reads as unknown whoever
    asks.
    """
    if token is None:
        return "The token is not one this route issued; ask for a token (maple tokens create)."
    if token.revoked_at is not None:
        return f"The token {token.id} was revoked; ask for a new one (maple tokens create)."
    expires = parse_stamp(token.expires_at)
    if expires is None or now >= expires:
        return f"The token {token.id} has expired; ask for a new one (maple tokens create)."
    if not hmac.compare_digest(token.repository, repository):
        return f"The token {token.id} is for another repository than this route's."
    if not token.scope.allows(needed):
        return (
            f"The token {token.id} may only read; resolving, replying and publishing the gate "
            "need a write token (maple tokens create --scope write)."
        )
    return None
