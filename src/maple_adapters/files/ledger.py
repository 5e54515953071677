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
"""

from __future__ import annotations

import gc
import json
import os
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from maple_adapters.files.records import corrupt, parse_records
from maple_core.approvals import Approval
from maple_core.comments import Comment
from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["Ledger", "Seal", "read_ledger", "render_ledger", "replace_atomically"]

_COMMENT_INDENT = "\n    "
_CLOSE = b"\n  ]"


@dataclass(frozen=True, slots=True)
class Ledger:
    """A parsed ledger: its comments and approvals, and the file's other top-level keys."""

    comments: tuple[Comment, ...] = ()
    approvals: tuple[Approval, ...] = ()
    top: tuple[tuple[str, JsonValue], ...] = (("version", 1),)


@contextmanager
def _without_gc_pauses() -> Iterator[None]:
    """Build many small acyclic objects without the cycle collector walking them mid-way.

    Reading 10,000 comments allocates tens of thousands of dicts and values; pausing the
    collector for the read saves about a sixth of its time, and nothing it builds is cyclic.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _parse(path: Path, data: bytes, operation: str) -> Ledger:
    with _without_gc_pauses():
        return _parse_document(path, data, operation)


def _parse_document(path: Path, data: bytes, operation: str) -> Ledger:
    records = parse_records(str(path), data, operation)
    try:
        comments = tuple([Comment.from_json(c) for c in records.comments])
        approvals = tuple([Approval.from_json(a) for a in records.approvals])
    except InvalidRecordError as exc:
        raise corrupt(str(path), str(exc), operation) from None
    return Ledger(comments, approvals, tuple(records.top))


def read_ledger(path: Path, operation: str = "list") -> Ledger:
    """Read the ledger at ``path``; a missing file is an empty ledger.

    Raises:
        CorruptLedgerError: the file is not JSON, or its comments are not an array of comments.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Ledger()
    return _parse(path, data, operation)


def _dump(value: JsonValue, indent: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", indent)


def render_comments(comments: Sequence[JsonObject]) -> bytes:
    """Render comments as they sit inside the ledger's comments array (no leading newline)."""
    return ",\n    ".join(_dump(c, _COMMENT_INDENT) for c in comments).encode()


def render_ledger(ledger: Ledger) -> tuple[bytes, int]:
    """Render the whole file; also return the byte offset where the comments array closes."""
    head = ["{"]
    for key, value in ledger.top:
        head.append(f"\n  {json.dumps(key, ensure_ascii=False)}: {_dump(value, chr(10) + '  ')},")
    prefix = "".join(head).encode() + b'\n  "comments": ['
    if ledger.comments:
        body = b"\n    " + render_comments([c.to_json() for c in ledger.comments])
        close = len(prefix) + len(body)
        prefix += body + _CLOSE
    else:
        close = -1
        prefix += b"]"
    approvals = [a.to_json() for a in ledger.approvals]
    tail = f',\n  "approvals": {_dump(approvals, chr(10) + "  ")}\n}}\n'.encode()  # type: ignore[arg-type]
    return prefix + tail, close


@dataclass(frozen=True, slots=True)
class Seal:
    """What maple knew about the ledger file it last wrote."""

    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    close: int
    last_stamp: str | None

    @staticmethod
    def path_for(ledger: Path) -> Path:
        """``comments.json.seal`` beside the ledger."""
        return ledger.with_name(ledger.name + ".seal")

    def matches(self, stat: os.stat_result) -> bool:
        """True when the file on disk is still the one this seal describes."""
        return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns) == (
            self.inode,
            self.size,
            self.mtime_ns,
            self.ctime_ns,
        )

    @classmethod
    def read(cls, ledger: Path) -> Seal | None:
        """The seal beside ``ledger``, or ``None`` when absent or unreadable."""
        try:
            data = json.loads(cls.path_for(ledger).read_bytes())
            return cls(**data)
        except (OSError, ValueError, TypeError):
            return None

    def write(self, ledger: Path) -> None:
        """Record this seal beside ``ledger``.

        Written in place: a torn seal does not parse, and an unreadable seal only sends the next
        append down the slow path.
        """
        fd = os.open(self.path_for(ledger), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, json.dumps(asdict(self)).encode())
        finally:
            os.close(fd)


def replace_atomically(target: Path, *chunks: bytes | memoryview) -> None:
    """Write ``chunks`` to a sibling temp file, flush it to disk, and rename it over ``target``.

    A crash leaves the old file or the new one, never half of either.
    """
    temp = target.with_name(f"{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(temp, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
