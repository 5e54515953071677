"""Attacks on ``maple review``'s proxy, each sent as raw bytes and named after the property that
stops it (issue 14, point 8).

Anything on this machine, or a page the developer visits, can send raw HTTP to the proxy's
loopback port; httpx would normalise these request targets, so they go over a plain socket. The
app sits on a port ``p`` and an "evil" listener on ``10p + d``, so a target that could re-parse the
app's address (``@host``, a full URL, ``//host``, ``\\\\host``, a digit that extends the port)
would land there, and the listener records every TCP connection it accepts.

- The proxy connects only to the app: only an origin-form target (``/…``) is forwarded, onto the
  app's parsed address; anything else, and CONNECT, is refused with 400, for HTTP and WebSockets
  alike, never with a 500 or a traceback.
- A page's Content-Security-Policy gains only what the overlay needs: its own script and its own
  API on the proxy's origin, nothing the app's own code could use.
"""

from __future__ import annotations

import json
import logging
import random
import socket
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract_tests.support import make_repo
from maple_entrypoints.loopback import ThreadedServer, listen_on_loopback, serve_in_thread
from maple_entrypoints.review import review_app
from tests.loopback import serve_asgi

BRANCH = "feat/secure"
DIGIT = 7  # the evil port is the app's port with this digit appended
LOCKED_POLICY = "default-src 'none'; script-src https://cdn.example; style-src 'unsafe-inline'"
LOCKED_PAGE = b"""<!doctype html><html><head><title>Locked</title></head><body>
<h1>Locked down</h1><p id="own">blocked</p>
<script src="/app.js"></script><img src="/pixel.png" alt="">
</body></html>"""


class Evil:
    """A TCP listener that records every connection it accepts and answers each with a 200."""

    def __init__(self, port: int) -> None:
        self.contacts: list[bytes] = []
        contacts = self.contacts

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                self.request.settimeout(2)
                try:
                    contacts.append(self.request.recv(4096) or b"(connected, sent nothing)")
                    self.request.sendall(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nevil"
                    )
                except OSError:
                    contacts.append(b"(connected)")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class App:
    """The reviewed app: records each request target it is sent and echoes it back."""

    seen: list[bytes] = field(default_factory=list)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            return
        query = scope["query_string"]
        target = scope["raw_path"] + (b"?" + query if query else b"")
        self.seen.append(target)
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.send", "text": target.decode("latin-1")})
            await send({"type": "websocket.close", "code": 1000})
            return
        headers: list[tuple[bytes, bytes]] = [(b"content-type", b"text/plain")]
        body = target
        if scope["path"] == "/locked":
            headers = [
                (b"content-type", b"text/html"),
                (b"content-security-policy", LOCKED_POLICY.encode()),
            ]
            body = LOCKED_PAGE
        elif scope["path"] == "/app.js":
            headers = [(b"content-type", b"text/javascript")]
            body = b'document.getElementById("own").textContent = "app script ran";'
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@dataclass
class Review:
    app: App
    evil: Evil
    app_port: int
    evil_port: int
    proxy: ThreadedServer
    repo: Path

    def clear(self) -> None:
        self.app.seen.clear()
        self.evil.contacts.clear()


def _app_and_evil(app: App) -> tuple[ThreadedServer, Evil, int, int]:
    """The app on a port ``p`` and the evil listener on ``10p + DIGIT``, both free."""
    candidates = list(range(1100, 6553))
    random.shuffle(candidates)
    for port in candidates[:200]:
        try:
            sock = listen_on_loopback(port)
        except OSError:
            continue
        try:
            evil = Evil(port * 10 + DIGIT)
        except OSError:
            sock.close()
            continue
        served = serve_in_thread(
            app, sock, name="test-app", timeout_keep_alive=1, timeout_graceful_shutdown=2
        )
        return served, evil, port, port * 10 + DIGIT
    raise RuntimeError("no free pair of loopback ports p and 10p+7")


@pytest.fixture(scope="module")
def review_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
    repo = make_repo(tmp_path_factory.mktemp("secure") / "shop", BRANCH)
    app = App()
    served, evil, app_port, evil_port = _app_and_evil(app)
    proxy = serve_asgi(review_app(f"http://127.0.0.1:{app_port}", repo, BRANCH))
    yield Review(app, evil, app_port, evil_port, proxy, repo)
    proxy.stop()
    served.stop()
    evil.stop()


@pytest.fixture
def review(review_servers: Review, caplog: pytest.LogCaptureFixture) -> Iterator[Review]:
    """The servers with nothing recorded yet; afterwards, no server logged an error."""
    review_servers.clear()
    yield review_servers
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert errors == [], [r.getMessage() for r in errors]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def error(self) -> str:
        return str(json.loads(self.body)["error"])


def send_raw(
    port: int, method: bytes, target: bytes, *headers: bytes, host: bytes | None = None
) -> Answer:
    """One request over a plain socket, ``target`` exactly as given, read to the end."""
    host = host if host is not None else b"127.0.0.1:%d" % port
    lines = [method + b" " + target + b" HTTP/1.1", b"Host: " + host, *headers]
    if not any(h.lower().startswith(b"connection:") for h in headers):
        lines.append(b"Connection: close")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"\r\n".join(lines) + b"\r\n\r\n")
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except TimeoutError:
            pass  # an upgraded socket the proxy holds open
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parsed = {k.lower(): v for k, v in (h.split(": ", 1) for h in header_lines if ": " in h)}
    if parsed.get("transfer-encoding") == "chunked":
        body = dechunked(body)
    return Answer(int(status_line.split()[1]), parsed, body)


def dechunked(body: bytes) -> bytes:
    out = b""
    while body:
        size, _, body = body.partition(b"\r\n")
        length = int(size, 16)
        out, body = out + body[:length], body[length + 2 :]
        if length == 0:
            break
    return out


WEBSOCKET_UPGRADE = (
    b"Connection: Upgrade",
    b"Upgrade: websocket",
    b"Sec-WebSocket-Version: 13",
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
)


def refused(review: Review, method: bytes, target: bytes, *headers: bytes) -> str:
    """Send an attack; it must get a 400 naming the problem, reaching neither the app nor evil."""
    answer = send_raw(review.proxy.port, method, target, *headers)
    assert review.evil.contacts == [], f"{method!r} {target!r} reached another host"
    assert answer.status == 400, (method, target, answer)
    assert review.app.seen == [], f"{method!r} {target!r} was forwarded to the app"
    return answer.error()


def evil(review: Review) -> bytes:
    return b"127.0.0.1:%d" % review.evil_port


def test_a_userinfo_target_never_reaches_another_host(review: Review) -> None:
    for target in (
        b"@" + evil(review) + b"/x",
        b":secret@" + evil(review) + b"/x",
        b"user:pw@" + evil(review) + b"/x?q=1",
    ):
        assert "must start with /" in refused(review, b"GET", target)


def test_an_absolute_form_target_never_reaches_another_host(review: Review) -> None:
    for target in (
        b"http://" + evil(review) + b"/x",
        b"HTTP://" + evil(review) + b"/x?q=1",
        b"https://" + evil(review) + b"/",
        b"http://127.0.0.1:%d/x" % review.app_port,  # even the app's own URL: not origin-form
    ):
        assert "must start with /" in refused(review, b"GET", target)
    assert "must start with /" in refused(review, b"POST", b"http://" + evil(review) + b"/")


def test_a_network_path_target_never_reaches_another_host(review: Review) -> None:
    for target in (b"//" + evil(review) + b"/x", b"///" + evil(review), b"//x"):
        assert "must not start with //" in refused(review, b"GET", target)


def test_a_backslash_target_never_reaches_another_host(review: Review) -> None:
    for target in (
        b"\\\\" + evil(review) + b"\\x",
        b"/\\" + evil(review) + b"/x",
        b"/\\\\" + evil(review) + b"/x",
        b"/x\\..\\y",
    ):
        error = refused(review, b"GET", target)
        assert "backslash" in error or "must start with /" in error


def test_a_dot_segment_cannot_turn_the_path_into_a_host(review: Review) -> None:
    for target in (b"/..//" + evil(review) + b"/x", b"/a/..//" + evil(review), b"/./x", b"/x/.."):
        assert ". or .. segment" in refused(review, b"GET", target)


def test_a_digit_cannot_extend_the_apps_port(review: Review) -> None:
    assert "must start with /" in refused(review, b"GET", b"%d/x" % DIGIT)
    assert "must start with /" in refused(review, b"GET", b".evil.example/x")


def test_connect_opens_no_tunnel_whatever_its_target(review: Review) -> None:
    for target in (evil(review), b"evil.example:443", b"/x", b"@" + evil(review) + b"/"):
        assert "CONNECT" in refused(review, b"CONNECT", target)


def test_asterisk_and_other_non_path_targets_are_refused(review: Review) -> None:
    assert "must start with /" in refused(review, b"OPTIONS", b"*")
    assert "must start with /" in refused(review, b"GET", b"?next=/x")
    assert "must start with /" in refused(review, b"GET", b"x")


def test_a_target_no_browser_sends_is_refused_not_crashed(review: Review) -> None:
    assert "#" in refused(review, b"GET", b"/x#fragment")
    assert "#" in refused(review, b"GET", b"/x?a=1#fragment")
    for target in (b"/x\x01y", b"/caf\xc3\xa9", b"/x?q=caf\xc3\xa9", b"/x\x7f"):
        answer = send_raw(review.proxy.port, b"GET", target)  # h11 refuses these itself
        assert (answer.status, review.app.seen, review.evil.contacts) == (400, [], [])


def test_a_server_that_passes_any_bytes_still_gets_a_400(review: Review) -> None:
    """h11 refuses control and non-ASCII bytes itself; the proxy does too, under any server."""
    import asyncio

    app = review_app(f"http://127.0.0.1:{review.app_port}", review.repo, BRANCH)

    async def call(raw_path: bytes, query: bytes) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        scope = {
            "type": "http",
            "method": "GET",
            "path": raw_path.decode("latin-1"),
            "raw_path": raw_path,
            "query_string": query,
            "headers": [(b"host", b"127.0.0.1:%d" % review.proxy.port)],
        }

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        return sent

    for raw_path, query in ((b"/caf\xc3\xa9", b""), (b"/x", b"q=caf\xc3\xa9"), (b"/x\x01", b"")):
        start, body = asyncio.run(call(raw_path, query))
        assert start["status"] == 400
        assert "printable ASCII" in json.loads(body["body"])["error"]
    assert review.app.seen == []


def test_an_origin_form_target_reaches_the_app_as_sent(review: Review) -> None:
    for target in (
        b"/x",
        b"/%2F%2F" + evil(review) + b"/x",  # an encoded slash is a path, not a host
        b"/@vite/client",  # an @ after the first / is a path too
        b"/a:b@c/d",
        b"/x?next=//" + evil(review) + b"/&u=a@b\\c&p=http://x",
        b"/",
    ):
        review.clear()
        answer = send_raw(review.proxy.port, b"GET", target)
        assert (answer.status, answer.body) == (200, target)
        assert review.app.seen == [target]
        assert review.evil.contacts == []


def test_a_websocket_to_another_host_is_refused_with_400(review: Review) -> None:
    for target in (
        b"@" + evil(review) + b"/ws",
        b"http://" + evil(review) + b"/ws",
        b"ws://" + evil(review) + b"/ws",
        b"//" + evil(review) + b"/ws",
        b"\\\\" + evil(review) + b"\\ws",
        b"/\\" + evil(review) + b"/ws",
        b"%d/ws" % DIGIT,
        b"/ws#fragment",
    ):
        assert "request target" in refused(review, b"GET", target, *WEBSOCKET_UPGRADE)


def test_a_websocket_with_a_path_still_reaches_the_app(review: Review) -> None:
    from websockets.sync.client import connect

    path = "/ws/a%2Fb?next=//" + evil(review).decode() + "/&u=a@b"
    with connect(f"ws://127.0.0.1:{review.proxy.port}{path}") as ws:
        assert ws.recv(timeout=5) == path
    assert review.app.seen == [path.encode()]
    assert review.evil.contacts == []


def test_only_a_loopback_host_and_port_name_the_proxy(review: Review) -> None:
    port = review.proxy.port
    for host in (
        b"127.0.0.1:%d evil.example" % port,  # would put evil.example into the page's CSP
        b"localhost:x@evil.example",
        b"localhost:%d/evil" % port,
    ):
        answer = send_raw(port, b"GET", b"/x", host=host)
        assert (answer.status, answer.error()) == (403, "This is not the review proxy's address.")
    assert review.app.seen == []
    assert send_raw(port, b"GET", b"/x", host=b"localhost:%d" % port).status == 200


ALPHABET = st.sampled_from(
    ["/", "\\", "@", ":", ".", "#", "?", "%", "%2F", "%5C", "&", "=", "7", "x", "http:", "//"]
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(pieces=st.lists(ALPHABET, min_size=1, max_size=8), with_evil=st.booleans())
def test_no_target_reaches_another_host_or_crashes_the_proxy(
    review: Review, pieces: list[str], with_evil: bool
) -> None:
    review.clear()
    target = "".join(pieces).encode()
    if with_evil:
        target = target[:1] + evil(review) + target[1:]
    answer = send_raw(review.proxy.port, b"GET", target)
    assert review.evil.contacts == [], target
    assert answer.status in (200, 400), (target, answer)
    forwarded = target.startswith(b"/") and not target.startswith(b"//")
    path = target.split(b"?")[0]
    forwarded = forwarded and b"\\" not in path and b"#" not in target
    forwarded = forwarded and not {b".", b".."} & set(path.split(b"/"))
    if forwarded:  # as sent, but for a stray % the URL library escapes as %25
        assert (answer.status, len(review.app.seen)) == (200, 1), target
    else:
        assert (answer.status, review.app.seen) == (400, [])


def directives(policy: str) -> dict[str, list[str]]:
    return {p.split()[0]: p.split()[1:] for p in policy.split(";") if p.strip()}


def test_a_locked_down_policy_gains_only_the_overlay_and_its_api(review: Review) -> None:
    proxy = review.proxy.url
    answer = httpx.get(proxy + "/locked")
    assert answer.status_code == 200
    relaxed = directives(answer.headers["content-security-policy"])
    assert relaxed == {
        "default-src": ["'none'"],  # not widened: images, frames, fonts stay refused
        "script-src": ["https://cdn.example", proxy + "/__maple/overlay.js"],
        "style-src": ["'unsafe-inline'"],
        "connect-src": [proxy + "/__maple/api/"],
    }


def test_the_overlay_runs_on_a_locked_page_and_the_apps_own_scripts_stay_blocked(
    review: Review, browser: Any
) -> None:
    page = browser.new_page()
    page.goto(review.proxy.url + "/locked")
    page.wait_for_selector("[data-maple-overlay] >> button.mode")
    page.click("[data-maple-overlay] >> button.mode")
    page.click("h1")
    page.fill("[data-maple-overlay] >> textarea", "Locked pages too.")
    page.click("[data-maple-overlay] >> button.send")
    page.wait_for_selector(
        '[data-maple-overlay] >> li:has-text("Locked pages too.")', state="attached"
    )
    assert page.text_content("#own") == "blocked"  # the app's script gained nothing
    page.close()
    assert b"/app.js" not in review.app.seen
    assert b"/pixel.png" not in review.app.seen


def _proxy_once(repo: Path) -> int:
    """Serve the proxy, forward one request through it (pooling a connection), stop it; return
    the app's port."""
    served, evil, app_port, _ = _app_and_evil(App())
    evil.stop()
    proxy = serve_asgi(review_app(f"http://127.0.0.1:{app_port}", repo, BRANCH))
    try:
        assert httpx.get(proxy.url + "/", timeout=30).status_code == 200
    finally:
        proxy.stop()
        served.stop()
    return app_port


def test_a_stopped_proxy_leaves_no_connection_to_the_app_open(tmp_path: Path) -> None:
    import gc
    import warnings

    app_port = _proxy_once(make_repo(tmp_path / "shop", BRANCH))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    to_app = [str(w.message) for w in caught if f"'127.0.0.1', {app_port})" in str(w.message)]
    assert to_app == []  # an open connection to the app, left for the garbage collector


def test_a_page_survives_the_app_closing_an_idle_connection_as_it_is_reused(tmp_path: Path) -> None:
    """A dev server closes an idle keep-alive connection just as the proxy reuses it: the proxy
    asks again on a new connection rather than answering the page with a 502."""
    closes_first = socket.socket()
    closes_first.bind(("127.0.0.1", 0))
    closes_first.listen(4)
    port = closes_first.getsockname()[1]

    def serve() -> None:
        for number in range(2):
            conn, _ = closes_first.accept()
            with conn:
                conn.settimeout(10)
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(4096)
                if number == 1:
                    body = b"<html><body>ok</body></html>"
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n"
                        + b"content-length: %d\r\n\r\n" % len(body)
                        + body
                    )

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    proxy = serve_asgi(
        review_app(f"http://127.0.0.1:{port}", make_repo(tmp_path / "r", BRANCH), BRANCH)
    )
    try:
        answer = httpx.get(proxy.url + "/", timeout=30)
    finally:
        proxy.stop()
        server.join(10)
        closes_first.close()
    assert answer.status_code == 200, answer.text
    assert "ok" in answer.text
