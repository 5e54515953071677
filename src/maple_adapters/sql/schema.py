"""The SQL store's tables, as SQLAlchemy Core sees them.

The migrations under ``migrations/versions/`` create exactly these (a test compares them); a
change here is a new migration there. Every row is scoped to a repository (``owner/name``), so
one database can hold the reviews of many repositories. A comment is kept as its JSON record
(Maple's shape, unknown keys included), beside the columns a query filters on.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

__all__ = [
    "VERSION_TABLE",
    "alembic_version",
    "approvals",
    "comments",
    "ledgers",
    "media",
    "metadata",
    "tasks",
    "tokens",
]

VERSION_TABLE = "maple_alembic_version"
"""Alembic's record of the schema's revision, named so an application's own Alembic can share
the database."""

metadata = MetaData()

_SERIAL = BigInteger().with_variant(Integer, "sqlite")  # SQLite numbers rows only as INTEGER

ledgers = Table(
    "maple_ledgers",
    metadata,
    Column("repository", String(200), primary_key=True),
    # The latest arrival stamp given (a comment's or a reply's): the next is strictly later.
    Column("last_stamp", String(40), nullable=True),
    # Counts every change; a waiter's change token, and what a notification carries.
    Column("version", BigInteger, nullable=False, server_default="0"),
)

comments = Table(
    "maple_comments",
    metadata,
    Column("seq", _SERIAL, primary_key=True, autoincrement=True),  # store order
    Column("repository", String(200), nullable=False),
    Column("id", String(256), nullable=False),
    Column("branch", Text, nullable=False),
    Column("status", String(32), nullable=False),
    Column("record", Text, nullable=False),
    UniqueConstraint("repository", "id", name="maple_comments_id"),
    Index("maple_comments_branch", "repository", "branch", "seq"),
)

approvals = Table(
    "maple_approvals",
    metadata,
    Column("seq", _SERIAL, primary_key=True, autoincrement=True),
    Column("repository", String(200), nullable=False),
    Column("id", String(64), nullable=False),
    Column("branch", Text, nullable=False),
    Column("record", Text, nullable=False),
    UniqueConstraint("repository", "id", name="maple_approvals_id"),
    Index("maple_approvals_branch", "repository", "branch"),
)

media = Table(
    "maple_media",
    metadata,
    Column("repository", String(200), primary_key=True),
    Column("key", String(64), primary_key=True),
    Column("content_type", String(100), nullable=False),
    Column("data", LargeBinary, nullable=False),
)

tokens = Table(
    "maple_tokens",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("repository", String(200), nullable=False),
    Column("scope", String(16), nullable=False),
    Column("digest", String(64), nullable=False),  # SHA-256 of the secret, never the secret
    Column("label", String(200), nullable=True),
    Column("created_at", String(40), nullable=False),
    Column("expires_at", String(40), nullable=False),
    Column("revoked_at", String(40), nullable=True),
    UniqueConstraint("digest", name="maple_tokens_digest"),
    Index("maple_tokens_repository", "repository"),
)

tasks = Table(
    "maple_tasks",
    metadata,
    Column("task_id", String(64), primary_key=True),
    Column("repository", String(200), nullable=False),
    Column("tool", String(100), nullable=False),
    Column("status", String(16), nullable=False),
    Column("message", Text, nullable=False),
    Column("created_at", String(40), nullable=False),
    Column("updated_at", String(40), nullable=False),
    Column("arguments", Text, nullable=False),
    Column("result", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("owner", String(100), nullable=True),
    Column("lease_until", String(40), nullable=True),
    Column("finished_at", String(40), nullable=True),
    Index("maple_tasks_finished", "finished_at"),
)

alembic_version = Table(
    VERSION_TABLE,
    MetaData(),  # Alembic's own table, not one the migrations create
    Column("version_num", String(32), primary_key=True),
)
