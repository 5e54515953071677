"""The access tokens ``maple tokens`` issues, kept in the database as digests."""

from __future__ import annotations

import builtins
import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, update

from maple_adapters.sql.database import Database
from maple_adapters.sql.schema import tokens
from maple_core.cursor import format_stamp
from maple_core.errors import NotFoundError
from maple_core.ports import Clock
from maple_core.tokens import TOKEN_PREFIX, AccessToken, IssuedToken, TokenScope, token_digest

__all__ = ["SqlTokenStore"]


def _token(row: Any) -> AccessToken:
    return AccessToken(
        id=row.id,
        repository=row.repository,
        scope=TokenScope(row.scope),
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        label=row.label,
    )


_COLUMNS = (
    tokens.c.id,
    tokens.c.repository,
    tokens.c.scope,
    tokens.c.created_at,
    tokens.c.expires_at,
    tokens.c.revoked_at,
    tokens.c.label,
)


class SqlTokenStore:
    """Tokens in ``maple_tokens``: each secret's SHA-256 digest and what the token may do.

    Args:
        database: the database the route's comments are in.
        clock: stamps issues and revocations.
    """

    def __init__(self, database: Database, clock: Clock) -> None:
        self._database = database
        self._clock = clock

    def issue(
        self, repository: str, scope: TokenScope, expires_at: datetime, label: str | None = None
    ) -> IssuedToken:
        """Make a token; its secret is returned here and kept nowhere."""
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = AccessToken(
            id="tok_" + secrets.token_hex(6),
            repository=repository,
            scope=scope,
            created_at=format_stamp(self._clock.now()),
            expires_at=format_stamp(expires_at),
            label=label,
        )

        row = {
            "id": token.id,
            "repository": token.repository,
            "scope": token.scope.value,
            "digest": token_digest(secret),
            "label": token.label,
            "created_at": token.created_at,
            "expires_at": token.expires_at,
        }
        self._database.insert_once(
            "issue_token", tokens, row, lambda connection: self._by_id(connection, token.id)
        )
        return IssuedToken(token, secret)

    @staticmethod
    def _by_id(connection: Connection, token_id: str) -> AccessToken | None:
        row = connection.execute(select(*_COLUMNS).where(tokens.c.id == token_id)).first()
        return _token(row) if row is not None else None

    def tokens(self, repository: str | None = None) -> builtins.list[AccessToken]:
        """The tokens issued (for ``repository``, or all), oldest first, revoked ones included."""
        query = select(*_COLUMNS).order_by(tokens.c.created_at, tokens.c.id)
        if repository is not None:
            query = query.where(tokens.c.repository == repository)
        rows = self._database.transaction("tokens", lambda c, _: c.execute(query).all())
        return [_token(row) for row in rows]

    def revoke(self, token_id: str) -> AccessToken:
        """Stop ``token_id`` working now (a revoked token stays listed, revoked)."""
        at = format_stamp(self._clock.now())

        def work(connection: Connection, attempt: int) -> AccessToken:
            connection.execute(
                update(tokens)
                .where(tokens.c.id == token_id)
                .where(tokens.c.revoked_at.is_(None))
                .values(revoked_at=at)
            )
            found = self._by_id(connection, token_id)
            if found is None:
                raise NotFoundError(
                    f"No token with id {token_id}; maple tokens list shows the ids there are.",
                    store="sql",
                    operation="revoke_token",
                )
            return found

        return self._database.transaction("revoke_token", work, write=True)

    def find(self, secret: str) -> AccessToken | None:
        """The token whose secret is ``secret`` (looked up by digest), or ``None``."""
        if not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
            return None
        query = select(*_COLUMNS).where(tokens.c.digest == token_digest(secret))
        row = self._database.transaction("find_token", lambda c, _: c.execute(query).first())
        return _token(row) if row is not None else None
