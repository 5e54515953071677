"""The handshake's answers, recorded from the MCP SDK and replayed by exact request.

``maple-mcp`` answers a client's first requests before the SDK has loaded (see
:mod:`~maple_entrypoints.mcp_start`). It can only do so with the answer the SDK itself gave to the
same request in the same conversation, so this module says, for each line a client sends, which
recorded answer (if any) is that answer:

- Only the methods of :data:`HANDSHAKE_METHODS` are recorded: their answers depend on nothing but
  the server's definitions, the protocol era and the request (no store, no clock, no client).
- A request's **key** is the conversation so far, its method and its params as canonical JSON.
  The conversation is what the SDK's answer can depend on: ``fresh`` before the first request;
  after a first ``initialize``, the handshake era of exactly those params (and whether
  ``notifications/initialized`` arrived); after a first request carrying the 2026-07-28
  envelope, the modern era, where every request stands alone. Anything else (a malformed line,
  a response, a second ``initialize``, an unusual shape) ends the replay for the connection:
  every later line goes to the SDK alone.
- A line is only matched when the SDK would read it as the same JSON: strict UTF-8, no carriage
  return (the SDK's reader splits lines there too), no duplicate keys, no floats, no top-level
  key beyond ``jsonrpc``, ``id``, ``method`` and ``params``.

An answer is the SDK's own line: its **start** (up to and with the request's id) and its **tail**
(the rest, recorded byte for byte); a replayed answer is the same start with the client's id, then
the tail (:func:`answer_line`). Most requests are answered by a response; ``subscriptions/listen``
(:data:`ACKNOWLEDGED`) by an acknowledgement notification carrying its id, after which it stays
open with the SDK.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ACKNOWLEDGED",
    "Conversation",
    "HANDSHAKE_METHODS",
    "Message",
    "answer_heads",
    "answer_line",
    "head_of",
    "id_token",
    "is_acknowledgement",
    "key_method",
    "line_start",
    "parse_line",
    "split_answer",
    "with_id",
]

HANDSHAKE_METHODS = frozenset(
    {
        "initialize",
        "server/discover",
        "subscriptions/listen",
        "ping",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    }
)
"""The requests whose answers are recorded: each depends only on the server's definitions."""
ACKNOWLEDGED = frozenset({"subscriptions/listen"})
"""Requests the SDK first answers with a notification carrying their id, and keeps open."""

MODERN_KEY = "io.modelcontextprotocol/protocolVersion"
"""The ``_meta`` key that marks a 2026-07-28 request (the SDK's era test)."""

_SIMPLE_ID = re.compile(r"[A-Za-z0-9_.:/-]{1,128}")
_MAX_SAFE_INT = 2**53
_RESPONSE = '{"jsonrpc":"2.0","id":'
_ACKNOWLEDGEMENT = (
    '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged",'
    '"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":'
)
_START = re.compile(
    rb'(?:\{"jsonrpc":"2\.0","id":|' + re.escape(_ACKNOWLEDGEMENT.encode()) + rb")"
    rb'(?:"[A-Za-z0-9_.:/-]{1,128}"|-?[0-9]{1,16})(?=[,}])'
)
_ENVELOPE = frozenset({"jsonrpc", "id", "method", "params"})
_ABSENT = object()


@dataclass(frozen=True, slots=True)
class Message:
    """A request (``id`` set) or notification read from one line, plain enough to match exactly."""

    method: str
    params: str
    """The params as canonical JSON, or ``""`` when the message has none."""
    id: int | str | None = None
    modern: bool = False
    """Whether the params carry the 2026-07-28 envelope."""
    value: dict[str, Any] | None = None
    """The parsed message, for :func:`with_id`."""


class _UnusualError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _UnusualError("duplicate key")
    return out


def _no_float(text: str) -> Any:
    raise _UnusualError("float")


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_line(line: bytes) -> Message | None:
    """The message on ``line`` (with its newline or without), or ``None`` when it is unusual."""
    if b"\r" in line:
        return None
    try:
        value = json.loads(
            line.decode("utf-8"),
            object_pairs_hook=_no_duplicates,
            parse_float=_no_float,
            parse_constant=_no_float,
        )
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not set(value) <= _ENVELOPE:
        return None
    method, params = value.get("method"), value.get("params", _ABSENT)
    if value.get("jsonrpc") != "2.0" or not isinstance(method, str):
        return None
    if params is not _ABSENT and not isinstance(params, dict):
        return None
    request_id = value.get("id")
    if "id" in value and (isinstance(request_id, bool) or not isinstance(request_id, int | str)):
        return None
    try:
        canonical = "" if params is _ABSENT else _canonical(params)
        canonical.encode("utf-8")  # a lone surrogate cannot be matched
    except (ValueError, UnicodeEncodeError):
        return None
    meta = params.get("_meta") if isinstance(params, dict) else None
    modern = isinstance(meta, dict) and MODERN_KEY in meta
    return Message(method, canonical, request_id, modern, value)


def id_token(request_id: int | str | None) -> str | None:
    """The ``id`` as the SDK writes it, when it is one a replayed answer may carry."""
    if isinstance(request_id, bool) or request_id is None:
        return None
    if isinstance(request_id, int):
        return str(request_id) if abs(request_id) < _MAX_SAFE_INT else None
    return f'"{request_id}"' if _SIMPLE_ID.fullmatch(request_id) else None


def answer_heads(method: str) -> tuple[str, ...]:
    """How the SDK's first line for a ``method`` request may start, up to the request's id.

    An :data:`ACKNOWLEDGED` request is acknowledged, or answered at once when it is refused.
    """
    return (_ACKNOWLEDGEMENT, _RESPONSE) if method in ACKNOWLEDGED else (_RESPONSE,)


def is_acknowledgement(tail: str) -> bool:
    """Whether a recorded answer is an acknowledgement (so its request is still open)."""
    return tail.startswith("},")


def head_of(tail: str) -> str:
    """The start, up to the request's id, of the answer a recorded ``tail`` ends."""
    return _ACKNOWLEDGEMENT if is_acknowledgement(tail) else _RESPONSE


def line_start(line: bytes) -> str | None:
    """The start of one of the SDK's lines up to a request's id, if it answers a request."""
    found = _START.match(line)
    return found.group().decode() if found else None


def split_answer(line: str, start: str) -> str | None:
    """What follows ``start`` on ``line``, if the line is the SDK's answer that starts so.

    An answer is ``{"jsonrpc":"2.0","id":<id>,"result"|"error":...}``, or for
    :data:`ACKNOWLEDGED` requests the acknowledgement whose subscription id is the request's.
    """
    if not line.startswith(start) or not line.endswith("}"):
        return None
    tail = line[len(start) :]
    shapes = (',"result":', ',"error":') if start.startswith(_RESPONSE) else ("},",)
    return tail if tail.startswith(shapes) else None


def answer_line(start: str, tail: str) -> bytes:
    """A recorded answer: ``start`` (the head and the id) and the recorded ``tail``."""
    return f"{start}{tail}\n".encode()


def key_method(key: str) -> str:
    """The method of a request :class:`Conversation` gave ``key``."""
    return str(json.loads(key)[1])


def with_id(message: Message, request_id: str) -> bytes:
    """``message`` as a line again, its keys in their order, with ``request_id`` for its id."""
    assert message.value is not None
    value = {**message.value, "id": request_id}
    return (json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


class Conversation:
    """Follows one connection's messages and gives each request its key (or none)."""

    def __init__(self) -> None:
        self._state: str | None = "fresh"

    @property
    def replaying(self) -> bool:
        """Whether later requests can still be matched."""
        return self._state is not None

    def key(self, message: Message | None) -> str | None:
        """The key of ``message``'s answer, then the conversation moves past it.

        ``None`` for a notification, a request outside :data:`HANDSHAKE_METHODS`, or once the
        conversation left what can be matched.
        """
        state = self._state
        if state is None:
            return None
        if message is None:
            self._state = None
            return None
        if message.id is None:
            self._notified(state, message.method)
            return None
        if state == "fresh":
            if message.method == "initialize":
                digest = hashlib.sha256(message.params.encode()).hexdigest()
                self._state = f"legacy {digest}"
            elif message.modern:
                state = self._state = "modern"
            else:
                self._state = None
                return None
        elif state.startswith("legacy") and message.method == "initialize":
            self._state = None
            return None
        if message.method not in HANDSHAKE_METHODS:
            return None
        return json.dumps([state, message.method, message.params], ensure_ascii=False)

    def _notified(self, state: str, method: str) -> None:
        if state == "fresh":
            self._state = None  # the SDK keeps it for whichever era comes: do not guess
        elif state.startswith("legacy") and method == "notifications/initialized":
            self._state = state if state.endswith(" initialized") else f"{state} initialized"
