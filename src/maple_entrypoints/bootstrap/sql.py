"""The sql profile: the process's one database, and the store, media and tokens kept in it.

Only this module imports ``maple_adapters.sql`` (and so SQLAlchemy), and only when
``MAPLE_STORE=sql`` or a ``maple db``/``maple tokens`` command asks for it: the Stop hook's and
``maple-mcp``'s start-up never load it otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass

import anyio.to_thread
from pydantic import SecretStr

from maple_core.errors import ConfigurationError
from maple_core.json_types import JsonObject
from maple_core.ports import Clock, CommentStore, MediaStore, TaskStore, TokenStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.sql import Database, DatabaseHealth, Upgrade

__all__ = [
    "SqlRoute",
    "database_for",
    "database_health",
    "database_revision",
    "sql_media",
    "sql_route",
    "sql_store",
    "token_store",
    "upgrade_database",
]

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


def database_for(url: SecretStr | str | None) -> Database:
    """The database ``MAPLE_DATABASE_URL`` names, one per process (so one listener).

    Raises:
        ConfigurationError: the URL is unset or names no usable database, or the sql extra is
            not installed.
    """
    text = url.get_secret_value() if isinstance(url, SecretStr) else url
    if not text:
        raise ConfigurationError(
            "MAPLE_DATABASE_URL is not set; the sql store needs it: "
            "postgresql://user:password@host/name or sqlite:///path/to/maple.db."
        )
    with _installed(), _LOCK:
        database = _DATABASES.get(text)
        if database is None:
            from maple_adapters.sql import Database

            database = _DATABASES[text] = Database(text)
        return database


def sql_store(
    url: SecretStr | str | None,
    repository: str,
    clock: Clock,
    heads: Callable[[str], str | None] | None = None,
) -> CommentStore:
    """The sql store of ``repository`` in the database ``url`` names.

    ``heads`` names a branch's pull-request head (the gate App asking GitHub), so a route on
    this store can publish the gate.
    """
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import SqlCommentStore

        return SqlCommentStore(database, clock, repository, heads=heads)


def sql_media(url: SecretStr | str | None, repository: str) -> MediaStore:
    """The screenshots of ``repository``, kept in the same database."""
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import SqlMedia

        return SqlMedia(database, repository)


def token_store(url: SecretStr | str | None, clock: Clock) -> TokenStore:
    """The access tokens ``maple tokens`` issues, kept in the same database."""
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import SqlTokenStore

        return SqlTokenStore(database, clock)


def upgrade_database(url: SecretStr | str | None) -> Upgrade:
    """Migrate the database to this maple's schema (``maple db upgrade``)."""
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import upgrade

        return upgrade(database)


def database_health(url: SecretStr | str | None) -> DatabaseHealth:
    """Whether the database is reachable, migrated and (PostgreSQL) notifying."""
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import check_database

        return check_database(database)


def database_revision(url: SecretStr | str | None) -> tuple[str, str | None, str]:
    """The database as shown (no password), its schema revision, and this maple's."""
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import SCHEMA_REVISION, schema_revision

        return database.shown, schema_revision(database), SCHEMA_REVISION


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
    """

    store: CommentStore
    media: MediaStore
    tokens: TokenStore
    tasks: TaskStore
    health: Callable[[], tuple[bool, JsonObject]]
    lifespan: Callable[[], AbstractAsyncContextManager[None]]


def sql_route(
    url: SecretStr | str | None,
    repository: str,
    clock: Clock,
    heads: Callable[[str], str | None] | None = None,
) -> SqlRoute:
    """A route worker's parts on the sql store, from one database per process."""
    database = database_for(url)
    with _installed():
        from maple_adapters.sql import (
            Dialect,
            SqlCommentStore,
            SqlMedia,
            SqlTaskStore,
            SqlTokenStore,
            check_database,
        )

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
    )
