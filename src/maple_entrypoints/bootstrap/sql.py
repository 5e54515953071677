"""The sql setup: the process's one database, and the store, media, tokens and tasks kept in it.

Only this module imports ``maple_adapters.sql`` (and so SQLAlchemy), and only when
``MAPLE_STORE=sql`` or a ``maple db``/``maple tokens`` command asks for it: the Stop hook's and
``maple-mcp``'s start-up never load it otherwise.

A part of the setups, not a setup: the agent loop and the route server open the database on
``MAPLE_STORE=sql``, and the local checkout offers it (``LocalCheckout.database``) to ``maple
db``, ``maple tokens`` and ``maple doctor``.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass

import anyio.to_thread

from maple_core.errors import ConfigurationError
from maple_core.json_types import JsonObject
from maple_core.ports import Clock, CommentStore
from maple_core.storage_ports import MediaStore, TaskStore, TokenStore
from maple_entrypoints.variables import Secret

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.sql.database import Database
    from maple_adapters.sql.health import DatabaseHealth
    from maple_adapters.sql.migrate import Upgrade

__all__: list[str] = []  # a part the setups build; no entrypoint imports it

_DATABASES: dict[str, Database] = {}
_LOCK = threading.Lock()
_MISSING = (
    "MAPLE_STORE=sql needs the database libraries maple installs with its sql extra: "
    "pip install 'maple-review[sql]' ({missing} is missing)."
)


@contextmanager
def _installed() -> Iterator[None]:
    try:
        yield
    except ModuleNotFoundError as exc:
        raise ConfigurationError(_MISSING.format(missing=exc.name)) from None


def sql_database(url: Secret | str | None) -> SqlDatabase:
    """The database ``MAPLE_DATABASE_URL`` names, one per process (so one listener).

    Raises:
        ConfigurationError: the URL is unset or names no usable database, or the sql extra is
            not installed.
    """
    text = url.get_secret_value() if isinstance(url, Secret) else url
    if not text:
        raise ConfigurationError(
            "MAPLE_DATABASE_URL is not set; the sql store needs it: "
            "postgresql://user:password@host/name or sqlite:///path/to/maple.db."
        )
    with _installed(), _LOCK:
        database = _DATABASES.get(text)
        if database is None:
            from maple_adapters.sql.database import Database

            database = _DATABASES[text] = Database(text)
        return SqlDatabase(database)


@dataclass(frozen=True)
class SqlDatabase:
    """One database, and what maple keeps in it: comments, screenshots, tokens and tasks."""

    database: Database

    @property
    def shown(self) -> str:
        """The database as shown: its URL without the password."""
        return self.database.shown

    def store(
        self, repository: str, clock: Clock, heads: Callable[[str], str | None] | None = None
    ) -> CommentStore:
        """The sql store of ``repository``.

        ``heads`` names a branch's pull-request head (the gate App asking GitHub), so a route on
        this store can publish the gate.
        """
        with _installed():
            from maple_adapters.sql.store import SqlCommentStore

            return SqlCommentStore(self.database, clock, repository, heads=heads)

    def media(self, repository: str) -> MediaStore:
        """The screenshots of ``repository``."""
        with _installed():
            from maple_adapters.sql.media import SqlMedia

            return SqlMedia(self.database, repository)

    def tokens(self, clock: Clock) -> TokenStore:
        """The access tokens ``maple tokens`` issues."""
        with _installed():
            from maple_adapters.sql.tokens import SqlTokenStore

            return SqlTokenStore(self.database, clock)

    def upgrade(self) -> Upgrade:
        """Migrate the database to this maple's schema (``maple db upgrade``)."""
        with _installed():
            from maple_adapters.sql.migrate import upgrade

            return upgrade(self.database)

    def health(self) -> DatabaseHealth:
        """Whether the database is reachable, migrated and (PostgreSQL) notifying."""
        with _installed():
            from maple_adapters.sql.health import check_database

            return check_database(self.database)

    def revision(self) -> tuple[str, str | None, str]:
        """The database as shown (no password), its schema revision, and this maple's."""
        with _installed():
            from maple_adapters.sql.database import SCHEMA_REVISION
            from maple_adapters.sql.migrate import schema_revision

            return self.database.shown, schema_revision(self.database), SCHEMA_REVISION

    def route(
        self, repository: str, clock: Clock, heads: Callable[[str], str | None] | None = None
    ) -> SqlRoute:
        """A route worker's parts on this database (see :class:`SqlRoute`)."""
        return _route(self, repository, clock, heads)


@dataclass(frozen=True)
class SqlRoute:
    """What a route worker on the sql store is wired to.

    Attributes:
        store: the repository's comments.
        media: its screenshots.
        tokens: the tokens agents call the MCP endpoint with.
        tasks: the agents' waiting tasks, shared by every worker.
        health: the database's check, for ``GET /health``.
        lifespan: starts the worker's one listener and closes the database at the end.
        upgrade: migrates the database to this maple's schema (``--migrate``).
    """

    store: CommentStore
    media: MediaStore
    tokens: TokenStore
    tasks: TaskStore
    health: Callable[[], tuple[bool, JsonObject]]
    lifespan: Callable[[], AbstractAsyncContextManager[None]]
    upgrade: Callable[[], Upgrade]


def _route(
    sql: SqlDatabase,
    repository: str,
    clock: Clock,
    heads: Callable[[str], str | None] | None,
) -> SqlRoute:
    database = sql.database
    with _installed():
        from maple_adapters.sql.database import Dialect
        from maple_adapters.sql.health import check_database
        from maple_adapters.sql.media import SqlMedia
        from maple_adapters.sql.store import SqlCommentStore
        from maple_adapters.sql.tasks import SqlTaskStore
        from maple_adapters.sql.tokens import SqlTokenStore

    def health() -> tuple[bool, JsonObject]:
        found = check_database(database)
        shown: JsonObject = {
            "reachable": found.reachable,
            "schema": found.revision,
            "wanted": found.wanted,
            "notifications": found.notifications,
            "problem": found.problem,
        }
        return found.ok, {"store": "sql", "database": shown}

    @asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        if database.dialect is Dialect.POSTGRESQL:
            listening = database.notifications()  # started now: one listener for this worker
            await anyio.to_thread.run_sync(listening.wait_until_listening, 5.0)
        try:
            yield
        finally:
            await anyio.to_thread.run_sync(database.close)

    return SqlRoute(
        store=SqlCommentStore(database, clock, repository, heads=heads),
        media=SqlMedia(database, repository),
        tokens=SqlTokenStore(database, clock),
        tasks=SqlTaskStore(database, repository),
        health=health,
        lifespan=lifespan,
        upgrade=sql.upgrade,
    )
