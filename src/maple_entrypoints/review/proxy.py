"""``maple review``'s reverse proxy: the app unchanged, plus the overlay and the route beside it.

It owns two paths, ``/__maple/overlay.js`` and ``/__maple/api`` (the route over the main
checkout's ``.maple/``), and forwards everything else to the app as if the browser had asked the
app itself: ``Host``, ``Origin`` and ``Referer`` name the app, responses come uncompressed so an
HTML page can take the overlay's ``<script>`` before ``</body>``, redirects to the app's own
address point back at the proxy, a Content-Security-Policy is relaxed only as far as the overlay
needs, and WebSockets pass through untouched so hot reload keeps working.

It connects only to the app: a request is forwarded only when its target is a plain path (see
:func:`_target_problem`), and the app's URL is built from the app's parsed scheme, host and port
with that path and query set as components, so no target can name another host.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx2 as httpx
from starlette.background import BackgroundTask
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Mount, Route, Router

from maple_core.ports import Clock, FeedbackClassifier
from maple_entrypoints.bootstrap.route import local_route_options
from maple_entrypoints.review.bundle import overlay_script
from maple_entrypoints.review.page import (
    OverlayNeeds,
    allows_capture,
    inject_script,
    meta_policies,
    overlay_nonce,
    relax_header,
    relax_meta_policies,
)
from maple_entrypoints.route.answers import json_answer
from maple_entrypoints.route.app import create_route_app
from maple_entrypoints.server_log import ServerLog

__all__ = ["API_PATH", "OVERLAY_PATH", "review_app"]

OVERLAY_PATH = "/__maple/overlay.js"
API_PATH = "/__maple/api"
REVIEWER_PATH = API_PATH + "/reviewer"  # the proxy's, beside the route's, so CSP allows it
_REVIEWER_COOKIE = "maple-reviewer"
_REVIEWER_ID = re.compile(r"[\w-]{1,100}")
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


_PRINTABLE = re.compile(rb"[\x21-\x7e]*")


def _raw_path(scope: Any) -> bytes:
    """The path as the client sent it (``%2F`` stays ``%2F``), without the query."""
    raw = scope.get("raw_path")
    return bytes(raw) if raw is not None else str(scope["path"]).encode()


def _target_problem(scope: Any) -> str | None:
    r"""Why the proxy will not forward this request, or None when it will.

    Only an origin-form target (RFC 9112 section 3.2.1) is forwarded, as a browser sends it:

    - the method is not CONNECT (a tunnel is never a request to the app);
    - the path starts with exactly one ``/``, so nothing comes before it: no absolute-form
      ``http://host/…``, no ``host:port``, ``*`` or ``@host/…``, no digit that would extend the
      app's port; and not ``//``, which a URL parser reads as a host;
    - no ``.`` or ``..`` segment (a browser resolves them before sending; the URL library would,
      and ``/a/..//host`` would become ``//host``);
    - no backslash in the path (browsers and many servers read ``\`` as ``/``);
    - no ``#`` anywhere (a fragment never travels in a request);
    - path and query only printable ASCII (a browser percent-encodes everything else).

    An ``@`` or ``:`` after the first ``/`` is an ordinary path (``/@vite/client``), and the query
    may hold anything printable but ``#``.
    """
    if scope["type"] == "http" and scope["method"] == "CONNECT":
        return "CONNECT is refused: the review proxy opens no tunnels, it forwards paths."
    path = _raw_path(scope)
    query = bytes(scope.get("query_string", b""))
    if not path.startswith(b"/"):
        return (
            "The request target must start with / (a path on the app), not a URL, a host or *: "
            "the review proxy forwards only to the app."
        )
    if path.startswith(b"//"):
        return "The request target must not start with //, which names a host, not a path."
    if not (_PRINTABLE.fullmatch(path) and _PRINTABLE.fullmatch(query)):
        return (
            "The request target must be printable ASCII; a browser percent-encodes anything else."
        )
    if b"#" in path or b"#" in query:
        return "The request target must not hold # (a fragment never travels in a request)."
    if b"\\" in path:
        return "The request target's path must not hold a backslash, which browsers read as /."
    if any(segment in (b".", b"..") for segment in path.split(b"/")):
        return "The request target's path must not hold a . or .. segment."
    return None


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
        path = _raw_path(scope)
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


async def _reviewer(request: Request) -> Response:
    """Who this browser reviewed as on any port of the proxy: the overlay's cookie, read back.

    The cookie is the browser's (path ``/__maple/``, so the app never receives it); only its
    shape is checked here, and nothing else is answered, so a page learns nothing it could not
    read from its own cookie jar through the overlay.
    """
    kept = unquote(request.cookies.get(_REVIEWER_COOKIE, ""))  # the overlay percent-encodes it
    reviewer: dict[str, Any] | None = None
    try:
        value = json.loads(kept) if 0 < len(kept) <= 1000 else None
    except ValueError:
        value = None
    if (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and _REVIEWER_ID.fullmatch(value["id"])
    ):
        name = value.get("name")
        reviewer = {
            "id": value["id"],
            "name": name[:80] if isinstance(name, str) else "",
            "hideResolved": value.get("hideResolved") is True,
            "folded": value.get("folded") is True,
        }
    return json_answer({"reviewer": reviewer}, 200)


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
    options = local_route_options(
        cwd, clock, log or ServerLog("maple-review"), client_authors=True, classifier=classifier
    )
    forwarder = _Forwarder(upstream, branch, (sources or cwd).resolve())

    @contextlib.asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[None]:
        try:
            yield
        finally:  # the pooled connections to the app close with the server, not at a later GC
            await forwarder.client.aclose()

    return _LocalOnlyGuard(
        Router(
            routes=[
                Route(OVERLAY_PATH, _overlay, methods=["GET", "HEAD"]),
                Route(REVIEWER_PATH, _reviewer, methods=["GET"]),
                Mount(API_PATH, app=create_route_app(options)),
            ],
            default=forwarder,
            lifespan=lifespan,
        )
    )


_RETRIED = frozenset({"GET", "HEAD", "OPTIONS"})  # safe to ask the app twice

_LOCAL_HOST = re.compile(r"(127\.0\.0\.1|localhost)(:[0-9]{1,5})?")


class _LocalOnlyGuard:
    """Only a plain path, asked by this machine's own pages, gets through the proxy.

    A request whose target is not origin-form (see :func:`_target_problem`) is refused with 400,
    before anything is forwarded. The ``Host`` must be loopback and an optional port (a
    DNS-rebinding page names its own host), a write to the route must come from the proxy's own
    origin (another site's form or fetch carries its own ``Origin``), and a WebSocket must too,
    so no other site can reach the app through it; those are refused with 403.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        own = f"http://{host}"
        writing = scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS")
        status = 403
        if problem := _target_problem(scope):
            refusal, status = problem, 400
        elif not _LOCAL_HOST.fullmatch(host):
            refusal = "This is not the review proxy's address."
        elif scope["type"] == "websocket" and origin not in (None, own):
            refusal = "This origin may not open a socket through the review proxy."
        elif writing and scope["path"].startswith(API_PATH) and origin != own:
            refusal = "Only the reviewed page may write comments."
        else:
            await self.app(scope, receive, send)
            return
        answer = json_answer({"error": refusal}, status)
        if scope["type"] == "http" or "websocket.http.response" in scope.get("extensions", {}):
            await answer(scope, receive, send)  # for a WebSocket, an HTTP answer to its handshake
        else:
            await send({"type": "websocket.close", "code": 1008})  # the server answers 403
