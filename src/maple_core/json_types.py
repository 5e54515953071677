"""JSON value types shared by the core's records."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeAlias

__all__ = ["JsonObject", "JsonValue", "MAX_DEPTH", "nests_deeper_than", "without_none"]

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""Any value ``json.loads`` can return."""

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object; records keep the keys they do not know in one of these."""

MAX_DEPTH = 64
"""How deeply a record's JSON may nest: more than any comment needs, far less than what breaks a
reader (Python's recursion, pydantic's serializer at about 250, other tools' parsers)."""


def nests_deeper_than(value: JsonValue, limit: int = MAX_DEPTH) -> bool:
    """True when ``value`` has arrays or objects nested more than ``limit`` levels deep."""
    stack: list[tuple[JsonValue, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        children: Iterable[JsonValue] = item.values() if isinstance(item, dict) else item
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def without_none(fields: Mapping[str, JsonValue]) -> JsonObject:
    """``fields`` in their order, those that are ``None`` left out (an absent optional field)."""
    return {key: value for key, value in fields.items() if value is not None}
