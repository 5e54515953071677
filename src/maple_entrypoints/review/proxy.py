"""``maple review``'s reverse proxy: the app unchanged, plus the overlay and the route beside it.

It owns two paths, ``/__maple/overlay.js`` and ``/__maple/api`` (the route over the main
checkout's ``.maple/``), and forwards everything else to the app as if the browser had asked the
app itself: ``Host``, ``Origin`` and ``Referer`` name the app, responses come uncompressed so an
HTML page can take the overlay's ``<script>`` before ``</body>``, redirects to the app's own
address point back at the proxy, a Content-Security-Policy is relaxed only as far as the overlay
needs, and WebSockets pass through untouched so hot reload keeps working.

It connects only to the app: a request is forwarded only when its target is a plain path
(:mod:`~maple_entrypoints.review.guard` checks it first), and the app's URL is built from the
app's parsed scheme, host and port with that path and query set as components, so no target can
name another host.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
from starlette.background import BackgroundTask
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route, Router

from maple_adapters.log import ServerLog
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.ports import Clock
from maple_entrypoints.bootstrap.local import local_checkout
from maple_entrypoints.review.bundle import overlay_script
from maple_entrypoints.review.guard import LocalOnlyGuard, raw_path
from maple_entrypoints.review.page import (
    OverlayNeeds,
    allows_capture,
    inject_script,
    meta_policies,
    overlay_nonce,
    relax_header,
    relax_meta_policies,
)
from maple_entrypoints.review.reviewer import reviewer_answer
from maple_entrypoints.route.app import create_route_app
from maple_entrypoints.route.serve import local_options

__all__ = ["API_PATH", "OVERLAY_PATH", "review_app"]

OVERLAY_PATH = "/__maple/overlay.js"
API_PATH = "/__maple/api"
REVIEWER_PATH = API_PATH + "/reviewer"  # the proxy's, beside the route's, so CSP allows it
_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
    }
)


_RETRIED = frozenset({"GET", "HEAD", "OPTIONS"})  # safe to ask the app twice


class _Forwarder:
    """Forwards HTTP and WebSocket traffic to the app at ``upstream``.

    Only the app's scheme, host and port are kept from ``upstream``: the proxy's paths are the
    app's paths.
    """

    def __init__(self, upstream: str, branch: str, sources: Path) -> None:
        parsed = httpx.URL(upstream)
        self.sources = str(sources)
        self.app_url = parsed.copy_with(raw_path=b"/", userinfo=b"", fragment=None)
        self.app_origin = f"{self.app_url.scheme}://{self.app_url.netloc.decode('ascii')}"
        self.branch = branch
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(60.0, connect=10.0),
            # dev servers drop an idle connection after 5 s (Node, uvicorn): reuse none that old
            limits=httpx.Limits(keepalive_expiry=2.0),
        )

    def _url_for(self, scope: Any) -> httpx.URL:
        """The app's URL for this request: the app's scheme, host and port, this path and query.

        The path and query are set as one component of the parsed app URL, never appended to a
        string that is parsed again, so even a target the guard let through cannot move the host.
        """
        query = bytes(scope.get("query_string", b""))
        path = raw_path(scope)
        return self.app_url.copy_with(raw_path=path + b"?" + query if query else path)

    def _outbound_headers(self, headers: Headers, proxy_origin: str) -> list[tuple[str, str]]:
        out = []
        for name, value in headers.items():
            lowered = name.lower()
            if lowered in _HOP:
                continue
            if lowered in ("origin", "referer") and _same_origin(value, proxy_origin):
                value = self.app_origin + value[len(proxy_origin) :]
            out.append((name, value))
        out.append(("host", self.app_url.netloc.decode("ascii")))
        out.append(("accept-encoding", "identity"))  # so an HTML page can be edited
        return out

    def _tag(self, nonce: str | None, capture: bool = True) -> bytes:
        attributes = (
            f'src="{OVERLAY_PATH}" data-maple-branch="{html.escape(self.branch)}" '
            f'data-maple-api="{API_PATH}" data-maple-app="{html.escape(self.app_origin)}" '
            f'data-maple-root="{html.escape(self.sources)}" defer'
        )
        if not capture:  # the page's policy forbids the data: image the capture draws through
            attributes += ' data-maple-capture="off"'
        if nonce:
            attributes += f' nonce="{html.escape(nonce)}"'
        return f"<script {attributes}></script>".encode()

    async def http(self, request: Request) -> Response:
        proxy_origin = f"{request.url.scheme}://{request.url.netloc}"
        has_body = "content-length" in request.headers or "transfer-encoding" in request.headers
        outbound = self.client.build_request(
            request.method,
            self._url_for(request.scope),
            headers=self._outbound_headers(request.headers, proxy_origin),
            # read whole, so the app gets a Content-Length as the browser sent it (dev servers
            # often refuse chunked uploads), and a plain GET carries no body at all
            content=await request.body() if has_body else None,
        )
        try:
            answer = await self._send(outbound, retry=request.method in _RETRIED and not has_body)
        except httpx.HTTPError as exc:
            return Response(
                f"maple review: the app at {self.app_origin} did not answer "
                f"({type(exc).__name__}).",
                status_code=502,
                media_type="text/plain",
            )
        headers = [(k, v) for k, v in answer.headers.multi_items() if k.lower() not in _HOP]
        for index, (name, value) in enumerate(headers):
            if name.lower() == "location" and _same_origin(value, self.app_origin):
                headers[index] = (name, proxy_origin + value[len(self.app_origin) :])
        is_html = answer.headers.get("content-type", "").lower().startswith("text/html")
        destination = request.headers.get("sec-fetch-dest")
        a_page = destination in (None, "document", "iframe")  # not an htmx/Turbo fragment
        if not is_html or not a_page or request.method == "HEAD":
            streamed = StreamingResponse(
                answer.aiter_raw(),
                status_code=answer.status_code,
                background=BackgroundTask(answer.aclose),
            )
            streamed.raw_headers = _encoded(headers)  # repeated headers (Set-Cookie) kept
            return streamed
        body = await answer.aread()  # decoded, so the page can be edited
        await answer.aclose()
        headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
        return self._page(body, answer.status_code, headers, proxy_origin)

    async def _send(self, outbound: httpx.Request, *, retry: bool) -> httpx.Response:
        """The app's answer, asking once more when the app closed the connection unanswered.

        Only a request that may be repeated (``retry``) is asked again, on a new connection: the
        app dropped an idle keep-alive connection just as it was reused.
        """
        try:
            return await self.client.send(outbound, stream=True)
        except httpx.RemoteProtocolError:
            if not retry:
                raise
        return await self.client.send(outbound, stream=True)

    def _page(
        self, body: bytes, status: int, headers: list[tuple[str, str]], proxy_origin: str
    ) -> Response:
        # proxy_origin comes from a Host the guard held to loopback and a port
        needs = OverlayNeeds(proxy_origin + OVERLAY_PATH, proxy_origin + API_PATH + "/")
        policies = [v for k, v in headers if k.lower() == "content-security-policy"]
        every = [*policies, *meta_policies(body)]
        nonce = overlay_nonce(every, lambda: secrets.token_urlsafe(18))
        rewritten = [
            (k, relax_header(v, needs, nonce) if k.lower() == "content-security-policy" else v)
            for k, v in headers
        ]
        tag = self._tag(nonce, allows_capture(every))
        body = inject_script(relax_meta_policies(body, needs, nonce), tag)
        response = Response(body, status_code=status)
        response.raw_headers = [*_encoded(rewritten), (b"content-length", str(len(body)).encode())]
        return response

    async def websocket(self, scope: Any, receive: Any, send: Any) -> None:
        import websockets

        url = self._url_for(scope)
        target = str(url.copy_with(scheme="wss" if url.scheme == "https" else "ws"))
        headers = Headers(scope=scope)
        extra = [(k, v) for k, v in headers.items() if k.lower() in ("cookie", "authorization")]
        protocols = [
            p.strip() for p in headers.get("sec-websocket-protocol", "").split(",") if p.strip()
        ]
        message = await receive()
        if message["type"] != "websocket.connect":
            return
        try:
            upstream = await websockets.connect(
                target,
                additional_headers=extra,
                origin=self.app_origin,  # type: ignore[arg-type]  # the guard let only ours in
                subprotocols=protocols or None,  # type: ignore[arg-type]
                open_timeout=10,
            )
        except Exception:
            await send({"type": "websocket.close", "code": 1011})
            return
        await send({"type": "websocket.accept", "subprotocol": upstream.subprotocol})

        async def to_app() -> None:
            while True:
                incoming = await receive()
                if incoming["type"] == "websocket.disconnect":
                    await upstream.close()
                    return
                data = incoming.get("text")
                await upstream.send(data if data is not None else incoming.get("bytes") or b"")

        async def to_browser() -> None:
            with contextlib.suppress(Exception):
                async for data in upstream:
                    if isinstance(data, str):
                        await send({"type": "websocket.send", "text": data})
                    else:
                        await send({"type": "websocket.send", "bytes": data})
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1000})

        tasks = [asyncio.ensure_future(to_app()), asyncio.ensure_future(to_browser())]
        _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        with contextlib.suppress(Exception):
            await upstream.close()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await self.websocket(scope, receive, send)
        elif scope["type"] == "http":
            response = await self.http(Request(scope, receive))
            await response(scope, receive, send)


def _same_origin(url: str, origin: str) -> bool:
    """True when ``url`` is ``origin`` or a URL under it (``:3000`` is not ``:30001``)."""
    return url == origin or url.startswith((origin + "/", origin + "?", origin + "#"))


def _encoded(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def _overlay(request: Request) -> Response:
    return Response(
        overlay_script(),
        media_type="text/javascript",
        headers={"cache-control": "no-store", "x-content-type-options": "nosniff"},
    )


def review_app(
    upstream: str,
    cwd: Path,
    branch: str,
    *,
    clock: Clock | None = None,
    log: ServerLog | None = None,
    sources: Path | None = None,
    classifier: FeedbackClassifier | None = None,
) -> Any:
    """The proxy in front of the app at ``upstream``, with the route over ``cwd``'s ``.maple/``.

    ``sources`` is the working tree the app's files are in (default ``cwd``): the overlay makes
    the file paths a development build reports relative to it (``src/App.tsx:4:3``). The
    reviewer's replies on resolved comments are read by ``classifier``, when given.
    """
    # the one reviewer at this machine names themselves in the overlay
    local = local_checkout(cwd, clock)
    options = local_options(
        local, log or ServerLog("maple-review"), client_authors=True, classifier=classifier
    )
    forwarder = _Forwarder(upstream, branch, (sources or cwd).resolve())

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:  # the pooled connections to the app close with the server, not at a later GC
            await forwarder.client.aclose()

    return LocalOnlyGuard(
        Router(
            routes=[
                Route(OVERLAY_PATH, _overlay, methods=["GET", "HEAD"]),
                Route(REVIEWER_PATH, reviewer_answer, methods=["GET"]),
                Mount(API_PATH, app=create_route_app(options)),
            ],
            default=forwarder,
            lifespan=lifespan,
        ),
        api_path=API_PATH,
    )
