"""Reading a record's JSON fields: each one of the type it must be, or an error naming it."""

from __future__ import annotations

from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue

__all__ = [
    "Number",
    "kind_of",
    "number_or_none",
    "object_of",
    "object_or_none",
    "optional_str",
    "put_field",
    "required_str",
    "str_or_none",
]

Number = int | float
"""A JSON number as Python reads it."""


def object_of(value: JsonValue, what: str) -> JsonObject:
    """Return ``value`` as a JSON object, or raise naming ``what`` it should have been."""
    if not isinstance(value, dict):
        raise InvalidRecordError(f"{what} must be a JSON object, not {kind_of(value)}")
    return value


def optional_str(obj: JsonObject, key: str, what: str) -> str | None:
    """Return ``obj[key]`` when it is a string, ``None`` when absent; raise on another type."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise InvalidRecordError(f"{what}.{key} must be a string, not {kind_of(value)}")


def required_str(obj: JsonObject, key: str, what: str) -> str:
    """Return ``obj[key]`` as a string, or raise naming the missing key."""
    value = obj.get(key)
    if isinstance(value, str):
        return value
    raise InvalidRecordError(f"{what} needs a string {key!r}; it has {kind_of(value)}")


def kind_of(value: object) -> str:
    """How an error message names a JSON value's type (``a string``, ``nothing``…)."""
    if value is None:
        return "nothing"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number"
    )


def put_field(out: JsonObject, key: str, value: JsonValue) -> None:
    """Set ``out[key]`` to ``value`` unless it is ``None`` (an absent field stays absent)."""
    if value is not None:
        out[key] = value


def str_or_none(value: JsonValue) -> str | None:
    """``value`` when it is a string, else ``None``: a field read leniently."""
    return value if isinstance(value, str) else None


def number_or_none(value: JsonValue) -> Number | None:
    """``value`` when it is a number (not a boolean), else ``None``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def object_or_none(value: JsonValue) -> JsonObject | None:
    """``value`` when it is a JSON object, else ``None``."""
    return value if isinstance(value, dict) else None
