"""The route's error answers, logged without the caller's token."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from maple_adapters.log import ServerLog
from maple_core.errors import MapleError
from maple_core.text import scrub
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    bearer_token,
    json_answer,
    refusal_for,
)

__all__ = [
    "Failures",
    "Unexpected",
    "described",
    "json_http_error",
]


def described(exc: BaseException, request: Request) -> str:
    """The error for the log: its type and message, with the caller's token scrubbed."""
    token = bearer_token(request)
    return scrub(f"{type(exc).__name__}: {exc}", [token] if token else [])


class Failures:
    """The route's error answers, as Starlette exception handlers, for one log.

    A refusal is answered as raised; one of maple's errors as :func:`refusal_for` says (a
    store's own failure logged, and answered without its message); anything else is a logged
    500 (:class:`Unexpected`). A log line never holds the caller's token.
    """

    def __init__(self, log: ServerLog) -> None:
        self.log = log

    async def refused(self, request: Request, exc: Exception) -> Response:
        """A refusal raised anywhere in a handler."""
        assert isinstance(exc, RouteRefusalError)
        return json_answer({"error": exc.error}, exc.status)

    async def maple_error(self, request: Request, exc: Exception) -> Response:
        """One of maple's errors: a caller's mistake answered with its message, else a 5xx."""
        assert isinstance(exc, MapleError)
        known = refusal_for(exc)
        if known is None or known.status >= 500:
            self.log.error("The Maple route failed.", failure=described(exc, request))
        if known is None:
            return json_answer({"error": "Something went wrong"}, 500)
        return json_answer({"error": known.error}, known.status)


class Unexpected:
    """ASGI middleware: a failure no exception handler took is logged and answered 500.

    It sits inside Starlette's server-error middleware, which would answer too but then
    re-raise the error for the server to print, unscrubbed.
    """

    def __init__(self, app: ASGIApp, log: ServerLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the route; on a failure, log it and answer 500 unless an answer has begun."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            self.log.error("The Maple route failed.", failure=described(exc, Request(scope)))
            if not started:
                await json_answer({"error": "Something went wrong"}, 500)(scope, receive, send)


async def json_http_error(request: Request, exc: Exception) -> Response:
    """Starlette's 404 and 405 as the route's JSON errors."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    error = {404: "Not found", 405: "Method not allowed"}.get(status, "Something went wrong")
    return json_answer({"error": error}, status)
