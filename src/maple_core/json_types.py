"""JSON value types shared by the core's records."""

from __future__ import annotations

from typing import TypeAlias

__all__ = ["JsonObject", "JsonValue"]

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
"""Any value ``json.loads`` can return."""

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object; records keep the keys they do not know in one of these."""
