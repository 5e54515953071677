"""The review overlay in front of an app that behaves like one: client-side navigation, a scroll
container, a text field, a modal closed by Escape, single-key shortcuts and click handlers. Each
test is one way the overlay used to lose or misplace a reviewer's work (issue 17)."""

from __future__ import annotations

from typing import Any

from tests.overlay_support import (
    OVERLAY,
    Review,
    one_page_app,
    open_shop,
    pick,
    pin,
    review_fixture,
    send,
    wait_pinned,
)

SHOP = """<!doctype html><html><head><title>Shop</title><style>
body { margin: 0; font: 16px/1.5 sans-serif; }
header { height: 48px; background: #eee; }
.scroller { height: 120px; overflow: auto; margin: 16px; border: 1px solid #999; }
.scroller ul { margin: 0; }
.scroller li { height: 40px; }
.modal { position: fixed; top: 80px; right: 40px; padding: 8px; background: #fff; }
</style></head><body>
<header><h1 id="title">Shop</h1></header>
<main id="view"></main>
<label>Search <input id="search"></label>
<button id="buy" type="button">Buy</button>
<p id="promo">Free delivery this week</p>
<div class="scroller" id="scroller"><ul>
<li>Item 1</li><li>Item 2</li><li>Item 3</li><li>Item 4</li><li>Item 5</li><li>Item 6</li>
<li>Item 7</li><li>Item 8</li><li>Item 9</li><li>Item 10</li>
</ul></div>
<ul class="basket">
<li data-testid="row-tea"><span>Tea</span> <button type="button">Add</button></li>
<li><span>Cake</span> <button type="button" data-cy="remove-cake">Remove</button></li>
<li><span>Jam</span> <button type="button" aria-label="Remove jam">x</button></li>
</ul>
<div class="modal" id="modal" role="dialog">Sale!
<button data-test="close-sale">Close</button></div>
<div style="height: 1600px"></div>
<script>
window.appLog = [];
document.addEventListener("keydown", (e) => {
  appLog.push("key:" + e.key);
  if (e.key === "Escape") document.getElementById("modal").hidden = true;
});
document.addEventListener("click", (e) => appLog.push("click:" + (e.target.id || "?")));
function render() {
  const cart = location.pathname.endsWith("/cart");
  const view = document.getElementById("view");
  view.textContent = "";
  const heading = document.createElement("h2");
  heading.id = cart ? "cart-title" : "home-title";
  heading.textContent = cart ? "Your cart" : "Welcome";
  view.appendChild(heading);
}
window.go = (path) => { history.pushState({}, "", path); render(); };
window.addEventListener("popstate", render);
render();
</script>
</body></html>"""


APP = one_page_app(SHOP)
review = review_fixture(APP, "shop")


def app_log(page: Any) -> list[str]:
    return list(page.evaluate("window.appLog"))


COMMENTS = "**/__maple/api/comments*"


def without_polls(page: Any) -> None:
    """The overlay's 3 s poll of the comments fails from now on, so whatever pins do next is
    the overlay's own reaction to the page, not a refresh that happened to come."""

    def refuse_reads(route: Any) -> None:
        if route.request.method == "GET":
            route.abort()
        else:
            route.continue_()

    page.route(COMMENTS, refuse_reads)


def test_alt_shift_c_after_a_click_picks_and_typing_never_reaches_the_apps_field(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/focus")
    page.click("#search")
    page.keyboard.type("tea")
    page.keyboard.press("Alt+Shift+C")  # focus came from a click: pick, not comment on the field
    assert page.get_attribute(f"{OVERLAY} >> button.mode", "aria-pressed") == "true"
    assert not page.is_visible(f"{OVERLAY} >> .composer")
    page.click("#title")
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.click("#search")  # the reviewer clicks elsewhere on the page, then goes on typing
    page.keyboard.type("The heading is too small.")
    assert page.input_value("#search") == "tea"
    assert page.input_value(f"{OVERLAY} >> textarea") == "The heading is too small."
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> .composer", state="hidden")
    assert review.comment("The heading is too small.")["anchor"]["selector"] == "#title"


def test_clicks_do_not_reach_the_app_while_the_composer_is_open(review: Review, page: Any) -> None:
    open_shop(page, review, "/clicks")
    pick(page, "#title")
    page.click("#buy")
    assert app_log(page) == []
    assert page.is_visible(f"{OVERLAY} >> .composer")
    page.click(f"{OVERLAY} >> button.cancel")
    page.click("#buy")
    assert app_log(page) == ["click:buy"]


def test_keys_meant_for_the_overlay_do_not_reach_the_apps_listeners(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/keys")
    pick(page, "#title")
    page.keyboard.type("k closes nothing")
    page.keyboard.press("Escape")  # closes the composer, not the app's modal
    page.wait_for_selector(f"{OVERLAY} >> .composer", state="hidden")
    page.click(f"{OVERLAY} >> button.mode")
    page.keyboard.press("Escape")  # leaves comment mode, and only that
    assert page.get_attribute(f"{OVERLAY} >> button.mode", "aria-pressed") == "false"
    page.keyboard.press("Alt+Shift+L")
    assert app_log(page) == []
    page.click("#search")  # with focus on the page, the overlay's keys are still only its own
    page.keyboard.press("Alt+Shift+C")
    page.keyboard.press("Escape")
    assert page.get_attribute(f"{OVERLAY} >> button.mode", "aria-pressed") == "false"
    page.keyboard.press("Alt+Shift+L")
    modifiers = ("key:Alt", "key:Shift")  # pressed before the shortcut is known to be one
    assert [e for e in app_log(page) if e not in modifiers] == ["click:search"]
    assert page.is_visible("#modal")
    page.evaluate("window.appLog = []")
    page.focus("#buy")
    page.keyboard.press("Escape")  # with focus on the page, the app's own keys work as before
    assert app_log(page) == ["key:Escape"]
    assert not page.is_visible("#modal")


def test_a_failed_send_is_shown_in_the_composer_and_keeps_the_text(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/fail")

    def refuse(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        route.fulfill(status=507, json={"error": "The disk is full."})

    page.route(COMMENTS, refuse)
    pick(page, "#title")
    page.fill(f"{OVERLAY} >> textarea", "Bigger heading.")
    page.click(f"{OVERLAY} >> button.send")
    problem = page.wait_for_selector(f"{OVERLAY} >> .composer >> text=was not sent", timeout=5000)
    assert problem is not None
    assert problem.is_visible()
    assert "The disk is full." in (problem.text_content() or "")
    assert page.input_value(f"{OVERLAY} >> textarea") == "Bigger heading."
    page.unroute(COMMENTS)
    send(page, "Bigger heading.")  # sent again, the comment is stored and the message goes
    assert not page.is_visible(f"{OVERLAY} >> .composer >> text=was not sent")


def test_a_comment_begun_before_client_side_navigation_keeps_its_page_and_element(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/nav")
    pick(page, "#home-title")
    page.evaluate("go('/nav/cart')")  # the app navigates on its own (a timer, a redirect)
    page.wait_for_selector("#cart-title")
    assert page.is_visible(f"{OVERLAY} >> .composer >> text=For /nav, where you picked")
    page.fill(f"{OVERLAY} >> textarea", "Say hello to returning customers.")
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> .composer", state="hidden", timeout=5000)
    stored = review.comment("Say hello to returning customers.")
    assert stored["context"]["url"].endswith("/nav")
    assert stored["anchor"]["selector"] == "#home-title"
    assert stored["anchor"]["quote"]["exact"] == "Welcome"


def test_pins_follow_pushstate_and_back_at_once(review: Review, page: Any) -> None:
    open_shop(page, review, "/hist")
    pick(page, "#home-title")
    send(page, "Welcome them by name.")
    welcome = pin(review.comment("Welcome them by name."))
    page.wait_for_selector(welcome)
    without_polls(page)
    page.evaluate("go('/hist/cart')")
    page.wait_for_selector(welcome, state="detached", timeout=2000)
    page.go_back()
    page.wait_for_selector(welcome, timeout=2000)
    wait_pinned(page, welcome, "#home-title")


def test_pins_follow_scroll_containers_and_hide_with_their_element(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/scroll")
    pick(page, "#scroller li:nth-child(2)")
    send(page, "Item two needs a price.")
    pick(page, "#promo")
    send(page, "The promotion is too loud.")
    item = pin(review.comment("Item two needs a price."))
    promo = pin(review.comment("The promotion is too loud."))
    without_polls(page)
    page.evaluate("document.getElementById('scroller').scrollTop = 30")
    wait_pinned(page, item, "#scroller li:nth-child(2)")
    page.evaluate("document.getElementById('scroller').scrollTop = 200")  # out of its scroller
    page.wait_for_selector(item, state="hidden", timeout=2000)
    page.evaluate("window.scrollTo(0, 1000)")  # above the viewport: not held at its top edge
    page.wait_for_selector(promo, state="hidden", timeout=2000)
    page.evaluate("window.scrollTo(0, 0)")
    wait_pinned(page, promo, "#promo")
    page.unroute(COMMENTS)
    page.evaluate("document.getElementById('promo').hidden = true")
    page.wait_for_selector(promo, state="hidden", timeout=2000)
    page.wait_for_timeout(3500)  # past a poll's redraw: no pin comes back at (0, 0)
    assert page.locator(f"{OVERLAY} >> .pin").count() == 0


def test_selectors_name_the_element_as_the_app_does_before_any_position(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/selectors")
    expected = {
        "#title": "#title",
        ".basket li:nth-child(2) button": '[data-cy="remove-cake"]',
        "#modal button": '[data-test="close-sale"]',
        ".basket li:nth-child(3) button": 'button[aria-label="Remove jam"]',
        ".basket li:nth-child(1) button": '[data-testid="row-tea"] > button',
    }
    for picked, selector in expected.items():
        pick(page, picked)
        send(page, f"About {picked}.")
        assert review.comment(f"About {picked}.")["anchor"]["selector"] == selector
        assert page.evaluate(
            "([a, b]) => document.querySelector(a) === document.querySelector(b)",
            [selector, picked],
        )


def test_the_stored_url_is_the_apps_address_not_the_proxys(review: Review, page: Any) -> None:
    open_shop(page, review, "/where?q=tea#results")
    pick(page, "#title")
    send(page, "Say where the results are.")
    stored = review.comment("Say where the results are.")
    assert stored["context"]["url"] == review.app.url + "/where?q=tea#results"


def test_a_pin_sits_at_the_end_of_its_elements_text_and_duplicates_sit_side_by_side(
    review: Review, page: Any
) -> None:
    open_shop(page, review, "/pins")
    for body in ("Bigger.", "Bolder."):
        pick(page, "#title")  # a heading as wide as the page, its text at the left
        send(page, body)
    first, second = (
        page.locator(pin(review.comment(b))).bounding_box() for b in ("Bigger.", "Bolder.")
    )
    assert first is not None
    assert second is not None
    text_end = page.evaluate(
        """() => { const r = document.createRange();
        r.selectNodeContents(document.getElementById("title"));
        return r.getBoundingClientRect().right; }"""
    )
    assert 0 <= first["x"] - text_end <= 8
    assert second["x"] >= first["x"] + first["width"]  # not stacked on the first
    assert second["y"] == first["y"]
