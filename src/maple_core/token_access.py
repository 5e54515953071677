"""When an access token may act: how long one lives, and why one presented may not do something.

What a token is (its scope, what a store keeps, the digest) is ``tokens.py``; this is the rule a
deployed route applies to a token an agent presents, and the lifetime ``maple tokens create``
accepts. Every token expires, within :data:`MAX_LIFETIME`.
"""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta

from maple_core.cursor import parse_stamp
from maple_core.errors import InvalidInputError
from maple_core.tokens import AccessToken, TokenScope

__all__ = ["MAX_LIFETIME", "access_refusal", "parse_lifetime"]

MAX_LIFETIME = timedelta(days=366)
"""The longest a token may live: every token expires."""
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}


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
