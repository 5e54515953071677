"""Who and what gets through ``maple review``'s proxy: plain paths, asked by this machine's pages.

The proxy connects only to the app, and only this machine's own pages may use it; these checks
run before anything is forwarded or reaches the route (docs/security.md).
"""

from __future__ import annotations

import re
from typing import Any

from starlette.datastructures import Headers

from maple_entrypoints.route.answers import json_answer

__all__ = ["LocalOnlyGuard", "raw_path", "target_problem"]

_PRINTABLE = re.compile(rb"[\x21-\x7e]*")


def raw_path(scope: Any) -> bytes:
    """The path as the client sent it (``%2F`` stays ``%2F``), without the query."""
    raw = scope.get("raw_path")
    return bytes(raw) if raw is not None else str(scope["path"]).encode()


def target_problem(scope: Any) -> str | None:
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
    path = raw_path(scope)
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


_LOCAL_HOST = re.compile(r"(127\.0\.0\.1|localhost)(:[0-9]{1,5})?")


class LocalOnlyGuard:
    """Only a plain path, asked by this machine's own pages, gets through the proxy.

    A request whose target is not origin-form (see :func:`target_problem`) is refused with 400,
    before anything is forwarded. The ``Host`` must be loopback and an optional port (a
    DNS-rebinding page names its own host), a write to the route must come from the proxy's own
    origin (another site's form or fetch carries its own ``Origin``), and a WebSocket must too,
    so no other site can reach the app through it; those are refused with 403.
    """

    def __init__(self, app: Any, *, api_path: str) -> None:
        self.app = app
        self.api_path = api_path

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Pass the request to the proxy, or refuse it before it reaches anything."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        own = f"http://{host}"
        writing = scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS")
        status = 403
        if problem := target_problem(scope):
            refusal, status = problem, 400
        elif not _LOCAL_HOST.fullmatch(host):
            refusal = "This is not the review proxy's address."
        elif scope["type"] == "websocket" and origin not in (None, own):
            refusal = "This origin may not open a socket through the review proxy."
        elif writing and scope["path"].startswith(self.api_path) and origin != own:
            refusal = "Only the reviewed page may write comments."
        else:
            await self.app(scope, receive, send)
            return
        answer = json_answer({"error": refusal}, status)
        if scope["type"] == "http" or "websocket.http.response" in scope.get("extensions", {}):
            await answer(scope, receive, send)  # for a WebSocket, an HTTP answer to its handshake
        else:
            await send({"type": "websocket.close", "code": 1008})  # the server answers 403
