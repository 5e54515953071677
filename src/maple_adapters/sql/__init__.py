"""The ``sql`` store: comments in PostgreSQL (a team) or SQLite (one box), through SQLAlchemy 2.

Importing this package loads SQLAlchemy; nothing on the Stop hook's or ``maple-mcp``'s start-up
path imports it unless ``MAPLE_STORE=sql`` is configured. Names are imported on first use.
"""

from __future__ import annotations

from maple_core.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.sql.database import SCHEMA_REVISION, Database, Dialect, database_url
    from maple_adapters.sql.health import DatabaseHealth, check_database
    from maple_adapters.sql.listener import Notifications
    from maple_adapters.sql.media import SqlMedia
    from maple_adapters.sql.migrate import Upgrade, schema_revision, upgrade
    from maple_adapters.sql.store import SqlCommentStore
    from maple_adapters.sql.tasks import SqlTaskStore
    from maple_adapters.sql.tokens import SqlTokenStore

__all__ = [
    "Database",
    "DatabaseHealth",
    "Dialect",
    "Notifications",
    "SCHEMA_REVISION",
    "SqlCommentStore",
    "SqlMedia",
    "SqlTaskStore",
    "SqlTokenStore",
    "Upgrade",
    "check_database",
    "database_url",
    "schema_revision",
    "upgrade",
]

_HOMES = {
    "SCHEMA_REVISION": "maple_adapters.sql.database",
    "Database": "maple_adapters.sql.database",
    "DatabaseHealth": "maple_adapters.sql.health",
    "Dialect": "maple_adapters.sql.database",
    "Notifications": "maple_adapters.sql.listener",
    "SqlCommentStore": "maple_adapters.sql.store",
    "SqlMedia": "maple_adapters.sql.media",
    "SqlTaskStore": "maple_adapters.sql.tasks",
    "SqlTokenStore": "maple_adapters.sql.tokens",
    "Upgrade": "maple_adapters.sql.migrate",
    "check_database": "maple_adapters.sql.health",
    "database_url": "maple_adapters.sql.database",
    "schema_revision": "maple_adapters.sql.migrate",
    "upgrade": "maple_adapters.sql.migrate",
}


if not TYPE_CHECKING:  # type checkers see the real imports above
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
