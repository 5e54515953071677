"""The databases the SQL store's tests run on: a real PostgreSQL and a SQLite file.

Each is migrated once per session with ``maple db upgrade``'s own function; a store made for
one test keeps its comments under a repository of its own, so tests never see each other's.
The fixtures are registered for the whole suite by the repository's ``conftest.py``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from maple_adapters.sql import Database, upgrade
from tests.postgres import MISSING, Cluster, find_binaries

__all__ = ["fresh_repository", "postgres", "postgres_database", "sqlite_database"]


def fresh_repository() -> str:
    """A repository name no other test uses."""
    return f"acme/web-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """One PostgreSQL server for the run, started from the machine's binaries."""
    binaries = find_binaries()
    if binaries is None:
        pytest.skip(MISSING)
    cluster = Cluster(binaries)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def postgres_database(postgres: Cluster) -> Iterator[Database]:
    """A migrated database on the run's PostgreSQL, shared by the tests (one repository each)."""
    database = Database(postgres.create_database("maple_tests"))
    upgrade(database)
    yield database
    database.close()


@pytest.fixture(scope="session")
def sqlite_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """A migrated SQLite file shared by the tests (one repository each)."""
    path: Path = tmp_path_factory.mktemp("sqlite") / "maple.db"
    database = Database(f"sqlite:///{path}")
    upgrade(database)
    yield database
    database.close()
