"""``maple db upgrade``: the schema brought to this maple's revision with Alembic.

The migrations ship in the package (``maple_adapters/sql/migrations``). An upgrade runs in one
transaction: on PostgreSQL under an advisory lock, so route workers started together with
``--migrate`` take turns and the second finds nothing left to do; on SQLite under the
database's write lock. DDL is transactional on both, so a failed upgrade leaves the schema as it
was, and a store reading meanwhile waits for it or sees the old revision and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, inspect, select, text

from maple_adapters.sql.database import SCHEMA_REVISION, Database, Dialect
from maple_adapters.sql.schema import VERSION_TABLE, alembic_version

__all__ = ["Upgrade", "schema_revision", "upgrade"]

_LOCK_KEY = 0x6D61706C65  # "maple": the advisory lock every upgrade takes on PostgreSQL
_SCRIPTS = "maple_adapters.sql:migrations"


@dataclass(frozen=True, slots=True)
class Upgrade:
    """What an upgrade did: the revision found and the one left (equal when nothing was due)."""

    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        """Whether any migration ran."""
        return self.before != self.after


def _revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table(VERSION_TABLE):
        return None
    return connection.execute(select(alembic_version.c.version_num)).scalar()


def schema_revision(database: Database) -> str | None:
    """The revision the database's schema is at, or ``None`` before the first upgrade.

    Raises:
        StoreUnavailableError: the database cannot be reached.
    """
    with database.translated("schema"), database.engine.connect() as connection:
        return _revision(connection)


def upgrade(database: Database, revision: str = SCHEMA_REVISION) -> Upgrade:
    """Run the migrations up to ``revision`` (this maple's), in one transaction.

    Raises:
        StoreUnavailableError: the database cannot be reached.
        StoreRejectedError: it refused a migration (the schema is left as it was).
    """
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", _SCRIPTS)
    with database.translated("upgrade"), database.engine.connect() as connection:
        if database.dialect is Dialect.SQLITE:
            connection = connection.execution_options(maple_write=True)
        with connection.begin():
            if database.dialect is Dialect.POSTGRESQL:
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEY})
            before = _revision(connection)
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
            after = _revision(connection)
    return Upgrade(before, after or revision)
