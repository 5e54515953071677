"""What the review overlay's browser tests share: an app behind the review proxy, and the
overlay's own gestures (open, pick, send, find a pin). The Chromium fixtures are in
``tests/conftest.py``."""

from __future__ import annotations

import base64
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from contract_tests.support import make_repo
from maple_entrypoints.review import review_app
from tests.loopback import Running, serve_asgi

BRANCH = "feat/shop"
OVERLAY = "[data-maple-overlay]"
# The screenshots docs/review.md shows are refreshed only on request (MAPLE_REFRESH_SCREENSHOTS=1),
# so a test run leaves the checkout as it found it; otherwise they go to a scratch folder.
DOCS = (
    Path(__file__).resolve().parents[1] / "docs"
    if os.environ.get("MAPLE_REFRESH_SCREENSHOTS") == "1"
    else Path(tempfile.gettempdir()) / "maple-screenshots"
)
DOCS.mkdir(parents=True, exist_ok=True)


def one_page_app(page: str | Callable[[Request], str]) -> Starlette:
    """An app that answers every path with ``page`` (or what ``page`` makes of the request)."""

    async def answer(request: Request) -> Response:
        return HTMLResponse(page(request) if callable(page) else page)

    return Starlette(routes=[Route("/{path:path}", answer)])


class StoredComments:
    """The comments a reviewed app's proxy (``proxy``) has stored on ``branch``."""

    proxy: Running
    branch: ClassVar[str] = BRANCH

    def comments(self) -> list[dict[str, Any]]:
        return proxy_comments(self.proxy, self.branch)

    def comment(self, body: str) -> dict[str, Any]:
        return next(c for c in self.comments() if c["body"] == body)


@dataclass
class Review(StoredComments):
    repo: Path
    app: Running
    proxy: Running


def proxy_comments(proxy: Running, branch: str) -> list[dict[str, Any]]:
    """The comments on ``branch``, as the review proxy's route lists them."""
    answer = httpx.get(proxy.url + "/__maple/api/comments", params={"branch": branch})
    answer.raise_for_status()
    return list(answer.json()["comments"])


def rect_pixels(page: Any, image: bytes, rect: dict[str, float], reading: str) -> Any:
    """What the JavaScript ``reading`` makes of ``data``, the RGBA pixels of ``rect`` in
    ``image`` as Chromium decodes it."""
    return page.evaluate(
        """async ([b64, r]) => {
            const bitmap = await createImageBitmap(
                new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]));
            const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
            const context = canvas.getContext("2d");
            context.drawImage(bitmap, 0, 0);
            const data = context.getImageData(r.x, r.y, r.width, r.height).data;
"""
        + reading
        + "}",
        [base64.b64encode(image).decode(), rect],
    )


@contextmanager
def reviewing(app_asgi: Any, repo: Path) -> Iterator[Review]:
    """``app_asgi`` served on loopback with the review proxy in front of it, over ``repo``."""
    app = serve_asgi(app_asgi)
    proxy = serve_asgi(review_app(app.url, repo, BRANCH))
    try:
        yield Review(repo, app, proxy)
    finally:
        proxy.stop()
        app.stop()


def review_fixture(app: Any, name: str) -> Any:
    """A module's ``review`` fixture: ``app`` reviewed over a fresh repository named ``name``."""

    @pytest.fixture(scope="module")
    def review(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
        repo = make_repo(tmp_path_factory.mktemp(name) / name, BRANCH)
        with reviewing(app, repo) as served:
            yield served

    return review


def open_shop(page: Any, review: Review, path: str) -> None:
    page.goto(review.proxy.url + path)
    page.wait_for_selector(f"{OVERLAY} >> button.mode")


def pick(page: Any, selector: str) -> None:
    """Comment mode, then a click on ``selector``: the composer opens on it, focused."""
    page.click(f"{OVERLAY} >> button.mode")
    page.click(selector)
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")


def send(page: Any, body: str) -> None:
    page.fill(f"{OVERLAY} >> textarea", body)
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text({json.dumps(body)})", state="attached")


def wait_pinned(page: Any, pin_selector: str, element_selector: str) -> None:
    """Until the pin sits half over its element's top edge, within the element's width."""
    shadow = pin_selector.split(" >> ", 1)[1]
    page.wait_for_function(
        """([pinned, selector]) => {
            const pin = document.querySelector("[data-maple-overlay]").shadowRoot
                .querySelector(pinned);
            const box = document.querySelector(selector).getBoundingClientRect();
            if (!pin) return false;
            const at = pin.getBoundingClientRect();
            const middle = at.left + at.width / 2;
            const inside = box.left <= middle && middle <= box.right;
            return inside && Math.abs(at.top - (box.top - 12)) <= 1;
        }""",
        arg=[shadow, element_selector],
        timeout=2000,
    )


def pin(comment: dict[str, Any]) -> str:
    return f'{OVERLAY} >> .pin[data-maple-comment="{comment["id"]}"]'
