"""A writer process for the reliability tests and bench: append N comments, print each id.

``append_worker.py WHERE COUNT TAG [--on-go]``: WHERE is a git checkout (the file store) or a
database URL (the SQL store, repository ``acme/load``). With ``--on-go`` it prints ``ready``
once imported and waits for a line on stdin before appending, so a benchmark can time the
appends alone.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from maple_adapters.system import SystemClock
from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from maple_core.page_context import Context
from maple_core.ports import CommentStore

SQL_REPOSITORY = "acme/load"
WORKER = Path(__file__)


def append_concurrently(where: str, processes: int = 8, count: int = 250) -> set[str]:
    """Run ``processes`` writers at once, ``count`` appends each; the ids they acknowledged."""
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), where, str(count), f"w{i}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    acknowledged: set[str] = set()
    for worker in workers:
        out, _ = worker.communicate(timeout=300)
        assert worker.returncode == 0
        acknowledged.update(out.split())
    return acknowledged


def append_until_killed(where: str, tag: str, rng: random.Random) -> set[str]:
    """One writer, killed with SIGKILL at a random point after its first append; the ids it
    acknowledged before it died."""
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), where, "100000", tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdout is not None
    first = worker.stdout.readline()  # the writer is in its append loop now
    assert first, "the writer died before its first append"
    time.sleep(rng.uniform(0, 0.03))
    os.kill(worker.pid, signal.SIGKILL)
    out, _ = worker.communicate(timeout=30)
    assert worker.returncode == -signal.SIGKILL
    return {first.strip(), *out.split()}


def store_at(where: str) -> CommentStore:
    """The file store of a checkout, or the SQL store a database URL names."""
    if "://" in where:
        from maple_adapters.sql.database import Database
        from maple_adapters.sql.store import SqlCommentStore

        return SqlCommentStore(Database(where), SystemClock(), SQL_REPOSITORY)
    from maple_adapters.files.store import FileCommentStore

    return FileCommentStore(SystemClock(), Path(where))


def main() -> None:
    where, count, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    store = store_at(where)
    if len(sys.argv) > 4 and sys.argv[4] == "--on-go":
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        sys.stdin.readline()
    for i in range(count):
        stored = store.append(
            NewComment(
                branch="feat/load",
                body=f"{tag} comment {i}: the header wraps at 375px",
                anchor=Anchor(source="src/Header.tsx:12:5", component="Header"),
                context=Context(
                    url="http://localhost:3000/", viewport_width=375, viewport_height=812
                ),
            )
        )
        sys.stdout.write(stored.id + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
