"""MCP tasks' records, so any route worker answers tasks/get.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tasks table."""
    op.create_table(
        "maple_tasks",
        sa.Column("task_id", sa.String(64), primary_key=True),
        sa.Column("repository", sa.String(200), nullable=False),
        sa.Column("tool", sa.String(100), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Column("arguments", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("owner", sa.String(100), nullable=True),
        sa.Column("lease_until", sa.String(40), nullable=True),
        sa.Column("finished_at", sa.String(40), nullable=True),
    )
    op.create_index("maple_tasks_finished", "maple_tasks", ["finished_at"])


def downgrade() -> None:
    """Drop the tasks table."""
    op.drop_table("maple_tasks")
