"""One database behind the SQL adapters: its engine, its dialect's ways, and its one transaction.

``MAPLE_DATABASE_URL`` names it: ``postgresql://user:password@host/name`` (through psycopg 3)
for a team, ``sqlite:///path/to/maple.db`` (WAL mode) for one box. Every adapter reaches it
through :meth:`Database.transaction`, the one place that begins, retries and translates: a
server that is down, restarting or failing over is asked again three times over about a second,
then the call fails with :class:`~maple_core.errors.StoreUnavailableError` naming the database
(never its password) and the fix. A schema that was not migrated to this maple's revision is
refused the same way, naming ``maple db upgrade``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from typing import Any, TypeVar
from urllib.parse import unquote

import stamina
import stamina.instrumentation
from sqlalchemy import (
    URL,
    Connection,
    Engine,
    Table,
    create_engine,
    event,
    insert,
    make_url,
    select,
)
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError

from maple_adapters.sql.schema import alembic_version
from maple_core.errors import ConfigurationError, StoreRejectedError, StoreUnavailableError
from maple_core.text import scrub

TYPE_CHECKING = False
if TYPE_CHECKING:
    import psycopg

    from maple_adapters.sql.listener import Notifications

__all__ = [
    "Database",
    "Dialect",
    "SCHEMA_REVISION",
    "database_url",
]

# Retries are reported by the error maple raises in the end, never by stamina's log lines.
stamina.instrumentation.set_on_retry_hooks([])

SCHEMA_REVISION = "0002"
"""The schema revision this maple reads and writes (the newest migration's)."""

T = TypeVar("T")

_ATTEMPTS = 3
_LOCK_TIMEOUT_S = 30
# SQLSTATEs worth asking again: serialization failure, deadlock, lock not available, the server
# shutting down or starting up, too many connections; and class 08, the connection failing.
_RETRIED_STATES = frozenset({"40001", "40P01", "55P03", "57P01", "57P02", "57P03", "53300"})
_MISSING_TABLE = re.compile(r"no such table|relation \S+ does not exist|UndefinedTable", re.I)


class Dialect(StrEnum):
    """The databases the SQL store runs on."""

    POSTGRESQL = "postgresql"
    SQLITE = "sqlite"


def database_url(text: str | URL) -> URL:
    """Read ``MAPLE_DATABASE_URL`` as the URL SQLAlchemy opens (PostgreSQL through psycopg 3).

    Raises:
        ConfigurationError: it names no PostgreSQL or SQLite database (the message never
            repeats a password).
    """
    try:
        url = text if isinstance(text, URL) else make_url(text)
    except (ArgumentError, ValueError):
        raise ConfigurationError(
            "MAPLE_DATABASE_URL is not a database URL; give postgresql://user:password@host/name "
            "or sqlite:///path/to/maple.db."
        ) from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        if url.database in (None, "", ":memory:") or url.database.startswith("file::memory:"):
            raise ConfigurationError(
                "MAPLE_DATABASE_URL names an in-memory SQLite database, which every connection "
                "sees empty; give a file: sqlite:///path/to/maple.db."
            )
        return url.set(drivername="sqlite+pysqlite")
    raise ConfigurationError(
        f"MAPLE_DATABASE_URL names a {backend} database; maple keeps comments in PostgreSQL "
        "(postgresql://user:password@host/name) or SQLite (sqlite:///path/to/maple.db)."
    )


def _sqlite_engine(url: URL) -> Engine:
    engine = create_engine(url, connect_args={"timeout": _LOCK_TIMEOUT_S}, pool_size=8)

    @event.listens_for(engine, "connect")
    def _connected(dbapi_connection: Any, record: object) -> None:
        # The driver's own transaction handling is switched off, so BEGIN below is the only one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")  # a commit is on disk before it is answered
        cursor.execute(f"PRAGMA busy_timeout={_LOCK_TIMEOUT_S * 1000}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        # A writer takes the write lock at once, so two writers never both read and then race.
        immediate = connection.get_execution_options().get("maple_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def _postgresql_engine(url: URL) -> Engine:
    connect_args: dict[str, Any] = {"connect_timeout": 5, "application_name": "maple"}
    if "options" not in url.query:
        connect_args["options"] = f"-c lock_timeout={_LOCK_TIMEOUT_S}s"
    return create_engine(url, connect_args=connect_args, pool_size=10, max_overflow=20)


def _transient(exc: Exception) -> bool:
    """Whether asking again may work: the connection failed, or the server asked us to retry."""
    if not isinstance(exc, DBAPIError) or not _is_postgresql_error(exc):
        return False
    if exc.connection_invalidated:
        return True
    state = getattr(exc.orig, "sqlstate", None)
    if isinstance(state, str):
        return state in _RETRIED_STATES or state.startswith("08")
    return isinstance(exc, OperationalError)  # no state: the connection itself failed


def _is_postgresql_error(exc: DBAPIError) -> bool:
    return type(exc.orig).__module__.startswith("psycopg")


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


class Database:
    """A PostgreSQL or SQLite database, shared by every SQL adapter of one process.

    Args:
        url: ``MAPLE_DATABASE_URL``.
        name: the store name errors carry.
    """

    def __init__(self, url: str | URL, *, name: str = "sql") -> None:
        self.url = database_url(url)
        self.dialect = (
            Dialect.SQLITE if self.url.get_backend_name() == "sqlite" else (Dialect.POSTGRESQL)
        )
        self.name = name
        self.shown = unquote(
            self.url.set(drivername=self.dialect.value).render_as_string(hide_password=True)
        )
        self._secrets = [self.url.password] if self.url.password else []
        make = _sqlite_engine if self.dialect is Dialect.SQLITE else _postgresql_engine
        self.engine = make(self.url)
        self._schema_ok = False
        self._notifications: Notifications | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Database({self.shown!r})"

    def close(self) -> None:
        """Stop listening for notifications and close every pooled connection."""
        with self._lock:
            notifications, self._notifications = self._notifications, None
        if notifications is not None:
            notifications.stop()
        self.engine.dispose()

    def notifications(self) -> Notifications:
        """The process's one listener on this PostgreSQL database, started on first use."""
        with self._lock:
            if self._notifications is None:
                from maple_adapters.sql.listener import Notifications

                self._notifications = Notifications(self.listening_connection)
                self._notifications.start()
            return self._notifications

    def listening_connection(self) -> psycopg.Connection:
        """A new autocommit connection of its own, for ``LISTEN`` (PostgreSQL)."""
        import psycopg

        cargs, cparams = self.engine.dialect.create_connect_args(self.url)
        cparams.update(
            connect_timeout=5,
            application_name="maple-listen",
            keepalives=1,
            keepalives_idle=30,
            keepalives_interval=10,
            keepalives_count=3,
        )
        return psycopg.connect(*cargs, autocommit=True, **cparams)

    def scrubbed(self, text: str) -> str:
        """``text`` without the database's password."""
        return scrub(text, self._secrets)

    # -- the one transaction -----------------------------------------------------------------

    def transaction(
        self, operation: str, work: Callable[[Connection, int], T], *, write: bool = False
    ) -> T:
        """Run ``work(connection, attempt)`` in one transaction, committed when it returns.

        A failure worth retrying (the connection dropped, the server restarting, a
        serialization failure) runs ``work`` again in a new transaction, up to three attempts
        in all; ``attempt`` counts from 1, so a write can tell that an earlier attempt may have
        committed before its answer was lost. A write takes the database's write lock at once
        on SQLite; on PostgreSQL ``work`` locks the rows it changes. A ``MapleError`` from
        ``work`` rolls back and passes through.

        Raises:
            StoreUnavailableError: the database could not be reached, or its schema is not this
                maple's (naming ``maple db upgrade``).
            StoreRejectedError: the database refused the statement for another reason.
        """
        with self.translated(operation):
            attempt = 0
            for retry in stamina.retry_context(
                on=_transient, attempts=_ATTEMPTS, wait_initial=0.1, wait_max=1.0, wait_jitter=0.1
            ):
                with retry:
                    attempt += 1
                    if not self._schema_ok:
                        self._check_schema()
                    with self._connection(write) as connection, connection.begin():
                        return work(connection, attempt)
        raise AssertionError("unreachable: the retries either returned or raised")

    def insert_once(
        self,
        operation: str,
        table: Table,
        values: Mapping[str, Any],
        found: Callable[[Connection], object | None],
    ) -> None:
        """Insert one row of ``values`` into ``table`` in one write :meth:`transaction`.

        A retry asks ``found`` first (the row as an earlier attempt may have committed it, or
        ``None``), so an answer lost after the commit does not store the row twice.
        """

        def work(connection: Connection, attempt: int) -> None:
            if attempt > 1 and found(connection) is not None:
                return  # an earlier attempt stored it
            connection.execute(insert(table).values(**values))

        self.transaction(operation, work, write=True)

    @contextmanager
    def _connection(self, write: bool) -> Iterator[Connection]:
        with self.engine.connect() as connection:
            if write and self.dialect is Dialect.SQLITE:
                connection = connection.execution_options(maple_write=True)
            elif not write and self.dialect is Dialect.POSTGRESQL:
                # One snapshot for every statement of a read (a branch's comments, approvals and
                # change token agree).
                connection = connection.execution_options(isolation_level="REPEATABLE READ")
            yield connection

    def _check_schema(self) -> None:
        """Refuse a database whose schema is not at :data:`SCHEMA_REVISION`."""
        with self.engine.connect() as connection:
            revision = connection.execute(select(alembic_version.c.version_num)).scalar()
        if revision != SCHEMA_REVISION:
            raise self._schema_refusal(revision)
        self._schema_ok = True

    def _schema_refusal(self, revision: str | None) -> StoreUnavailableError:
        if revision is not None and revision > SCHEMA_REVISION:
            message = (
                f"The database at {self.shown} has maple's schema at revision {revision}, newer "
                f"than this maple knows ({SCHEMA_REVISION}); upgrade maple on this machine."
            )
        else:
            found = f"at revision {revision}" if revision else "without maple's schema"
            message = (
                f"The database at {self.shown} is {found}, and this maple needs revision "
                f"{SCHEMA_REVISION}; run `maple db upgrade` (or serve the route with "
                "--migrate), then try again."
            )
        return StoreUnavailableError(message, store=self.name, operation="schema")

    @contextmanager
    def translated(self, operation: str) -> Iterator[None]:
        """The SQL adapters' one boundary for the database's errors: each becomes maple's."""
        try:
            yield
        except SQLAlchemyError as exc:
            raise self._refusal(exc, operation) from None

    def _refusal(self, exc: SQLAlchemyError, operation: str) -> StoreUnavailableError | (
        StoreRejectedError
    ):
        reason = self.scrubbed(_first_line(exc))
        if _MISSING_TABLE.search(reason):
            refusal = self._schema_refusal(None)
            return StoreUnavailableError(str(refusal), store=self.name, operation=operation)
        if isinstance(exc, OperationalError) or (isinstance(exc, DBAPIError) and _transient(exc)):
            tried = f" (maple tried {_ATTEMPTS} times)" if _transient(exc) else ""
            check = (
                "that its folder exists and maple may write there"
                if self.dialect is Dialect.SQLITE
                else "that it is running"
            )
            return StoreUnavailableError(
                f"The database at {self.shown} could not be used{tried}: {reason}. Check {check} "
                "and that MAPLE_DATABASE_URL names it; then try again.",
                store=self.name,
                operation=operation,
            )
        return StoreRejectedError(
            f"The database at {self.shown} refused {operation}: {reason}.",
            store=self.name,
            operation=operation,
        )
