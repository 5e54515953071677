"""How the file store writes its ledger: whole, or new comments spliced in before its seal.

Every write leaves each record readable by Maple's writers and, when the file ends as maple
renders it, a seal beside it (the file's identity, where its comment list closes, a hash of the
tail, the newest stamp). An append finds the seal admitting the file as it is and writes only
the new comments into it, instead of parsing and rendering the whole ledger again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from maple_adapters.files.folders import Folder
from maple_adapters.files.ledger import (
    LEDGER,
    SEAL_RECORDS,
    Ledger,
    Seal,
    forget_seal,
    render_comments,
    render_ledger,
)
from maple_core.authors import guest_author
from maple_core.comments import Comment
from maple_core.cursor import latest_stamp
from maple_core.threads import activity_stamps

__all__ = ["admitted_seal", "commit", "splice"]

_GUEST = guest_author()


def commit(folder: Folder, ledger: Ledger) -> None:
    """Write ``ledger`` whole, and its seal (or none, when the file cannot carry one)."""
    # Every write leaves each record readable by Maple's writers (an author and a context).
    repaired = tuple(c.for_maple(_GUEST) for c in ledger.comments)
    ledger = Ledger(repaired, ledger.approvals, ledger.top)
    data, close = render_ledger(ledger)
    written = folder.replace(LEDGER, data)
    if close < 0:
        forget_seal(folder)
        return
    last = latest_stamp(activity_stamps(ledger.comments))
    _seal(folder, written, close, Seal.tail_hash(data, close), last)


def admitted_seal(folder: Folder) -> tuple[Seal, memoryview] | None:
    """The seal and the file's bytes, when the file is exactly what the seal describes."""
    seal = Seal.read(folder)
    if seal is None:
        return None
    try:
        with open(folder.open(LEDGER, os.O_RDONLY), "rb") as handle:
            if not seal.matches(os.fstat(handle.fileno())):
                return None
            data = memoryview(handle.read())
    except OSError:
        return None
    return (seal, data) if seal.admits(data) else None


def splice(folder: Folder, seal: Seal, old: memoryview, stored: Sequence[Comment]) -> None:
    """Write ``stored`` into the sealed file ``old`` just before its list closes, and reseal."""
    insert = b",\n    " + render_comments([c.to_json() for c in stored])
    written = folder.replace(LEDGER, old[: seal.close], insert, old[seal.close :])
    # The bytes after the splice point are unchanged, so the tail's hash still holds.
    _seal(folder, written, seal.close + len(insert), seal.tail_sha256, stored[-1].received_at)


def _seal(
    folder: Folder, written: os.stat_result, close: int, tail: str, last_stamp: str | None
) -> None:
    seal = Seal(
        written.st_ino,
        written.st_size,
        written.st_mtime_ns,
        close,
        tail,
        last_stamp,
        SEAL_RECORDS,
    )
    seal.write(folder)
