"""Comments, approvals, screenshots and access tokens, per repository.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    """Create the tables."""
    op.create_table(
        "maple_ledgers",
        sa.Column("repository", sa.String(200), primary_key=True),
        sa.Column("last_stamp", sa.String(40), nullable=True),
        sa.Column("version", sa.BigInteger, nullable=False, server_default="0"),
    )
    op.create_table(
        "maple_comments",
        sa.Column("seq", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("repository", sa.String(200), nullable=False),
        sa.Column("id", sa.String(256), nullable=False),
        sa.Column("branch", sa.Text, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.UniqueConstraint("repository", "id", name="maple_comments_id"),
    )
    op.create_index("maple_comments_branch", "maple_comments", ["repository", "branch", "seq"])
    op.create_table(
        "maple_approvals",
        sa.Column("seq", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("repository", sa.String(200), nullable=False),
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("branch", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.UniqueConstraint("repository", "id", name="maple_approvals_id"),
    )
    op.create_index("maple_approvals_branch", "maple_approvals", ["repository", "branch"])
    op.create_table(
        "maple_media",
        sa.Column("repository", sa.String(200), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("content_type", sa.String(100), nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "maple_tokens",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("repository", sa.String(200), nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("label", sa.String(200), nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("expires_at", sa.String(40), nullable=False),
        sa.Column("revoked_at", sa.String(40), nullable=True),
        sa.UniqueConstraint("digest", name="maple_tokens_digest"),
    )
    op.create_index("maple_tokens_repository", "maple_tokens", ["repository"])


def downgrade() -> None:
    """Drop the tables (and everything in them)."""
    for table in ("maple_tokens", "maple_media", "maple_approvals", "maple_comments"):
        op.drop_table(table)
    op.drop_table("maple_ledgers")
