"""Solo mode: the route on 127.0.0.1 behind the pairing checks, for a preview in your browser.

``maple solo <preview-url>`` and the ``start_solo`` tool start a bridge: the route, backed by
the main checkout's ``.maple/`` folder, listening on loopback only. The link they print opens
the preview with the pairing in its fragment; the overlay there sends every request with the
token and its own origin, and :func:`~maple_entrypoints.solo_pairing.solo_refusal` turns
everything else away before the route sees it. Solo comments never count toward the merge gate.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.datastructures import Headers

from maple_adapters.log import ServerLog
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.errors import MapleError
from maple_entrypoints.bootstrap.local import local_checkout
from maple_entrypoints.loopback import listen_on_loopback, serve_in_thread
from maple_entrypoints.route.answers import json_answer
from maple_entrypoints.route.serve import local_options, served_app
from maple_entrypoints.solo_bridges import SoloBridge
from maple_entrypoints.solo_pairing import (
    MEDIA_PATH,
    SoloRequest,
    SoloRules,
    origin_of,
    solo_refusal,
)

__all__ = ["BridgeStartError", "PairingGuard", "start_bridge"]

_ALLOW_METHODS = "GET, POST, PATCH, DELETE"
_ALLOW_HEADERS = "x-maple-solo, content-type, accept"


class BridgeStartError(MapleError):
    """Raised when a bridge could not start listening; the message names the fix."""


class PairingGuard:
    """ASGI middleware: the pairing checks in front of the route, and CORS for the paired origin.

    A refusal is JSON with ``cache-control: no-store`` and no CORS headers, so the browser shows
    the page nothing, and nothing behind the guard runs.
    """

    def __init__(self, app: Any, rules: SoloRules) -> None:
        self.app = app
        self.rules = rules

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Judge one request; pass it on with CORS headers, or refuse it here."""
        if scope["type"] == "websocket":  # the route has none; never let one past the checks
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        path = scope["path"]
        token_query = None
        if scope["method"] == "GET" and path.startswith(MEDIA_PATH):
            values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("maple-solo")
            token_query = values[0] if values else None
        request = SoloRequest(
            method=scope["method"],
            path=path,
            host=headers.get("host"),
            origin=headers.get("origin"),
            referer=headers.get("referer"),
            token_header=headers.get("x-maple-solo") or None,
            token_query=token_query,
        )
        refusal = solo_refusal(request, self.rules)
        if refusal is not None:
            await json_answer({"error": refusal.error}, refusal.status)(scope, receive, send)
            return
        cors = [
            (b"access-control-allow-origin", self.rules.origin.encode()),
            (b"vary", b"Origin"),
        ]
        if scope["method"] == "OPTIONS":
            cors += [
                (b"access-control-allow-methods", _ALLOW_METHODS.encode()),
                (b"access-control-allow-headers", _ALLOW_HEADERS.encode()),
                (b"access-control-max-age", b"600"),
            ]
            if headers.get("access-control-request-private-network") == "true":
                cors.append((b"access-control-allow-private-network", b"true"))
            await send({"type": "http.response.start", "status": 204, "headers": cors})
            await send({"type": "http.response.body", "body": b""})
            return

        async def with_cors(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *cors]}
            await send(message)

        await self.app(scope, receive, with_cors)


def start_bridge(
    preview_url: str,
    *,
    port: int = 0,
    cwd: Path | None = None,
    log: ServerLog | None = None,
    classifier: FeedbackClassifier | None = None,
) -> SoloBridge:
    """Start a bridge paired with ``preview_url``'s origin, in a background thread.

    It serves the local route over the main checkout's ``.maple/``, behind the pairing checks,
    with a new pairing token. The paired reviewer's replies on resolved comments are read by
    ``classifier``, when given.

    Raises:
        InvalidInputError: the address is not http or https.
        BridgeStartError: the port cannot be listened on.
    """
    origin = origin_of(preview_url)
    token = secrets.token_urlsafe(32)
    try:
        sock = listen_on_loopback(port)
    except (OSError, OverflowError) as exc:
        raise BridgeStartError(
            f"The solo bridge cannot listen on 127.0.0.1:{port} "
            f"({getattr(exc, 'strerror', None) or exc}); "
            "choose another --port, or leave it out for a free one."
        ) from None
    rules = SoloRules(port=sock.getsockname()[1], token=token, origin=origin)
    local = local_checkout(cwd or Path.cwd())
    options = local_options(local, log or ServerLog("maple-solo"), classifier=classifier)
    app = PairingGuard(served_app(options), rules)
    try:
        running = serve_in_thread(app, sock, name="maple-solo")
    except RuntimeError as exc:
        raise BridgeStartError(str(exc)) from None
    return SoloBridge(running.url, token, origin, running.stop)
