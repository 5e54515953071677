"""The review overlay from the reviewer's side, in Chromium: anchors that find their element
again when the app changes, and a comment whose element is gone listed as gone (issue 17,
points 3 and 4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from contract_tests.support import make_repo
from maple_entrypoints.review import review_app
from tests.loopback import serve_asgi
from tests.test_review_browser import browser
from tests.test_review_overlay_app import (
    BRANCH,
    OVERLAY,
    Review,
    open_shop,
    page,
    pick,
    pin,
    send,
    wait_pinned,
)

__all__ = ["browser", "page"]  # the Chromium fixtures, shared with the other browser tests

ROWS = """<!doctype html><html><head><title>Rows</title><style>
body { margin: 0; font: 16px/1.5 sans-serif; }
.note { margin: 24px; }
</style></head><body>
<h1 id="title">Pantry</h1>
<p class="note" id="first-note">Sold out</p>
<p class="note" id="second-note">Sold out</p>
<ul class="rows"><li><span>Cake</span></li><li><span>Jam</span></li><li><span>Tea</span></li></ul>
<script>
window.renameNotes = () =>
  document.querySelectorAll(".note").forEach((p) => p.removeAttribute("id"));
window.rowFirst = (text) => {
  const li = document.createElement("li");
  li.innerHTML = "<span>" + text + "</span>";
  document.querySelector(".rows").prepend(li);
};
window.dropRow = (text) => Array.from(document.querySelectorAll(".rows li"))
  .filter((li) => li.textContent === text).forEach((li) => li.remove());
</script>
</body></html>"""


async def rows(request: Request) -> Response:
    return HTMLResponse(ROWS)


APP = Starlette(routes=[Route("/{path:path}", rows)])


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
    repo = make_repo(tmp_path_factory.mktemp("reviewer") / "pantry", BRANCH)
    app = serve_asgi(APP)
    proxy = serve_asgi(review_app(app.url, repo, BRANCH))
    yield Review(repo, app, proxy)
    proxy.stop()
    app.stop()


def test_an_element_whose_selector_broke_is_found_by_its_text_and_box(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/renamed")
    pick(page, "#second-note")
    send(page, "Say when it is back.")
    stored = review.comment("Say when it is back.")
    assert stored["anchor"]["selector"] == "#second-note"
    assert stored["anchor"]["quote"]["exact"] == "Sold out"
    box = page.evaluate(
        "() => { const r = document.getElementById('second-note').getBoundingClientRect();"
        " return {x: r.left, y: r.top, width: r.width, height: r.height}; }"
    )
    assert stored["anchor"]["box"] == {k: round(v) for k, v in box.items()}
    page.evaluate("renameNotes()")  # the app's next build drops the ids: the selector finds nothing
    # two paragraphs say "Sold out"; the stored box tells the second from the first
    wait_pinned(page, pin(stored), ".note:nth-of-type(2)")


def test_a_comment_whose_element_is_gone_is_listed_as_gone_and_not_pinned_on_a_neighbour(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/gone")
    pick(page, ".rows li:nth-child(2) span")
    send(page, "Jam is out of stock.")
    stored = review.comment("Jam is out of stock.")
    assert "nth-of-type(2)" in stored["anchor"]["selector"]  # a positional path: no name to use
    page.evaluate("rowFirst('Honey')")  # the row moves down: its text finds it there
    wait_pinned(page, pin(stored), ".rows li:nth-child(3) span")
    page.evaluate("dropRow('Jam')")  # the row goes; its old position now holds another row
    page.wait_for_selector(pin(stored), state="detached", timeout=5000)
    page.wait_for_timeout(3500)  # past a poll's redraw: no pin comes back on a neighbour
    assert page.locator(pin(stored)).count() == 0
    page.click(f"{OVERLAY} >> button.list")
    item = page.locator(f'{OVERLAY} >> li[data-maple-comment="{stored["id"]}"]')
    assert item.get_attribute("data-maple-gone") == ""
    assert "element gone" in (item.text_content() or "")
