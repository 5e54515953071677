"""Alembic's environment for maple's schema: it migrates the connection maple hands it.

``maple db upgrade`` (``maple_adapters.sql.migrate``) opens the connection, takes the
migration lock and passes the connection in ``config.attributes["connection"]``; this file is
never run by the ``alembic`` command on its own.
"""

from __future__ import annotations

from alembic import context

from maple_adapters.sql.schema import VERSION_TABLE, metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    version_table=VERSION_TABLE,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
