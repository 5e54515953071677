"""The review overlay from the reviewer's side, in Chromium: anchors that find their element
again when the app changes, a comment whose element is gone listed as gone, and the reviewer's
own comments: their name, edit and delete, resolutions shown or hidden, the list leading to the
element, one comment per Send (issue 17, points 3 and 4)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from contract_tests.support import make_repo
from tests.test_review_browser import browser
from tests.test_review_overlay_app import (
    BRANCH,
    OVERLAY,
    Review,
    open_shop,
    page,
    pick,
    pin,
    reviewing,
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
<div style="height: 2400px"></div>
<p id="far">Delivery terms</p>
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
    with reviewing(APP, repo) as served:
        yield served


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


def entry(comment: dict[str, Any]) -> str:
    return f'{OVERLAY} >> li[data-maple-comment="{comment["id"]}"]'


def open_list(page: Any) -> None:
    if page.get_attribute(f"{OVERLAY} >> button.list", "aria-expanded") != "true":
        page.click(f"{OVERLAY} >> button.list")


def test_the_reviewers_name_is_kept_in_the_browser_and_sent_as_the_author(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/named")
    open_list(page)
    page.fill(f"{OVERLAY} >> input.name", "Ana Lima")
    pick(page, "#title")
    send(page, "Warmer title.")
    author = review.comment("Warmer title.")["author"]
    assert (author["name"], author["provenance"]) == ("Ana Lima", "client")
    page.reload()  # another page load, as after a full navigation
    page.wait_for_selector(f"{OVERLAY} >> button.mode")
    assert page.input_value(f"{OVERLAY} >> input.name") == "Ana Lima"
    pick(page, "#title")
    send(page, "Bolder title.")
    assert review.comment("Bolder title.")["author"] == author  # the same reviewer, same id


def test_the_reviewer_edits_and_deletes_their_own_open_comment_from_the_list(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/edit")
    pick(page, "#title")
    send(page, "Pantry is a dull name.")
    mine = review.comment("Pantry is a dull name.")
    theirs = httpx.post(
        review.proxy.url + "/__maple/api/comments",
        json={
            "branch": BRANCH,
            "body": "Someone else's.",
            "anchor": {"selector": "#title"},
            "context": {"url": review.app.url + "/edit"},
            "author": {"id": "another-browser-0001", "name": "Bo"},
        },
        headers={"origin": review.proxy.url},
    ).json()
    open_list(page)
    page.wait_for_selector(entry(theirs))
    assert page.locator(f"{entry(theirs)} >> button.edit").count() == 0  # not theirs to edit
    page.click(f"{entry(mine)} >> button.edit")
    page.fill(f"{entry(mine)} >> textarea", "Call it The Larder.")
    page.click(f"{entry(mine)} >> button.save")
    page.wait_for_selector(f"{entry(mine)} >> text=Call it The Larder.")
    assert review.comment("Call it The Larder.")["id"] == mine["id"]
    page.click(f"{entry(mine)} >> button.delete")
    assert [c["id"] for c in review.comments() if c["id"] == mine["id"]] == [mine["id"]]
    page.click(f"{entry(mine)} >> button.delete")  # the second press deletes
    page.wait_for_selector(entry(mine), state="detached", timeout=5000)
    assert all(c["id"] != mine["id"] for c in review.comments())


def test_a_resolution_is_shown_on_the_pin_and_in_the_list_and_resolved_comments_can_be_hidden(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/resolved")
    pick(page, "#title")
    send(page, "Use the brand font.")
    stored = review.comment("Use the brand font.")
    page.wait_for_selector(pin(stored))
    resolved = httpx.patch(
        review.proxy.url + "/__maple/api/comments/" + stored["id"],
        json={
            "status": "resolved",
            "resolution": {"sha": "abc1234def", "note": "Set the title in Brand Serif."},
        },
        headers={"origin": review.proxy.url},
    )
    assert resolved.status_code == 200
    said = "resolved in abc1234: Set the title in Brand Serif."
    page.wait_for_selector(f'{pin(stored)}[data-maple-status="resolved"]', timeout=6000)
    assert said in (page.get_attribute(pin(stored), "title") or "")
    open_list(page)
    assert said in (page.text_content(entry(stored)) or "")
    assert page.locator(f"{entry(stored)} >> button.edit").count() == 0  # resolved: not editable
    page.check(f"{OVERLAY} >> input.hide-resolved")
    page.wait_for_selector(entry(stored), state="detached", timeout=2000)
    page.wait_for_selector(pin(stored), state="detached", timeout=2000)
    page.uncheck(f"{OVERLAY} >> input.hide-resolved")
    page.wait_for_selector(pin(stored), timeout=2000)


def test_a_list_entry_scrolls_to_its_element_and_highlights_it(review: Review, page: Any) -> None:
    open_shop(page, review, "/far")
    page.evaluate("document.getElementById('far').scrollIntoView()")
    pick(page, "#far")
    send(page, "Link the delivery terms.")
    stored = review.comment("Link the delivery terms.")
    page.evaluate("window.scrollTo(0, 0)")
    open_list(page)
    page.click(f"{entry(stored)} >> .body")
    page.wait_for_function(
        """() => {
            const far = document.getElementById("far").getBoundingClientRect();
            const box = document.querySelector("[data-maple-overlay]").shadowRoot
                .querySelector(".box.shown");
            if (!box || far.top < 0 || far.bottom > innerHeight) return false;
            const shown = box.getBoundingClientRect();
            return Math.abs(shown.top - far.top) <= 1 && Math.abs(shown.width - far.width) <= 1;
        }""",
        timeout=2000,
    )


def test_send_is_disabled_while_sending_so_a_double_press_stores_one_comment(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/twice")
    page.evaluate(
        """() => { const real = window.fetch;
        window.fetch = (url, init) => init && init.method === "POST"
            ? new Promise((done) => setTimeout(() => done(real(url, init)), 400))
            : real(url, init); }"""
    )  # a slow route: the second press comes while the first is on its way
    pick(page, "#title")
    page.fill(f"{OVERLAY} >> textarea", "Only once, please.")
    page.click(f"{OVERLAY} >> button.send")
    assert page.is_disabled(f"{OVERLAY} >> button.send")
    page.click(f"{OVERLAY} >> button.send", force=True)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(f"{OVERLAY} >> .composer", state="hidden", timeout=5000)
    page.wait_for_timeout(800)  # any second POST would have landed by now
    assert [c["body"] for c in review.comments()].count("Only once, please.") == 1


def test_the_reviewer_and_their_right_to_edit_survive_a_restart_on_another_port(
    review: Review, browser: Any
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        open_shop(page, review, "/restart")
        open_list(page)
        page.fill(f"{OVERLAY} >> input.name", "Bea Restart")
        pick(page, "#title")
        send(page, "Title from before the restart.")
        before = review.comment("Title from before the restart.")
        # maple review again, on another port (a new origin: its localStorage is empty)
        with reviewing(APP, review.repo) as again:
            assert again.proxy.url != review.proxy.url
            page.goto(again.proxy.url + "/restart")
            page.wait_for_selector(f"{OVERLAY} >> button.mode")
            page.wait_for_function(
                """() => document.querySelector("[data-maple-overlay]").shadowRoot
                    .querySelector("input.name").value === "Bea Restart" """
            )
            open_list(page)
            entry = f'{OVERLAY} >> li[data-maple-comment="{before["id"]}"]'
            page.wait_for_selector(f"{entry} >> button.edit")
            pick(page, "#title")
            send(page, "Title after the restart.")
            assert again.comment("Title after the restart.")["author"] == before["author"]
    finally:
        context.close()
