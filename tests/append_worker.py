"""A writer process for the reliability tests and bench: append N comments, print each id.

``append_worker.py REPO COUNT TAG [--on-go]``: with ``--on-go`` it prints ``ready`` once imported
and waits for a line on stdin before appending, so a benchmark can time the appends alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from maple_core.page_context import Context


def main() -> None:
    repo, count, tag = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    store = FileCommentStore(SystemClock(), repo)
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
