"""``comments.json``: reading, rendering and atomically replacing a branch's ledger file.

The file is ``{"version": 1, "comments": [...], "approvals": [...]}`` with 2-space indentation and
a trailing newline, exactly as Maple writes it. A file that is not such a ledger is refused and
never overwritten.

Appends are the hot path, and re-rendering a large file with indentation is slow in Python. So
after every write maple records a *seal* beside the file (its inode, size and times, where the
comments array closes, and the latest arrival stamp). An append that finds the file still
matching its seal splices the new comments in without parsing or re-rendering the rest; any
other writer (Maple itself, an editor) changes the file's identity, and the next append takes
the slow path that reads and validates everything.

Every file is opened in its :class:`~maple_adapters.files.folders.Folder`, never through a
symbolic link.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import asdict, dataclass

from maple_adapters.bulk import without_gc_pauses
from maple_adapters.files.folders import Folder
from maple_adapters.files.records import corrupt, parse_records
from maple_core.approvals import Approval
from maple_core.comments import Comment
from maple_core.errors import InvalidRecordError, UnsafePathError
from maple_core.json_types import JsonObject, JsonValue

__all__ = [
    "LEDGER",
    "LOCK",
    "Ledger",
    "SEAL",
    "SEAL_RECORDS",
    "Seal",
    "forget_seal",
    "read_ledger",
    "render_ledger",
]

LEDGER = "comments.json"
SEAL = LEDGER + ".seal"
LOCK = LEDGER + ".lock"

_COMMENT_INDENT = "\n    "
_CLOSE = b"\n  ]"


@dataclass(frozen=True, slots=True)
class Ledger:
    """A parsed ledger: its comments and approvals, and the file's other top-level keys."""

    comments: tuple[Comment, ...] = ()
    approvals: tuple[Approval, ...] = ()
    top: tuple[tuple[str, JsonValue], ...] = (("version", 1),)


def _parse(path: str, data: bytes, operation: str) -> Ledger:
    with without_gc_pauses():
        return _parse_document(path, data, operation)


def _parse_document(path: str, data: bytes, operation: str) -> Ledger:
    records = parse_records(path, data, operation)
    try:
        comments = tuple([Comment.from_json(c) for c in records.comments])
        approvals = tuple([Approval.from_json(a) for a in records.approvals])
    except InvalidRecordError as exc:
        raise corrupt(path, str(exc), operation) from None
    return Ledger(comments, approvals, tuple(records.top))


def read_ledger(folder: Folder, operation: str = "list") -> Ledger:
    """Read the ledger in ``folder``; a missing file is an empty ledger.

    Raises:
        CorruptLedgerError: the file is not JSON, or its comments are not an array of comments.
        UnsafePathError: the file is a symbolic link.
    """
    try:
        data = folder.read(LEDGER)
    except FileNotFoundError:
        return Ledger()
    return _parse(folder.where(LEDGER), data, operation)


def _utf8(text: str) -> bytes:
    # JavaScript writes half an emoji as a lone surrogate escape ("\\ud83d"); Python reads it
    # into a str that UTF-8 cannot encode. Writing it back as the same escape keeps the file
    # valid JSON that both sides read the same way.
    return text.encode("utf-8", "backslashreplace")


def _dump(value: JsonValue, indent: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", indent)


def render_comments(comments: Sequence[JsonObject]) -> bytes:
    """Render comments as they sit inside the ledger's comments array (no leading newline)."""
    return _utf8(",\n    ".join(_dump(c, _COMMENT_INDENT) for c in comments))


def render_ledger(ledger: Ledger) -> tuple[bytes, int]:
    """Render the whole file; also return the byte offset where the comments array closes."""
    head = ["{"]
    for key, value in ledger.top:
        head.append(f"\n  {json.dumps(key, ensure_ascii=False)}: {_dump(value, chr(10) + '  ')},")
    prefix = _utf8("".join(head)) + b'\n  "comments": ['
    if ledger.comments:
        body = b"\n    " + render_comments([c.to_json() for c in ledger.comments])
        close = len(prefix) + len(body)
        prefix += body + _CLOSE
    else:
        close = -1
        prefix += b"]"
    approvals: list[JsonValue] = [a.to_json() for a in ledger.approvals]
    tail = _utf8(f',\n  "approvals": {_dump(approvals, chr(10) + "  ")}\n}}\n')
    return prefix + tail, close


SEAL_RECORDS = 2
"""What a sealed file's records carry: 2 means every one has Maple's ``author`` and ``context``."""


@dataclass(frozen=True, slots=True)
class Seal:
    """What maple knew about the ledger file it last wrote, to splice the next append in.

    ``inode``, ``size`` and ``mtime_ns`` are taken from the file maple wrote, before it was
    renamed into place, so a file another tool put there since never matches. ``close`` is where
    the comments array closes, and ``tail_sha256`` the hash of the bytes from there to the end:
    the splice point is checked byte for byte before anything is inserted. ``records`` names
    what the writer guaranteed of every record (:data:`SEAL_RECORDS`): a seal from an older
    maple is not admitted, so the next append reads the whole file and repairs what it finds.
    """

    inode: int
    size: int
    mtime_ns: int
    close: int
    tail_sha256: str
    last_stamp: str | None
    records: int = 0

    @staticmethod
    def tail_hash(data: bytes | memoryview, close: int) -> str:
        """The hash the seal keeps of ``data`` from ``close`` to the end."""
        return hashlib.sha256(data[close:]).hexdigest()

    def matches(self, stat: os.stat_result) -> bool:
        """True when the file on disk is, by its identity, the one this seal describes."""
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns) == (
            self.inode,
            self.size,
            self.mtime_ns,
        )

    def admits(self, data: bytes | memoryview) -> bool:
        """True when ``data`` has the comments array closing exactly where the seal says."""
        return (
            len(data) == self.size
            and 0 < self.close < len(data)
            and bytes(data[self.close : self.close + len(_CLOSE)]) == _CLOSE
            and self.tail_hash(data, self.close) == self.tail_sha256
        )

    @classmethod
    def read(cls, folder: Folder) -> Seal | None:
        """The seal in ``folder``, or ``None`` when absent, unreadable or mistyped.

        Raises:
            UnsafePathError: the seal is a symbolic link.
        """
        try:
            data = json.loads(folder.read(SEAL))
            seal = cls(**data)
        except (OSError, ValueError, TypeError):
            return None
        numbers = (seal.inode, seal.size, seal.mtime_ns, seal.close)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            return None
        if not isinstance(seal.tail_sha256, str):
            return None
        if seal.last_stamp is not None and not isinstance(seal.last_stamp, str):
            return None
        if seal.records != SEAL_RECORDS:
            return None
        return seal

    def write(self, folder: Folder) -> None:
        """Record this seal in ``folder``; a seal that cannot be written is removed.

        Best effort: the comments are already saved, and without a seal the next append just
        reads the whole file. The writer refuses a linked seal before writing the ledger, so
        one found here (planted in between) is removed, never written through.
        """
        try:
            fd = folder.open(SEAL, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            try:
                os.write(fd, json.dumps(asdict(self)).encode())
            finally:
                os.close(fd)
        except (OSError, UnsafePathError):
            forget_seal(folder)


def forget_seal(folder: Folder) -> None:
    """Remove the seal in ``folder``, if any, so the next append reads everything."""
    with suppress(OSError):
        folder.unlink(SEAL)
