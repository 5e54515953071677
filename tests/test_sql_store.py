"""The SQL store beyond the contract suite: its schema and migrations, its errors, its retries,
its PostgreSQL notifications, and the screenshots and tokens kept beside the comments."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError

from contract_tests.support import FakeClock
from maple_adapters.memory_classifier import ScriptedClassifier
from maple_adapters.sql.database import SCHEMA_REVISION, Database, Dialect
from maple_adapters.sql.health import check_database
from maple_adapters.sql.media import SqlMedia
from maple_adapters.sql.migrate import schema_revision, upgrade
from maple_adapters.sql.schema import VERSION_TABLE, metadata
from maple_adapters.sql.store import SqlCommentStore
from maple_adapters.sql.tokens import SqlTokenStore
from maple_core.classifying import classify_reply
from maple_core.comments import Comment, NewComment
from maple_core.conversation import ReplyKind, Role, thread_of
from maple_core.errors import (
    ConfigurationError,
    CorruptLedgerError,
    NotFoundError,
    StoreUnavailableError,
)
from maple_core.listing import list_all
from maple_core.paging import ListQuery
from maple_core.resolving import converse, resolve_comment
from maple_core.statuses import CommentStatus
from maple_core.thread_events import ThreadEvent
from maple_core.tokens import TokenScope, token_digest
from tests.postgres import Cluster
from tests.sql_support import fresh_repository

PASSWORD = "pw-5f0c1e"


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest) -> Database:
    """The session's migrated database of each kind."""
    fixture = "sqlite_database" if request.param == "sqlite" else "postgres_database"
    found: Database = request.getfixturevalue(fixture)
    return found


def store_on(database: Database, clock: FakeClock | None = None) -> SqlCommentStore:
    return SqlCommentStore(database, clock or FakeClock(), fresh_repository())


# -- the schema --------------------------------------------------------------------------------


def test_the_migrations_create_exactly_the_tables_the_store_uses(database: Database) -> None:
    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
        assert compare_metadata(context, metadata) == []


def test_this_maple_reads_the_newest_migrations_revision() -> None:
    config = Config()
    config.set_main_option("script_location", "maple_adapters.sql:migrations")
    assert ScriptDirectory.from_config(config).get_current_head() == SCHEMA_REVISION


def test_an_unmigrated_database_is_refused_naming_the_upgrade_and_then_works(
    unmigrated_url: str,
) -> None:
    database = Database(unmigrated_url)
    try:
        store = SqlCommentStore(database, FakeClock(), "acme/web")
        with pytest.raises(StoreUnavailableError, match="maple db upgrade") as refused:
            store.append(NewComment(branch="feat/x", body="Hello"))
        assert refused.value.operation in ("schema", "append")
        assert schema_revision(database) is None
        done = upgrade(database)
        assert (done.before, done.after, done.changed) == (None, SCHEMA_REVISION, True)
        assert not upgrade(database).changed  # a second upgrade finds nothing to do
        stored = store.append(NewComment(branch="feat/x", body="Hello"))
        assert [c.id for c in list_all(store, "feat/x")] == [stored.id]
    finally:
        database.close()


def test_sqlite_runs_in_wal_mode_with_commits_on_disk(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'wal.db'}")
    try:
        with database.engine.connect() as connection:
            mode = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
            synchronous = connection.exec_driver_sql("PRAGMA synchronous").scalar()
    finally:
        database.close()
    assert (mode, synchronous) == ("wal", 2)  # 2 is FULL: a commit is on disk when answered


def test_two_upgrades_at_once_take_turns(unmigrated_url: str) -> None:
    results: list[object] = []

    def run() -> None:
        database = Database(unmigrated_url)
        try:
            results.append(upgrade(database))
        except Exception as exc:  # collected, so the assertion names it
            results.append(exc)
        finally:
            database.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(getattr(r, "changed", r) for r in results) == [False, True]  # type: ignore[type-var]


# -- configuration and errors ------------------------------------------------------------------


def test_a_write_during_a_migration_waits_for_it_and_lands(postgres: Cluster) -> None:
    url = postgres.create_database(f"migrating_{uuid.uuid4().hex[:8]}")
    database = Database(url)
    upgrade(database)
    store = SqlCommentStore(database, FakeClock(), "acme/web")
    landed: list[Comment] = []
    with psycopg.connect(url) as migration:  # holds the tables as a migration's ALTER does
        migration.execute("LOCK TABLE maple_ledgers, maple_comments IN ACCESS EXCLUSIVE MODE")
        writer = threading.Thread(
            target=lambda: landed.append(store.append(NewComment(branch="feat/x", body="Hi")))
        )
        writer.start()
        deadline = time.monotonic() + 10
        waiting = "SELECT count(*) FROM pg_locks WHERE NOT granted"
        while migration.execute(waiting).fetchone() == (0,):
            assert time.monotonic() < deadline, "the write never waited for the migration"
            time.sleep(0.01)
        assert landed == []  # waiting, not failed
    writer.join(10)  # the migration's transaction ended with the block
    try:
        assert [c.id for c in list_all(store, "feat/x")] == [c.id for c in landed]
        assert len(landed) == 1
    finally:
        database.close()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        (f"mysql://maple:{PASSWORD}@db.example/maple", "names a mysql database"),
        ("sqlite://", "in-memory SQLite"),
        ("sqlite:///:memory:", "in-memory SQLite"),
        ("nonsense", "not a database URL"),
    ],
)
def test_a_url_that_names_no_usable_database_is_refused(url: str, says: str) -> None:
    with pytest.raises(ConfigurationError, match=says) as refused:
        Database(url)
    assert PASSWORD not in str(refused.value)


def test_a_server_that_is_down_is_asked_three_times_then_named_without_its_password(
    tmp_path: Path,
) -> None:
    database = Database(f"postgresql://maple:{PASSWORD}@/maple?host={tmp_path}")
    store = SqlCommentStore(database, FakeClock(), "acme/web")
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as refused:
        store.append(NewComment(branch="feat/x", body="Hello"))
    message = str(refused.value)
    assert "maple tried 3 times" in message
    assert f"postgresql://maple:***@/maple?host={tmp_path}" in message
    assert "MAPLE_DATABASE_URL" in message
    assert PASSWORD not in message
    assert PASSWORD not in repr(database)
    assert time.monotonic() - started > 0.2  # it waited between the attempts


def test_a_record_maple_cannot_read_is_refused_and_left_alone(database: Database) -> None:
    store = store_on(database)
    stored = store.append(NewComment(branch="feat/x", body="Hello"))
    with database.engine.begin() as connection:
        connection.execute(
            text("UPDATE maple_comments SET record = 'not json' WHERE id = :id"), {"id": stored.id}
        )
    with pytest.raises(CorruptLedgerError, match="cannot read"):
        store.list(ListQuery(branch="feat/x"))
    with pytest.raises(CorruptLedgerError):
        store.set_status(stored.id, CommentStatus.RESOLVED)
    with database.engine.connect() as connection:
        kept = connection.execute(
            text("SELECT record FROM maple_comments WHERE id = :id"), {"id": stored.id}
        ).scalar()
    assert kept == "not json"


def test_names_beyond_plain_text_are_kept_and_kept_apart(database: Database) -> None:
    store = store_on(database)
    odd = ["feat/é", "feat/\x00nul", "feat/\ud83d", 'feat/"quoted"', "feat/\\"]
    for branch in odd:
        store.append(NewComment(branch=branch, body=branch))
    for branch in odd:
        assert [c.body for c in list_all(store, branch)] == [branch]
    with pytest.raises(NotFoundError):
        store.set_status("sql_\ud83d", CommentStatus.RESOLVED)


@contextlib.contextmanager
def first_commit_answer_lost(database: Database) -> Iterator[list[bool]]:
    """The next commit lands, but its answer is lost (the connection drops): ``[False]`` once
    it happened."""
    lost = [True]

    def commit_then_lose_the_answer(connection: object) -> None:
        if lost[0]:
            lost[0] = False
            connection.connection.dbapi_connection.commit()  # type: ignore[attr-defined]
            raise OperationalError(
                "COMMIT", {}, psycopg.OperationalError("server closed the connection")
            )

    event.listen(database.engine, "commit", commit_then_lose_the_answer)
    try:
        yield lost
    finally:
        event.remove(database.engine, "commit", commit_then_lose_the_answer)


def test_a_commit_whose_answer_was_lost_is_not_stored_twice(
    postgres_database: Database,
) -> None:
    store = store_on(postgres_database)
    with first_commit_answer_lost(postgres_database) as lost:
        stored = store.append(NewComment(branch="feat/x", body="Once"))
    assert not lost[0]
    assert [c.id for c in list_all(store, "feat/x")] == [stored.id]


@pytest.mark.parametrize("outcome", ["approved", "wait"])
def test_a_reading_whose_commit_answer_was_lost_is_kept_once(
    postgres_database: Database, outcome: str
) -> None:
    clock = FakeClock()
    store = store_on(postgres_database, clock)
    stored = store.append(NewComment(branch="feat/x", body="The total is cut."))
    resolve_comment(store, stored.id, "0123456789abcdef0123456789abcdef01234567", "Wider.", clock)
    dana = {"id": "u-dana", "name": "Dana", "provenance": "server"}
    said = ThreadEvent(
        ReplyKind.REPLY, Role.REVIEWER, "LGTM now", author=dana, marks={"trust": "identified"}
    )
    comment = converse(store, stored.id, said)
    entry_id = thread_of(comment)[-1].id
    classifier = ScriptedClassifier(lambda prompt: {"outcome": outcome, "remarks": []})
    with first_commit_answer_lost(postgres_database) as lost:
        reading = classify_reply(store, comment, entry_id, classifier, clock)
    assert not lost[0]
    assert reading.skipped is None
    assert reading.classification is not None
    assert reading.classification.outcome.value == outcome
    now = next(c for c in list_all(store, "feat/x") if c.id == stored.id)
    kinds = [r.kind for r in thread_of(now)]
    assert kinds.count(ReplyKind.CONFIRM) == (1 if outcome == "approved" else 0)
    assert len(classifier.prompts) == 1


# -- notifications -----------------------------------------------------------------------------


def _drop_listeners(database: Database) -> int:
    with database.engine.connect() as connection:
        return len(
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'maple-listen'"
                )
            ).all()
        )


def test_a_dropped_listener_reconnects_and_no_write_meanwhile_is_slept_through(
    postgres_database: Database,
) -> None:
    store = store_on(postgres_database)
    signal = store.changes("feat/x")
    notifications = postgres_database.notifications()
    assert notifications.wait_until_listening(10)
    epoch = notifications.epoch
    assert _drop_listeners(postgres_database) >= 1
    token = signal.token()
    threading.Timer(0.05, lambda: store.append(NewComment(branch="feat/x", body="x"))).start()
    assert signal.wait(token, 10) is True  # whether the channel is back yet or not
    deadline = time.monotonic() + 10
    while not (notifications.connected and notifications.epoch >= epoch + 2):
        assert time.monotonic() < deadline, "the listener never came back"
        time.sleep(0.01)
    token = signal.token()
    threading.Timer(0.05, lambda: store.append(NewComment(branch="feat/x", body="y"))).start()
    started = time.monotonic()
    assert signal.wait(token, 10) is True
    assert time.monotonic() - started < 2


def test_a_write_through_another_process_wakes_a_waiter_by_notification(
    postgres_database: Database, postgres: Cluster
) -> None:
    store = store_on(postgres_database)
    assert postgres_database.notifications().wait_until_listening(10)
    signal = store.changes("feat/x")
    token = signal.token()
    other = Database(postgres_database.url)  # another engine: as another worker would write
    try:
        writer = SqlCommentStore(other, FakeClock(), store.repository)
        threading.Timer(0.1, lambda: writer.append(NewComment(branch="feat/x", body="x"))).start()
        assert signal.wait(token, 10) is True
        assert signal.token() != token
    finally:
        other.close()


# -- media and tokens --------------------------------------------------------------------------


def test_screenshots_are_kept_per_repository(database: Database) -> None:
    media = SqlMedia(database, fresh_repository())
    ref = media.put(b"\x89PNG\r\n\x1a\nbytes", "image/png")
    assert (ref.connector, ref.content_type) == ("sql", "image/png")
    assert media.get(ref.key) == (b"\x89PNG\r\n\x1a\nbytes", "image/png")
    with pytest.raises(NotFoundError):
        SqlMedia(database, fresh_repository()).get(ref.key)


@pytest.fixture
def tokens(database: Database) -> SqlTokenStore:
    return SqlTokenStore(database, FakeClock())


def test_a_token_is_found_by_its_secret_and_only_its_digest_is_kept(
    tokens: SqlTokenStore, database: Database
) -> None:
    repository = fresh_repository()
    expires = datetime(2026, 4, 1, tzinfo=UTC)
    issued = tokens.issue(repository, TokenScope.READ, expires, "codex cloud")
    assert issued.secret.startswith("maple_")
    assert len(issued.secret) > 40
    assert issued.secret not in repr(issued)
    assert tokens.find(issued.secret) == issued.token
    assert tokens.find(issued.secret + "x") is None
    assert tokens.find("nonsense") is None
    assert [t.id for t in tokens.tokens(repository)] == [issued.token.id]
    with database.engine.connect() as connection:
        dumped = " ".join(
            str(v) for row in connection.execute(text("SELECT * FROM maple_tokens")) for v in row
        )
    assert issued.secret not in dumped
    assert token_digest(issued.secret) in dumped
    assert issued.token.expires_at == "2026-04-01T00:00:00.000000Z"


def test_a_revoked_token_stays_listed_revoked(tokens: SqlTokenStore) -> None:
    repository = fresh_repository()
    issued = tokens.issue(
        repository, TokenScope.WRITE, datetime(2026, 4, 1, tzinfo=UTC) + timedelta(days=1)
    )
    revoked = tokens.revoke(issued.token.id)
    assert revoked.revoked_at is not None
    assert tokens.find(issued.secret) == revoked
    assert tokens.revoke(issued.token.id).revoked_at == revoked.revoked_at  # once
    with pytest.raises(NotFoundError, match="maple tokens list"):
        tokens.revoke("tok_nope")


# -- health ------------------------------------------------------------------------------------


def test_a_healthy_database_is_reachable_migrated_and_notifying(database: Database) -> None:
    health = check_database(database)
    assert health.ok, health.problem
    assert (health.reachable, health.revision, health.wanted) == (
        True,
        SCHEMA_REVISION,
        SCHEMA_REVISION,
    )
    expected = None if database.dialect is Dialect.SQLITE else True
    assert health.notifications is expected
    assert health.to_json()["ok"] is True


def test_an_unmigrated_or_unreachable_database_says_what_to_do(
    unmigrated_url: str, tmp_path: Path
) -> None:
    empty = Database(unmigrated_url)
    try:
        health = check_database(empty)
    finally:
        empty.close()
    assert (health.reachable, health.revision, health.ok) == (True, None, False)
    assert "maple db upgrade" in (health.problem or "")
    gone = Database(f"postgresql://maple:{PASSWORD}@/maple?host={tmp_path / 'nowhere'}")
    health = check_database(gone)
    assert (health.reachable, health.ok) == (False, False)
    assert "could not be used" in (health.problem or "")
    assert PASSWORD not in json.dumps(health.to_json())
