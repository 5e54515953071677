"""Bench rows for the sql store: listing 10,000 comments, and 8 writers × 250 appends.

Each figure is set against the file store measured in the same run, on the same machine: the
listing against the file store listing the same 10,000 comments; the writers against 8 file-store
writer processes of 250 appends each. PostgreSQL is a real server the bench starts from the
machine's binaries (commits flushed to disk, as the file store flushes its ledger).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.run import comment, median_seconds, run_writers
from contract_tests.support import make_repo
from maple_adapters.files import FileCommentStore
from maple_adapters.sql import Database, SqlCommentStore, upgrade
from maple_adapters.system import SystemClock
from maple_core.services import list_all
from tests.append_worker import SQL_REPOSITORY
from tests.postgres import MISSING, Cluster, find_binaries

Row = tuple[str, str, str, float, str, bool]
COUNT = 10_000
LIST_BUDGET = 2.0


@contextmanager
def postgres() -> Iterator[Cluster]:
    """A PostgreSQL server for the bench, flushing commits to disk."""
    binaries = find_binaries()
    if binaries is None:
        raise SystemExit(MISSING)
    cluster = Cluster(binaries, fsync=True)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


def _migrated(url: str) -> Database:
    database = Database(url)
    upgrade(database)
    return database


def sql_list_rows() -> list[Row]:
    """Listing 10,000 comments from SQLite and from PostgreSQL, against the file store."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="maple-bench-sql-") as tmp, postgres() as cluster:
        repo = make_repo(Path(tmp) / "repo", "feat/bench")
        FileCommentStore(SystemClock(), repo).append_many([comment(i) for i in range(COUNT)])

        def file_listing() -> object:
            assert len(list_all(FileCommentStore(SystemClock(), repo), "feat/bench")) == COUNT
            return None

        for kind, url in (
            ("SQLite", f"sqlite:///{tmp}/bench.db"),
            ("PostgreSQL", cluster.create_database("bench")),
        ):
            database = _migrated(url)
            store = SqlCommentStore(database, SystemClock(), "acme/web")
            store.append_many([comment(i) for i in range(COUNT)])

            def sql_listing(store: SqlCommentStore = store) -> object:
                assert len(list_all(store, "feat/bench")) == COUNT
                return None

            sql_listing()
            file_listing()
            anchor = median_seconds(file_listing, 15)
            figure = median_seconds(sql_listing, 15)
            database.close()
            ratio = figure / anchor
            rows.append(
                (
                    f"list 10,000 comments, sql store on {kind} (median)",
                    f"{figure * 1000:.1f} ms",
                    f"the file store, same comments: {anchor * 1000:.1f} ms",
                    ratio,
                    f"≤ {LIST_BUDGET:.1f}×",
                    ratio <= LIST_BUDGET,
                )
            )
    return rows


def sql_appends_row() -> Row:
    """8 writer processes × 250 appends on PostgreSQL, against 8 × 250 on the file store."""
    with tempfile.TemporaryDirectory(prefix="maple-bench-sqlw-") as tmp, postgres() as cluster:
        repo = make_repo(Path(tmp) / "repo", "feat/load")
        file_s = run_writers(str(repo), 8, 250)
        url = cluster.create_database("writers")
        database = _migrated(url)
        elapsed = run_writers(url, 8, 250)
        landed = list_all(SqlCommentStore(database, SystemClock(), SQL_REPOSITORY), "feat/load")
        database.close()
    count = len({c.id for c in landed})
    rate, file_rate = count / elapsed, 2000 / file_s
    return (
        "8 processes × 250 appends, sql store on PostgreSQL",
        f"{count} comments, {rate:.0f} appends/s",
        f"the file store, 8 × 250: {file_rate:.0f} appends/s",
        rate / file_rate,
        "all 2,000 land",
        count == 2000,
    )
