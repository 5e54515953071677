"""Maple Mock recipes: read, normalise and describe the state a page was rendered in."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from maple_core.errors import InvalidRecordError
from maple_core.json_types import JsonObject, JsonValue, without_none

__all__ = ["Recipe", "compact_json", "describe_identity", "parse_recipe"]

_KEY = re.compile(r"^[a-z]+:\S")
_STATES = frozenset(
    {"empty", "error", "forbidden", "loading", "one", "many", "long", "sparse", "mixed"}
)


@dataclass(frozen=True, slots=True)
class Recipe:
    """A normalised recipe (always version 2), keys in Maple's order."""

    calls: tuple[tuple[str, str], ...] = ()
    flags: JsonObject | None = None
    identity: JsonObject | None = None
    route: str | None = None
    request: str | None = None

    def to_json(self) -> JsonObject:
        """Maple's normalised recipe: version, calls, flags, as, route, request."""
        optional = {
            "flags": self.flags,
            "as": self.identity,
            "route": self.route,
            "request": self.request,
        }
        return {
            "version": 2,
            "calls": [{"key": k, "state": s} for k, s in self.calls],
            **without_none(optional),
        }


def _bad(detail: str) -> InvalidRecordError:
    return InvalidRecordError(f"The comment's Maple Mock recipe is unreadable: {detail}.")


def _calls(value: JsonValue) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise _bad("calls must be an array")
    calls: list[tuple[str, str]] = []
    for call in value:
        key = call.get("key") if isinstance(call, dict) else None
        state = call.get("state") if isinstance(call, dict) else None
        if not isinstance(key, str) or not _KEY.match(key):
            raise _bad(f"a call key must look like 'trpc:name', not {key!r}")
        if state not in _STATES:
            raise _bad(f"{state!r} is not a mock state")
        if any(key == seen for seen, _ in calls):
            raise _bad(f"the call {key} appears twice")
        calls.append((key, str(state)))
    return tuple(calls)


def _identity(value: JsonValue) -> JsonObject | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _bad("as must be an object")
    out: JsonObject = {}
    role = value.get("role")
    if role is not None:
        if not isinstance(role, str) or not role.strip():
            raise _bad("as.role must be a non-blank string")
        out["role"] = role
    permissions = value.get("permissions")
    if permissions is not None:
        if not isinstance(permissions, dict) or not all(
            isinstance(v, bool) for v in permissions.values()
        ):
            raise _bad("as.permissions must map names to true or false")
        out["permissions"] = permissions
    if not out:
        raise _bad("as needs a role or permissions")
    return out


def parse_recipe(value: JsonValue) -> Recipe:
    """Read a stored recipe (version 1 or 2), dropping unknown keys.

    Raises:
        InvalidRecordError: the recipe is not one Maple could have written.
    """
    if not isinstance(value, dict):
        raise _bad("it is not an object")
    version = value.get("version")
    if version not in (1, 2) or isinstance(version, bool):
        raise _bad(f"version {version!r} is not 1 or 2")
    flags = value.get("flags")
    if flags is not None and not isinstance(flags, dict):
        raise _bad("flags must be an object")
    route = value.get("route")
    if route is not None and (not isinstance(route, str) or not route.startswith("/")):
        raise _bad("route must start with /")
    request = value.get("request")
    if request is not None and not isinstance(request, str):
        raise _bad("request must be a string")
    return Recipe(
        calls=_calls(value.get("calls", [])),
        flags=flags,
        identity=_identity(value.get("as")),
        route=route,
        request=request,
    )


def describe_identity(identity: JsonObject | None) -> str | None:
    """``barista, without roast:delete``: the role, then each permission; ``None`` when empty."""
    if not identity:
        return None
    parts: list[str] = []
    role = identity.get("role")
    if isinstance(role, str):
        parts.append(role)
    permissions = identity.get("permissions")
    if isinstance(permissions, dict):
        parts += [f"{'with' if v else 'without'} {k}" for k, v in permissions.items()]
    return ", ".join(parts) or None


def compact_json(value: JsonValue) -> str:
    """JSON as JavaScript's ``JSON.stringify`` writes it: no spaces, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
