"""The SQL store under load and crashes: concurrent writers all land, and no acknowledged
comment is lost when a writer, or the PostgreSQL server itself, is killed with SIGKILL."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from maple_adapters.sql.database import Database
from maple_adapters.sql.migrate import upgrade
from maple_adapters.sql.store import SqlCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from maple_core.errors import StoreUnavailableError
from maple_core.listing import list_all
from tests.append_worker import SQL_REPOSITORY, append_concurrently, append_until_killed
from tests.postgres import MISSING, Cluster, find_binaries

NewDatabase = Callable[[], str]


def _sqlite(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    return f"sqlite:///{tmp_path / f'{uuid.uuid4().hex[:8]}.db'}"


def _postgres(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    cluster: Cluster = request.getfixturevalue("postgres")
    return cluster.create_database(f"load_{uuid.uuid4().hex[:8]}")


@pytest.fixture(params=[_sqlite, _postgres], ids=["sqlite", "postgres"])
def database_url(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A new, migrated database of each kind."""
    url: str = request.param(tmp_path, request)
    database = Database(url)
    upgrade(database)
    database.close()
    return url


def stored_ids(url: str) -> set[str]:
    database = Database(url)
    try:
        store = SqlCommentStore(database, SystemClock(), SQL_REPOSITORY)
        return {c.id for c in list_all(store, "feat/load")}
    finally:
        database.close()


def test_eight_processes_times_250_appends_all_land(database_url: str) -> None:
    acknowledged = append_concurrently(database_url)
    assert len(acknowledged) == 2000
    assert stored_ids(database_url) == acknowledged


@pytest.mark.slow
def test_a_writer_killed_at_random_points_never_loses_an_acknowledged_comment(
    database_url: str,
) -> None:
    rng = random.Random(1234)
    acknowledged: set[str] = set()
    for round_ in range(25):
        acknowledged |= append_until_killed(database_url, f"k{round_}", rng)
        missing = acknowledged - stored_ids(database_url)
        assert not missing, f"round {round_}: acknowledged comments lost: {sorted(missing)[:5]}"


@pytest.fixture
def crashable_postgres() -> Iterator[Cluster]:
    """A PostgreSQL of the test's own, flushing commits to disk, that the test may kill."""
    binaries = find_binaries()
    if binaries is None:
        pytest.skip(MISSING)
    cluster = Cluster(binaries, fsync=True)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.mark.slow
def test_the_server_killed_mid_write_loses_no_acknowledged_comment_and_writers_see_clear_errors(
    crashable_postgres: Cluster,
) -> None:
    url = crashable_postgres.create_database("crash")
    database = Database(url)
    upgrade(database)
    store = SqlCommentStore(database, SystemClock(), SQL_REPOSITORY)
    acknowledged: set[str] = set()
    refusals: list[str] = []
    stop = threading.Event()

    def write() -> None:
        while not stop.is_set():
            try:
                acknowledged.add(store.append(NewComment(branch="feat/load", body="x")).id)
            except StoreUnavailableError as exc:
                refusals.append(str(exc))
                time.sleep(0.05)

    writers = [threading.Thread(target=write) for _ in range(4)]
    for writer in writers:
        writer.start()
    try:
        for _ in range(3):
            time.sleep(0.3)
            crashable_postgres.kill()
            time.sleep(0.5)  # writers meet the dead server
            crashable_postgres.start()  # recovers from its write-ahead log
    finally:
        time.sleep(0.3)
        stop.set()
        for writer in writers:
            writer.join(30)
    assert len(acknowledged) > 20
    assert acknowledged <= stored_ids(url)
    assert refusals, "the writers never met the dead server"
    assert all("could not be used" in r and "MAPLE_DATABASE_URL" in r for r in refusals)
    database.close()
