"""A ledger file's records as plain JSON, read with the standard library alone.

The file store builds comment values from these records; the Stop hook, which must start as fast
as a bare interpreter, uses them as they are. The file is read without following a symbolic link
from ``.maple`` down.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from maple_adapters.files.folders import read_beneath
from maple_core.errors import CorruptLedgerError
from maple_core.quickjson import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_core.json_types import JsonObject as Record
    from maple_core.json_types import JsonValue

__all__ = [
    "CLAIMS",
    "CLAIMS_LOCK",
    "CLAIMS_READ_TIMEOUT_S",
    "Records",
    "blocking_records",
    "claims_beside",
    "corrupt",
    "parse_claims",
    "parse_records",
    "read_records",
]

CLAIMS = "claims.json"
"""The file beside a ledger holding its claims (see ``maple_adapters.files.claims``)."""
CLAIMS_LOCK = CLAIMS + ".lock"
"""Its lock: a writer holds it exclusively, a reader shares it (the file is written in place)."""
CLAIMS_READ_TIMEOUT_S = 2.0
"""How long a reader waits for a writer of the claims (who holds it for well under that)."""


class Records:
    """The ledger's comment and approval records and its other top-level keys, in file order."""

    __slots__ = ("approvals", "comments", "top")

    def __init__(
        self,
        comments: list[Record] | None = None,
        approvals: list[Record] | None = None,
        top: list[tuple[str, JsonValue]] | None = None,
    ) -> None:
        self.comments: list[Record] = comments or []
        self.approvals: list[Record] = approvals or []
        self.top: list[tuple[str, JsonValue]] = top or [("version", 1)]


def corrupt(path: str, detail: str, operation: str) -> CorruptLedgerError:
    """Maple's refusal of a file that is not a ledger, with what is wrong in the middle."""
    return CorruptLedgerError(
        f"{path} is not a Maple comments file ({detail}). "
        "Fix or delete it; Maple will not overwrite it.",
        store="file",
        operation=operation,
    )


def parse_records(path: str, data: bytes, operation: str) -> Records:
    """Parse a ledger file's bytes, checking its shape.

    Raises:
        CorruptLedgerError: not JSON, not an object, or its comments or approvals are not arrays
            of objects.
    """
    try:
        doc = loads(data)
    except (ValueError, UnicodeDecodeError):
        raise corrupt(path, "it is not JSON", operation) from None
    if not isinstance(doc, dict):
        raise corrupt(path, "it is not a JSON object", operation)
    comments = doc.get("comments")
    approvals = doc.get("approvals", [])
    if not isinstance(comments, list):
        raise corrupt(path, "its comments are not an array", operation)
    if not isinstance(approvals, list):
        raise corrupt(path, "its approvals are not an array", operation)
    top = [(k, v) for k, v in doc.items() if k not in ("comments", "approvals")]
    return Records(
        _objects(comments, "comment", path, operation),
        _objects(approvals, "approval", path, operation),
        top,
    )


def _objects(items: list[JsonValue], kind: str, path: str, operation: str) -> list[Record]:
    objects: list[Record] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise corrupt(path, f"{kind} {index + 1} is not an object", operation)
        objects.append(item)
    return objects


def read_records(path: str, operation: str = "list") -> Records:
    """Read the ledger at ``path``; a missing file is an empty ledger.

    Raises:
        CorruptLedgerError: the file is not a ledger.
        UnsafePathError: the file, or a folder from ``.maple`` down to it, is a symbolic link.
    """
    data = read_beneath(path, operation)
    if data is None:
        return Records()
    return parse_records(path, data, operation)


def parse_claims(data: bytes) -> dict[str, Record]:
    """A claims file's entries by comment id; anything unreadable holds no claims."""
    try:
        doc = loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return {}
    claims = doc.get("claims") if isinstance(doc, dict) else None
    if not isinstance(claims, dict):
        return {}
    return {k: v for k, v in claims.items() if isinstance(v, dict)}


def claims_beside(path: str) -> dict[str, Record]:
    """The claims kept beside the ledger at ``path`` (none when there is no claims file).

    Raises:
        UnsafePathError: the file, or a folder from ``.maple`` down to it, is a symbolic link.
    """
    data = read_beneath(
        os.path.join(os.path.dirname(path), CLAIMS),
        "list",
        beside=(CLAIMS_LOCK, CLAIMS_READ_TIMEOUT_S),
    )
    return parse_claims(data) if data is not None else {}


def blocking_records(path: str, branch: str, statuses: Collection[str]) -> list[Record]:
    """The branch's comments in ``statuses``, newest first by ``createdAt`` (stable, as Maple).

    A record without a string id is left out: nobody could resolve it, so it must not hold the
    agent (and one bad record never hides the others). Each record carries its claim from the
    claims file beside the ledger under ``claim`` (a ``claim`` the ledger's record holds itself
    is none).

    Raises:
        CorruptLedgerError: the file is not a ledger.
        UnsafePathError: the file, or a folder from ``.maple`` down to it, is a symbolic link.
    """
    records = read_records(path, "list")
    mine = [
        r
        for r in records.comments
        if r.get("branch") == branch
        and r.get("status", "open") in statuses
        and isinstance(r.get("id"), str)
    ]
    if mine:
        claims = claims_beside(path)
        for record in mine:
            claim = claims.get(str(record["id"]))
            if claim is not None:
                record["claim"] = claim
            elif "claim" in record:
                del record["claim"]
    return sorted(mine, key=lambda r: str(r.get("createdAt") or ""), reverse=True)
