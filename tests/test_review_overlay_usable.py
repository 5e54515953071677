"""The review overlay as a reviewer uses it on a phone, by keyboard and on a dark page, in
Chromium: a bar that folds away from the app's own header and bottom controls, taps that pick and
send, focusable and labelled pins, a hint in pick mode, its own legible colours; and the
screenshots of docs/review.md (issue 17)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.requests import Request

from tests.overlay_support import (
    DOCS,
    OVERLAY,
    Review,
    one_page_app,
    open_shop,
    pick,
    review_fixture,
    send,
)

MARKET = """<!doctype html><html><head><title>Market</title>
<meta name="viewport" content="width=device-width, initial-scale=1">{dark}<style>
body {{ margin: 0; font: 16px/1.5 sans-serif; }}
header {{ position: sticky; top: 0; height: 56px; background: #0f766e; color: #fff; }}
header h1 {{ margin: 0; padding: 12px 16px; font-size: 22px; }}
main {{ padding: 16px 16px 96px; }}
.tabs {{ position: fixed; left: 0; right: 0; bottom: 0; height: 64px; display: flex;
  background: #f1f5f9; border-top: 1px solid #cbd5e1; }}
.tabs button {{ flex: 1; font-size: 14px; }}
</style></head><body>
<header><h1 id="title">Market</h1></header>
<main>
<p id="offer">Fresh bread every morning, baked in the shop.</p>
<p id="hours">Open from seven to seven, Sundays until noon.</p>
<div style="height: 1200px"></div>
</main>
<nav class="tabs"><button id="home">Home</button><button id="basket">Basket</button>
<button id="account">Account</button></nav>
</body></html>"""

DARK = """<meta name="color-scheme" content="dark"><style>
:root { color-scheme: dark; background: #000; }
* { color: #f5f5f5 !important; }
</style>"""


def market(request: Request) -> str:
    return MARKET.format(dark=DARK if request.url.path == "/dark" else "")


APP = one_page_app(market)


review = review_fixture(APP, "market")


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(
        viewport={"width": 375, "height": 812}, has_touch=True, is_mobile=True
    )
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert errors == []


def overlap(one: dict[str, float], other: dict[str, float]) -> bool:
    return (
        one["x"] < other["x"] + other["width"]
        and other["x"] < one["x"] + one["width"]
        and one["y"] < other["y"] + other["height"]
        and other["y"] < one["y"] + one["height"]
    )


def visible_overlay_boxes(page: Any) -> list[dict[str, float]]:
    """The boxes of the overlay's visible parts: its bar, pins, panel, composer, hint."""
    return list(
        page.evaluate(
            """() => Array.from(document.querySelector("[data-maple-overlay]").shadowRoot
                .querySelectorAll(".bar, .pin, .panel, .composer, .hint, .bar button"))
                .map((node) => node.getBoundingClientRect())
                .filter((r) => r.width > 0 && r.height > 0)
                .map((r) => ({ x: r.x, y: r.y, width: r.width, height: r.height }))"""
        )
    )


def test_on_a_phone_the_bar_folds_away_from_the_apps_header_and_tabs_and_taps_comment(
    review: Review, phone: Any
) -> None:
    open_shop(phone, review, "/")
    header = phone.locator("header").bounding_box()
    tabs = phone.locator("nav.tabs").bounding_box()
    # unfolded, it sits above the app's bottom tabs, from its first frame on
    phone.wait_for_function(
        """() => document.querySelector("[data-maple-overlay]").shadowRoot
            .querySelector(".bar").getBoundingClientRect().bottom
            <= document.querySelector("nav.tabs").getBoundingClientRect().top""",
        timeout=2000,
    )
    phone.tap(f"{OVERLAY} >> button.fold")
    assert phone.locator(f"{OVERLAY} >> button.mode").is_hidden()
    assert phone.locator(f"{OVERLAY} >> button.fold").get_attribute("aria-expanded") == "false"
    for box in visible_overlay_boxes(phone):
        assert not overlap(box, header), box
        assert not overlap(box, tabs), box
    phone.tap("#basket")  # the app's own control is free to take its tap
    phone.tap(f"{OVERLAY} >> button.fold")
    assert phone.locator(f"{OVERLAY} >> button.fold").get_attribute("aria-expanded") == "true"

    phone.tap(f"{OVERLAY} >> button.mode")
    hint = phone.locator(f"{OVERLAY} >> .hint")
    assert hint.inner_text() == "Tap an element to comment — tap Comment to cancel"
    phone.tap("#offer")
    phone.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    composer = phone.locator(f"{OVERLAY} >> .composer").bounding_box()
    assert composer["x"] >= 0
    assert composer["x"] + composer["width"] <= 375
    phone.fill(f"{OVERLAY} >> textarea", "The offer wraps badly on a phone.")
    phone.tap(f"{OVERLAY} >> button.send")
    phone.wait_for_selector(f"{OVERLAY} >> li:has-text('The offer wraps badly')", state="attached")
    stored = review.comment("The offer wraps badly on a phone.")
    assert stored["anchor"]["selector"] == "#offer"
    assert stored["context"]["viewportWidth"] == 375

    phone.tap(f"{OVERLAY} >> button.list")
    phone.wait_for_selector(f"{OVERLAY} >> .pin", state="visible")
    phone.wait_for_timeout(600)  # the tap's highlight on the Comments button fades
    phone.screenshot(path=str(DOCS / "review-overlay-phone.png"))  # docs/review.md shows it


def test_pins_are_reached_by_tab_named_and_open_their_entry_with_enter(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/")
    page.click(f"{OVERLAY} >> button.list")
    page.fill(f"{OVERLAY} >> input.name", "Ana")
    pick(page, "#hours")
    send(page, "Say when the shop closes on holidays, please.")
    stored = review.comment("Say when the shop closes on holidays, please.")
    pin = page.get_by_role(
        "button", name=re.compile(r"^Comment \d+ by Ana: Say when the shop closes on")
    )
    pin.wait_for()
    page.click(f"{OVERLAY} >> button.list")  # closed again: Enter on the pin opens it
    page.focus("#account")
    for _ in range(10):
        page.keyboard.press("Tab")
        focused = page.evaluate(
            """() => { const at = document.querySelector("[data-maple-overlay]").shadowRoot
                .activeElement; return at ? at.getAttribute("data-maple-comment") : null; }"""
        )
        if focused == stored["id"]:
            break
    assert focused == stored["id"]
    page.keyboard.press("Enter")
    entry = page.locator(f'{OVERLAY} >> li[data-maple-comment="{stored["id"]}"]')
    entry.wait_for(state="visible")
    assert entry.evaluate("(li) => li.getRootNode().activeElement === li")
    page.wait_for_timeout(3500)  # a poll later, the pin is still the same, still reachable
    assert pin.count() == 1


def test_pick_mode_shows_a_hint_that_goes_on_pick_and_on_escape(review: Review, page: Any) -> None:
    open_shop(page, review, "/")
    hint = page.locator(f"{OVERLAY} >> .hint")
    assert hint.is_hidden()
    page.click(f"{OVERLAY} >> button.mode")
    hint.wait_for(state="visible")
    assert hint.inner_text() == "Click an element to comment — Esc to cancel"
    page.keyboard.press("Escape")
    hint.wait_for(state="hidden")
    page.click(f"{OVERLAY} >> button.mode")
    hint.wait_for(state="visible")
    page.click("#offer")
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    assert hint.is_hidden()


CONTRAST = """() => {
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  const channel = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const light = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const root = document.querySelector("[data-maple-overlay]").shadowRoot;
  const page = rgb(getComputedStyle(document.documentElement).backgroundColor);
  const under = (node) => {
    for (let at = node; at instanceof Element; at = at.parentNode) {
      const bg = rgb(getComputedStyle(at).backgroundColor);
      if (bg.length < 4 || bg[3] > 0.99) return bg.slice(0, 3);
    }
    return page;
  };
  const found = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    const node = text.parentElement;
    if (!text.data.trim() || !node.checkVisibility({ visibilityProperty: true })) continue;
    if (node.closest(".sr")) continue;
    const fg = light(rgb(getComputedStyle(node).color));
    const bg = light(under(node));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    found.push({ text: text.data.trim(), ratio, scheme: getComputedStyle(node).colorScheme });
  }
  for (const field of root.querySelectorAll("textarea, input")) {
    if (!field.checkVisibility()) continue;
    found.push({ text: field.className || field.tagName, ratio: 21,
      scheme: getComputedStyle(field).colorScheme });
  }
  return found;
}"""


def test_on_a_dark_page_the_overlay_keeps_its_own_legible_colours(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/dark")
    page.click(f"{OVERLAY} >> button.list")
    page.click(f"{OVERLAY} >> button.mode")
    page.click("#offer")
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    texts = page.evaluate(CONTRAST)
    shown = {t["text"] for t in texts}
    assert {"Send", "Cancel", "Comment", "Hide resolved"} <= shown, shown
    for text in texts:
        assert text["ratio"] >= 4.5, text
        assert text["scheme"].startswith("light"), text
    inherited = page.evaluate(
        """() => getComputedStyle(document.querySelector("[data-maple-overlay]").shadowRoot
            .querySelector(".bar")).color"""
    )
    assert inherited != "rgb(245, 245, 245)"  # the page's `* { color: ... !important }`
