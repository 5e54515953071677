"""How the ``sql`` store keeps a record and a name in a column, and reads a record back.

A comment or an approval is kept as its JSON (ASCII, so every string survives every driver); a
branch or an id is kept as its JSON string's inside (:func:`stored_key`); new rows get ids of a
prefix and 16 random hex digits.
"""

from __future__ import annotations

import json
import uuid

from maple_core.json_types import JsonObject

__all__ = ["loaded_record", "new_id", "record_text", "stored_key"]


def new_id(prefix: str) -> str:
    """A new row's id: ``prefix`` and 16 random hex digits."""
    return prefix + uuid.uuid4().hex[:16]


def stored_key(text: str) -> str:
    """How a branch or an id is kept in a column: as its JSON string's inside.

    Plain names are unchanged; quotes, control characters and anything beyond ASCII (a lone
    surrogate a browser sent, a NUL PostgreSQL cannot hold) are escaped, so every name is
    kept, and two names never share a key.
    """
    return json.dumps(text)[1:-1]


def record_text(value: JsonObject) -> str:
    """A record as it is kept: compact JSON."""
    return json.dumps(value, separators=(",", ":"))  # ASCII: every string survives every driver


_DECODER = json.JSONDecoder()


def loaded_record(record: str) -> JsonObject:
    """A record as maple wrote it: one JSON object.

    Raises:
        ValueError: the record is not one JSON object.
    """
    value, end = _DECODER.raw_decode(record)  # json.loads without its checks and wrapping
    if end != len(record) or not isinstance(value, dict):
        raise ValueError("not one JSON object")
    return value
