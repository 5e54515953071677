"""How the route answers: JSON never cached, bodies read under a size limit, errors as JSON."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import anyio
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response

from maple_core.errors import (
    InvalidInputError,
    LedgerFullError,
    MapleError,
    MissingCapabilityError,
    NotFoundError,
    StoreRejectedError,
    StoreUnavailableError,
)
from maple_core.json_types import MAX_DEPTH, JsonValue, nests_deeper_than

__all__ = [
    "RouteRefusalError",
    "bearer_token",
    "json_answer",
    "read_bytes",
    "read_json",
    "refusal_for",
]

_BEARER = re.compile(r"Bearer\s+(\S+)", re.IGNORECASE)
BODY_DEADLINE_S = 30.0
"""How long a request body may take to arrive in full."""


class RouteRefusalError(Exception):
    """An answer other than success, raised anywhere in a handler and turned into JSON."""

    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


def json_answer(
    body: Any,
    status: int = 200,
    headers: dict[str, str] | None = None,
    background: BackgroundTask | None = None,
) -> Response:
    """JSON never cached (``no-store``) and never sniffed as a page (``nosniff``).

    Nothing between keeps a reviewer's data, and no browser reads an error that echoes input
    as HTML. ``background`` runs after the answer is sent (the gate publish after a write).
    """
    return Response(
        # ASCII, so a lone surrogate a browser sent travels escaped; never NaN or Infinity
        json.dumps(body, allow_nan=False).encode(),
        status_code=status,
        media_type="application/json",
        headers={
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
            **(headers or {}),
        },
        background=background,
    )


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (scheme case-insensitive)."""
    match = _BEARER.fullmatch(request.headers.get("authorization", "").strip())
    return match.group(1) if match else None


async def read_bytes(request: Request, limit: int, what: str) -> bytes:
    """The request body, refused with 413 once it passes ``limit`` bytes (declared or sent)."""
    declared = request.headers.get("content-length", "")
    too_large = RouteRefusalError(
        413, f"The {what} is larger than {limit:,} bytes; send a smaller one."
    )
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    # A body that trickles in would hold its connection (and a place under the connection cap)
    # for as long as the sender likes.
    with anyio.move_on_after(BODY_DEADLINE_S) as late:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
    if late.cancelled_caught:
        raise RouteRefusalError(
            408, f"The {what} took longer than {BODY_DEADLINE_S:.0f} s to arrive; send it at once."
        )
    return b"".join(chunks)


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400: JavaScript's JSON.parse reads it, but no JSON can say it back
        raise ValueError(f"the number {text[:40]} is too large for JSON")
    return value


async def read_json(request: Request, limit: int) -> JsonValue:
    """The body as JSON, or a 400 naming what is wrong with it (413 when too large).

    Numbers too large for a double and nesting too deep to read are refused: either would be
    stored as something no JSON reader (the overlay's, Maple's) could read back. The body must
    be declared JSON (``application/json``, or a ``+json`` type): a web page can send any other
    type to any address without asking, so without it any page the reviewer visits could write
    here (a 415 says so).
    """
    declared = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if declared != "application/json" and not declared.endswith("+json"):
        shown = declared[:60] or "no content type"
        raise RouteRefusalError(
            415, f"Send the body as JSON with Content-Type: application/json, not {shown}."
        )
    data = await read_bytes(request, limit, "request body")
    try:
        value: JsonValue = json.loads(
            data.decode("utf-8"), parse_constant=_no_constants, parse_float=_finite
        )
    except UnicodeDecodeError:
        raise RouteRefusalError(400, "The request body is not UTF-8 text; send JSON.") from None
    except RecursionError:
        raise RouteRefusalError(
            400, "The request body nests too deeply; send flatter JSON."
        ) from None
    except ValueError as exc:
        raise RouteRefusalError(400, f"The request body is not valid JSON: {exc}.") from None
    if nests_deeper_than(value):
        raise RouteRefusalError(
            400, f"The request body nests more than {MAX_DEPTH} levels deep; send flatter JSON."
        )
    return value


def refusal_for(exc: MapleError) -> RouteRefusalError | None:
    """The answer for one of maple's own errors, or ``None`` for a failure to log as a 5xx.

    A caller's mistake (bad input, unknown id, an operation the store lacks) is answered with
    its message; a store's own failure is answered without one, since it can name a
    repository or a rate limit.
    """
    if isinstance(exc, NotFoundError):
        return RouteRefusalError(404, str(exc))
    if isinstance(exc, InvalidInputError):
        return RouteRefusalError(400, str(exc))
    if isinstance(exc, MissingCapabilityError):
        return RouteRefusalError(501, str(exc))
    if isinstance(exc, LedgerFullError):  # what to shorten: the caller's to act on
        return RouteRefusalError(413, str(exc))
    if isinstance(exc, StoreRejectedError):
        return RouteRefusalError(
            400,
            "The request was not valid for this store: its backend refused it. Check that the "
            "token sent can read and write the repository's pull-request comments.",
        )
    if isinstance(exc, StoreUnavailableError):
        return RouteRefusalError(503, "The store could not be reached; try again shortly")
    return None
