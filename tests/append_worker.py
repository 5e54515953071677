"""A writer process for the reliability tests and bench: append N comments, print each id.

``append_worker.py WHERE COUNT TAG [--on-go]``: WHERE is a git checkout (the file store) or a
database URL (the SQL store, repository ``acme/load``). With ``--on-go`` it prints ``ready``
once imported and waits for a line on stdin before appending, so a benchmark can time the
appends alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

from maple_adapters.system import SystemClock
from maple_core.comments import Anchor, Context, NewComment
from maple_core.ports import CommentStore

SQL_REPOSITORY = "acme/load"


def store_at(where: str) -> CommentStore:
    """The file store of a checkout, or the SQL store a database URL names."""
    if "://" in where:
        from maple_adapters.sql import Database, SqlCommentStore

        return SqlCommentStore(Database(where), SystemClock(), SQL_REPOSITORY)
    from maple_adapters.files import FileCommentStore

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
