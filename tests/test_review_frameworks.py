"""The overlay on real framework apps (React 19 and 18, Vue 3, each through Vite's dev server):
what an anchor says about the element, checked against the fixture's real source lines, and how
the pin keeps its element through re-renders, a virtual list, a route change and a fix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import httpx2 as httpx
import pytest

from contract_tests.support import make_repo
from maple_entrypoints.review import review_app
from tests.framework_apps import app_copy, line_of, serving
from tests.loopback import Running, serve_asgi
from tests.overlay_support import StoredComments, rect_pixels

BRANCH = "feat/beans"
OVERLAY = "[data-maple-overlay]"


@dataclass
class App(StoredComments):
    repo: Path
    folder: Path
    url: str
    proxy: Running
    branch: ClassVar[str] = BRANCH

    def where(self, file: str, text: str) -> str:
        """``path:line:col`` of the first line of ``file`` (in the app) holding ``text``."""
        lines = (self.folder / file).read_text(encoding="utf-8").splitlines()
        number = next(i for i, line in enumerate(lines, 1) if text in line)
        column = lines[number - 1].index(text) + 1
        return f"{self.folder.name}/{file}:{number}:{column}"


@contextmanager
def reviewed(tmp: Path, name: str, react: str = "19") -> Iterator[App]:
    repo = make_repo(tmp / "repo", BRANCH)
    folder = app_copy(name, repo)
    with serving(folder, react=react) as url:
        proxy = serve_asgi(review_app(url, repo, BRANCH))
        try:
            yield App(repo, folder, url, proxy)
        finally:
            proxy.stop()


@pytest.fixture(scope="module")
def react19(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    with reviewed(tmp_path_factory.mktemp("react19"), "react") as app:
        yield app


@pytest.fixture(scope="module")
def react18(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    with reviewed(tmp_path_factory.mktemp("react18"), "react", react="18") as app:
        yield app


@pytest.fixture(scope="module")
def vue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    with reviewed(tmp_path_factory.mktemp("vue"), "vue") as app:
        yield app


def open_app(page: Any, app: App, path: str = "/?manual") -> None:
    page.goto(app.proxy.url + path)
    page.wait_for_selector(f"{OVERLAY} >> button.mode")


def comment_on(page: Any, selector: str, body: str) -> dict[str, Any]:
    page.click(f"{OVERLAY} >> button.mode")
    page.click(selector)
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.fill(f"{OVERLAY} >> textarea", body)
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text({json.dumps(body)})", state="attached")
    return page.evaluate("0") or {}


def test_react_19_anchor_names_the_component_and_the_line_through_the_source_map(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    comment_on(page, ".card:nth-child(1) .stage", "The stage should be bold.")
    comment_on(page, ".welcome", "Say good morning.")
    stage = react19.comment("The stage should be bold.")["anchor"]
    assert stage["component"] == "Card"
    assert stage["locatedBy"] == "owner-stack"
    assert stage["source"] == react19.where("src/Cards.tsx", '<p className="stage">')
    welcome = react19.comment("Say good morning.")["anchor"]
    assert welcome["component"] == "Home"
    assert welcome["source"] == react19.where("src/App.tsx", '<h2 className="welcome">')
    path, line, _ = welcome["source"].rsplit(":", 2)
    assert "Today's beans" in line_of(react19.repo / path, int(line))


def test_react_18_anchor_names_the_component_and_the_line_from_the_fibers_source(
    react18: App, page: Any
) -> None:
    open_app(page, react18)
    comment_on(page, ".card:nth-child(2) .stage", "React 18 stage.")
    anchor = react18.comment("React 18 stage.")["anchor"]
    assert page.evaluate("Object.keys(document.querySelector('.stage')).length") > 0
    assert anchor["component"] == "Card"
    assert anchor["locatedBy"] == "owner-stack"
    assert anchor["source"] == react18.where("src/Cards.tsx", '<p className="stage">')


def test_vue_anchor_names_the_component_and_its_line_in_the_template(vue: App, page: Any) -> None:
    open_app(page, vue)
    comment_on(page, ".card:nth-child(2) .mood", "Vue mood.")
    comment_on(page, ".welcome", "Vue welcome.")
    mood = vue.comment("Vue mood.")["anchor"]
    assert mood["component"] == "TeaCard"
    assert mood["source"] == vue.where("src/components/TeaCard.vue", '<p class="mood">')
    welcome = vue.comment("Vue welcome.")["anchor"]
    assert welcome["component"] == "App"
    assert welcome["source"] == vue.where("src/App.vue", '<h2 class="welcome">')


def pin_of(comment: dict[str, Any]) -> str:
    return f'{OVERLAY} >> .pin[data-maple-comment="{comment["id"]}"]'


def pinned_on(page: Any, comment: dict[str, Any], selector: str) -> None:
    """Until the comment's pin sits on the top edge of the element ``selector`` finds."""
    page.wait_for_function(
        """([id, selector]) => {
            const pin = document.querySelector("[data-maple-overlay]").shadowRoot
                .querySelector(`.pin[data-maple-comment="${id}"]`);
            const element = document.querySelector(selector);
            if (!pin || !element) return false;
            const at = pin.getBoundingClientRect();
            const box = element.getBoundingClientRect();
            const middle = at.left + at.width / 2;
            return box.left - 12 <= middle && middle <= box.right + 12 &&
                Math.abs(at.top + 12 - box.top) <= 2;
        }""",
        arg=[comment["id"], selector],
        timeout=5000,
    )


def finding(page: Any, comment: dict[str, Any]) -> str:
    """What the list says of the comment's element: found, moved or gone."""
    return str(
        page.evaluate(
            """(id) => {
                const item = document.querySelector("[data-maple-overlay]").shadowRoot
                    .querySelector(`li[data-maple-comment="${id}"]`);
                if (!item) return "unlisted";
                return item.hasAttribute("data-maple-gone") ? "gone"
                    : item.hasAttribute("data-maple-moved") ? "moved" : "found";
            }""",
            comment["id"],
        )
    )


def test_a_pin_on_live_text_stays_on_its_card_when_another_card_shows_that_text(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    comment_on(page, ".card:nth-child(1) .stage", "Kenya's stage wraps.")
    stored = react19.comment("Kenya's stage wraps.")
    assert stored["anchor"]["quote"]["exact"] == "Roasting"
    assert stored["anchor"]["quote"]["prefix"] == "Kenya"
    pinned_on(page, stored, ".card:nth-child(1) .stage")
    page.evaluate("fixture.tick()")  # Kenya now "Resting"; Brazil now says "Roasting"
    brazil = "document.querySelector('.card:nth-child(3) .stage').textContent === 'Roasting'"
    page.wait_for_function(brazil)
    for _ in range(3):  # redraws, including a poll's
        page.evaluate("fixture.tick()")
        page.wait_for_timeout(300)
        pinned_on(page, stored, ".card:nth-child(1) .stage")
    assert finding(page, stored) == "found"


def test_a_pin_in_a_virtual_list_never_moves_to_another_row_with_the_same_name(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    page.locator(".shelf").scroll_into_view_if_needed()
    comment_on(page, ".shelf .row:nth-child(1) .tea", "Sencha at 3.00 is mislabelled.")
    stored = react19.comment("Sencha at 3.00 is mislabelled.")
    assert stored["anchor"]["quote"] == {"exact": "Sencha", "suffix": "3.00 EUR Add"}
    # row 7 is Sencha too, at 4.75; scrolling one row down recycles row 0's element for row 8
    page.evaluate("document.querySelector('.shelf').scrollTop = 40")
    page.wait_for_function("document.querySelector('.shelf .row .tea').textContent === 'Genmaicha'")
    page.wait_for_selector(pin_of(stored), state="detached", timeout=5000)
    page.wait_for_timeout(400)
    assert page.locator(pin_of(stored)).count() == 0
    assert finding(page, stored) == "gone"
    page.evaluate("document.querySelector('.shelf').scrollTop = 0")
    pinned_on(page, stored, ".shelf .row:nth-child(1) .tea")
    # scrolled so the row is further down the rendered rows: the pin follows it
    page.evaluate("document.querySelector('.shelf').scrollTop = 10")
    pinned_on(page, stored, ".shelf .row:nth-child(1) .tea")


def resolve(app: App, comment: dict[str, Any], note: str) -> None:
    from contract_tests.support import git
    from maple_core.comments import Resolution
    from maple_core.statuses import CommentStatus
    from maple_entrypoints.bootstrap.local import local_checkout

    sha = git(app.repo, "rev-parse", "HEAD")
    resolution = Resolution(sha=sha, at="2026-12-01T12:00:00.000Z", note=note)
    local_checkout(app.repo).store.set_status(comment["id"], CommentStatus.RESOLVED, resolution)


def test_a_pin_leaves_with_its_route_and_comes_back_with_it(react19: App, page: Any) -> None:
    open_app(page, react19)
    page.click(".tabs button:has-text('Settings')")  # a lazy route, rendered client-side
    page.wait_for_selector(".settings-note")
    comment_on(page, ".settings-note", "Say what the grind means.")
    stored = react19.comment("Say what the grind means.")
    pinned_on(page, stored, ".settings-note")
    page.click(".tabs button:has-text('Home')")
    page.wait_for_selector(".welcome")
    page.wait_for_selector(pin_of(stored), state="detached", timeout=5000)
    page.click(".tabs button:has-text('Settings')")
    page.wait_for_selector(".settings-note")
    pinned_on(page, stored, ".settings-note")


def test_after_a_fix_that_changes_the_text_the_pin_stays_on_the_element(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    comment_on(page, ".tilted-note", "Say which Monday.")
    stored = react19.comment("Say which Monday.")
    assert stored["anchor"]["source"] == react19.where("src/App.tsx", '<p className="tilted-note">')
    pinned_on(page, stored, ".tilted-note")
    resolve(react19, stored, "Named the days.")
    app_file = react19.folder / "src" / "App.tsx"
    app_file.write_text(
        app_file.read_text().replace("Fresh every Monday", "Fresh on Mondays and Thursdays")
    )
    try:
        page.wait_for_function(  # Vite's hot reload, through the proxy's WebSocket
            "document.querySelector('.tilted-note').textContent.includes('Thursdays')",
            timeout=15000,
        )
        page.wait_for_selector(f'{pin_of(stored)}[data-maple-status="resolved"]', timeout=6000)
        pinned_on(page, stored, ".tilted-note")
        assert finding(page, stored) == "found"
        page.click(f"{OVERLAY} >> button.list")
        entry = f'{OVERLAY} >> li[data-maple-comment="{stored["id"]}"]'
        assert page.locator(f"{entry} >> button:has-text('Reopen')").count() == 1
        open_app(page, react19)  # a new page: nothing remembered, found by what it is
        page.wait_for_selector(f'{pin_of(stored)}[data-maple-status="resolved"]', timeout=6000)
        pinned_on(page, stored, ".tilted-note")
    finally:
        app_file.write_text(
            app_file.read_text().replace("Fresh on Mondays and Thursdays", "Fresh every Monday")
        )


def pin_box(page: Any, comment: dict[str, Any]) -> dict[str, float] | None:
    return page.evaluate(  # type: ignore[no-any-return]
        """(id) => {
            const pin = document.querySelector("[data-maple-overlay]").shadowRoot
                .querySelector(`.pin[data-maple-comment="${id}"]`);
            if (!pin) return null;
            const r = pin.getBoundingClientRect();
            return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
        }""",
        comment["id"],
    )


def test_pins_are_never_drawn_over_the_apps_sticky_header_or_bottom_tabs(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    comment_on(page, ".welcome", "The heading is too small.")
    stored = react19.comment("The heading is too small.")
    pinned_on(page, stored, ".welcome")
    header = page.locator("header.top").bounding_box()
    # scrolled so the heading slides under the sticky header: its pin does not sit on the header
    for offset in range(0, 140, 14):
        page.evaluate(f"window.scrollTo(0, {offset})")
        page.wait_for_timeout(60)
        box = pin_box(page, stored)
        if box is not None:
            assert box["top"] >= header["y"] + header["height"] - 1, (offset, box)
    page.evaluate("window.scrollTo(0, 0)")
    # an element behind the fixed bottom tabs: no pin over the tabs
    page.set_viewport_size({"width": 1280, "height": 420})
    comment_on(page, ".order-button", "Order is hidden.")
    order = react19.comment("Order is hidden.")
    for offset in range(0, 800, 40):
        page.evaluate(f"window.scrollTo(0, {offset})")
        page.wait_for_timeout(60)
        tabs = page.locator("nav.tabs").bounding_box()
        box = pin_box(page, order)
        if box is not None:
            assert box["bottom"] <= tabs["y"] + 1 or box["top"] >= tabs["y"] + tabs["height"]


def test_a_tap_on_the_app_under_a_pin_reaches_the_app(react19: App, page: Any) -> None:
    open_app(page, react19)
    comment_on(page, ".theme", "Dark should say Light when dark.")
    stored = react19.comment("Dark should say Light when dark.")
    page.wait_for_selector(pin_of(stored))
    box = pin_box(page, stored)
    assert box is not None
    theme = page.locator(".theme").bounding_box()
    # where the pin covers the app's button, a click is the app's
    x = min(box["right"] - 2, theme["x"] + theme["width"] - 2)
    y = max(box["top"] + 2, theme["y"] + 2)
    page.mouse.click(x, y)
    page.wait_for_function("document.querySelector('.app').classList.contains('dark')")
    assert page.get_attribute(f"{OVERLAY} >> button.list", "aria-expanded") == "false"


def test_on_a_phone_pins_stay_in_the_viewport_and_off_the_composer(
    react19: App, browser: Any
) -> None:
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = phone.new_page()
    try:
        open_app(page, react19)
        for body in ("The header is cramped.", "The header needs a menu."):
            page.tap(f"{OVERLAY} >> button.mode")
            page.tap("header.top", position={"x": 195, "y": 28})
            page.fill(f"{OVERLAY} >> textarea", body)
            page.tap(f"{OVERLAY} >> button.send")
            listed = f"{OVERLAY} >> li:has-text({json.dumps(body)})"
            page.wait_for_selector(listed, state="attached")
        pins = [react19.comment(b) for b in ("The header is cramped.", "The header needs a menu.")]
        for stored in pins:
            page.wait_for_selector(pin_of(stored))
            box = pin_box(page, stored)
            assert box is not None
            assert box["left"] >= 0, box
            assert box["right"] <= 390, box
        # a composer opened below the header: no pin over it
        page.tap(f"{OVERLAY} >> button.mode")
        page.tap(".welcome")
        page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
        composer = page.locator(f"{OVERLAY} >> .composer").bounding_box()
        for stored in pins:
            box = pin_box(page, stored)
            if box is not None:
                apart = (
                    box["right"] <= composer["x"]
                    or box["left"] >= composer["x"] + composer["width"]
                    or box["bottom"] <= composer["y"]
                    or box["top"] >= composer["y"] + composer["height"]
                )
                assert apart, (box, composer)
        page.screenshot(path=str(react19.repo / "phone.png"))
    finally:
        phone.close()


def test_an_element_in_a_same_origin_iframe_is_picked_and_pinned_there(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    page.locator("iframe.receipt").scroll_into_view_if_needed()
    frame = page.frame_locator("iframe.receipt")
    frame.locator(".print").wait_for()
    page.click(f"{OVERLAY} >> button.mode")
    frame.locator(".print").click()
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.keyboard.type("Print should say Download.")
    assert page.evaluate("document.querySelector('iframe.receipt').contentWindow.frameLog") == []
    page.click(f"{OVERLAY} >> button.send")
    listed = f"{OVERLAY} >> li:has-text('Print should say Download.')"
    page.wait_for_selector(listed, state="attached")
    stored = react19.comment("Print should say Download.")
    assert stored["anchor"]["within"] == ['iframe[title="Receipt"]']
    assert stored["anchor"]["selector"] == "body > button"
    assert stored["anchor"]["quote"]["exact"] == "Print"
    page.wait_for_selector(pin_of(stored))
    box = pin_box(page, stored)
    button = frame.locator(".print").bounding_box()
    assert box is not None
    middle = (box["left"] + box["right"]) / 2
    assert button["x"] - 12 <= middle <= button["x"] + button["width"] + 12
    assert abs(box["top"] + 12 - button["y"]) <= 2
    # the frame's app heard none of the keys typed while the reviewer commented
    assert page.evaluate("document.querySelector('iframe.receipt').contentWindow.frameLog") == []


def test_an_element_in_an_open_shadow_root_is_picked_and_pinned(react19: App, page: Any) -> None:
    open_app(page, react19)
    page.locator("x-rating").scroll_into_view_if_needed()
    page.click(f"{OVERLAY} >> button.mode")
    page.click("x-rating >> .star")
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.fill(f"{OVERLAY} >> textarea", "Five stars is too many.")
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text('Five stars is too many.')", state="attached")
    stored = react19.comment("Five stars is too many.")
    assert stored["anchor"]["within"] == ["x-rating"]
    assert stored["anchor"]["selector"] == "button"
    assert stored["anchor"]["quote"]["exact"] == "★ Five stars"
    assert stored["anchor"]["component"] == "Home"  # the host's, which React made
    page.wait_for_selector(pin_of(stored))
    box = pin_box(page, stored)
    star = page.locator("x-rating >> .star").bounding_box()
    assert box is not None
    assert abs(box["top"] + 12 - star["y"]) <= 2


@pytest.mark.parametrize("close", ["Send", "Cancel", "Escape"])
def test_focus_returns_where_it_was_and_no_key_reaches_the_app(
    react19: App, page: Any, close: str
) -> None:
    open_app(page, react19)
    page.click(f"{OVERLAY} >> button.mode")  # focus: the overlay's Comment button
    page.click("input.who")  # picks the app's field; it does not take focus
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.evaluate("window.appKeys.length = 0")
    page.keyboard.type("Label the field. xyz")
    assert page.evaluate("window.appKeys") == []
    if close == "Send":
        page.click(f"{OVERLAY} >> button.send")
        page.wait_for_selector(f"{OVERLAY} >> .composer", state="hidden")
    elif close == "Cancel":
        page.click(f"{OVERLAY} >> button.cancel")
    else:
        page.keyboard.press("Escape")
    page.wait_for_selector(f"{OVERLAY} >> .composer", state="hidden")
    focused = page.evaluate(
        """() => {
            const active = document.activeElement;
            const inner = active && active.shadowRoot && active.shadowRoot.activeElement;
            return { page: active && active.tagName, inner: inner && inner.className };
        }"""
    )
    assert focused["page"] != "INPUT", focused
    assert focused["inner"] == "mode", focused
    assert page.evaluate("window.appKeys") == []


def test_what_a_person_typed_into_the_apps_fields_is_never_in_a_comment(
    react19: App, vue: App, browser: Any
) -> None:
    secrets = ("Adelheid Quux", "grind it extra fine", "Dear Bob")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        open_app(page, react19)
        page.fill("input.who", secrets[0])  # React also syncs it into the value attribute
        page.fill("textarea.note", secrets[1])
        page.click(".gift")
        page.keyboard.press("End")
        page.keyboard.type(" " + secrets[2])
        assert page.get_attribute("input.who", "value") == secrets[0]
        for selector, body in (
            ("input.who", "typed: the field"),
            ("textarea.note", "typed: the note"),
            (".gift", "typed: the gift"),
            ("form.order label", "typed: the label"),
            (".order-button", "typed: the button"),
        ):
            comment_on(page, selector, body)
        for body in ("the field", "the note", "the gift", "the label", "the button"):
            kept = json.dumps(react19.comment("typed: " + body))
            for secret in secrets:
                assert secret not in kept, (body, secret)
        open_app(page, vue)
        page.fill("input.who", secrets[0])  # the app shows it: "Thank you, Adelheid Quux"
        page.wait_for_function("document.querySelector('.hello').textContent.includes('Quux')")
        comment_on(page, ".hello", "typed: the echo")
        comment_on(page, "form.order", "typed: the form")
        for body in ("the echo", "the form"):
            kept = json.dumps(vue.comment("typed: " + body))
            assert secrets[0] not in kept, body
        assert vue.comment("typed: the echo")["anchor"]["quote"]["exact"] == "Thank you, [typed]"
    finally:
        page.close()


def capture_of(page: Any, app: App, body: str) -> tuple[dict[str, Any], bytes]:
    stored = app.comment(body)
    [attachment] = stored["attachments"]
    answer = httpx.get(f"{app.proxy.url}/__maple/api/media/{attachment['key']}")
    answer.raise_for_status()
    return stored, answer.content


def pixels(page: Any, image: bytes, rect: dict[str, float]) -> dict[str, Any]:
    """The mean colour and the darkest pixel (channel sum) of ``rect`` in ``image``."""
    reading = """
        const mean = [0, 0, 0];
        let darkest = 765;
        for (let i = 0; i < data.length; i += 4) {
            for (let c = 0; c < 3; c++) mean[c] += data[i + c] / (data.length / 4);
            darkest = Math.min(darkest, data[i] + data[i + 1] + data[i + 2]);
        }
        return { mean: mean.map(Math.round), darkest };"""
    return dict(rect_pixels(page, image, rect, reading))


def in_capture(box: dict[str, float], area: dict[str, int], inset: float = 4) -> dict[str, float]:
    return {
        "x": box["x"] + inset - area["x"],
        "y": box["y"] + inset - area["y"],
        "width": box["width"] - 2 * inset,
        "height": box["height"] - 2 * inset,
    }


def test_captures_draw_the_iframe_where_it_is_and_placeholders_as_placeholders(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    page.locator("iframe.receipt").scroll_into_view_if_needed()  # a scrolled page, fixed tabs
    frame_box = page.locator("iframe.receipt").bounding_box()
    page.click(f"{OVERLAY} >> button.mode")
    page.frame_locator("iframe.receipt").locator(".total").click()
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.fill(f"{OVERLAY} >> textarea", "capture: the receipt")
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text('capture: the receipt')", state="attached")
    stored, image = capture_of(page, react19, "capture: the receipt")
    area = stored["context"]["captureArea"]
    inside = {**in_capture(frame_box, area, 8), "height": 10}  # the frame's top, below its text
    inside["y"] += frame_box["height"] - 30
    assert pixels(page, image, inside)["mean"] == [255, 251, 230]  # the receipt's own background
    # an empty field with a placeholder: grey text, as on screen, not text someone typed
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("input.who").scroll_into_view_if_needed()
    field = page.locator("input.who").bounding_box()
    comment_on(page, "form.order label", "capture: the empty field")
    stored, image = capture_of(page, react19, "capture: the empty field")
    drawn = pixels(page, image, in_capture(field, stored["context"]["captureArea"]))
    assert 150 < drawn["darkest"] < 600, drawn  # grey placeholder text is there, and not black
    page.fill("input.who", "Typed Name")
    comment_on(page, "form.order label", "capture: the filled field")
    stored, image = capture_of(page, react19, "capture: the filled field")
    assert pixels(page, image, in_capture(field, stored["context"]["captureArea"]))["darkest"] < 150


def test_a_phone_capture_spans_the_row_and_the_scheme_stored_is_the_pages(
    react19: App, browser: Any
) -> None:
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, color_scheme="dark"
    )
    page = phone.new_page()
    try:
        open_app(page, react19)
        page.locator(".shelf").scroll_into_view_if_needed()
        page.tap(f"{OVERLAY} >> button.mode")
        page.tap(".shelf .row:nth-child(2) .add")
        page.fill(f"{OVERLAY} >> textarea", "capture: the add button")
        page.tap(f"{OVERLAY} >> button.send")
        page.wait_for_selector(
            f"{OVERLAY} >> li:has-text('capture: the add button')", state="attached"
        )
        stored, _ = capture_of(page, react19, "capture: the add button")
        assert stored["context"]["captureArea"]["x"] == 0
        assert stored["context"]["captureArea"]["width"] == 390  # the row's name is in it
        assert stored["context"]["colorScheme"] == "light"  # the page is light, whatever the OS
        page.tap(".theme")  # the app's own dark theme
        page.wait_for_function("document.querySelector('.app').classList.contains('dark')")
        page.tap(f"{OVERLAY} >> button.mode")
        page.tap(".welcome")
        page.fill(f"{OVERLAY} >> textarea", "capture: dark")
        page.tap(f"{OVERLAY} >> button.send")
        page.wait_for_selector(f"{OVERLAY} >> li:has-text('capture: dark')", state="attached")
        assert react19.comment("capture: dark")["context"]["colorScheme"] == "dark"
    finally:
        phone.close()


def test_a_production_build_claims_no_source_and_still_keeps_its_pins(
    browser: Any, tmp_path: Path
) -> None:
    from tests.framework_apps import APPS, built

    repo = make_repo(tmp_path / "repo", BRANCH)
    with serving(APPS / "react", mode="preview", out=built("react")) as url:
        proxy = serve_asgi(review_app(url, repo, BRANCH))
        app = App(repo, APPS / "react", url, proxy)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        try:
            open_app(page, app)
            comment_on(page, ".card:nth-child(1) .stage", "Built: the stage.")
            stored = app.comment("Built: the stage.")
            for key in ("component", "source", "locatedBy"):
                assert key not in stored["anchor"]  # no development data: nothing is claimed
            pinned_on(page, stored, ".card:nth-child(1) .stage")
            page.evaluate("fixture.tick()")
            page.wait_for_timeout(300)
            pinned_on(page, stored, ".card:nth-child(1) .stage")
        finally:
            page.close()
            proxy.stop()


def test_vue_pins_follow_re_renders_and_routes_and_stay_on_their_card(vue: App, page: Any) -> None:
    open_app(page, vue)
    comment_on(page, ".card:nth-child(1) .mood", "Vue: Sencha's mood.")
    stored = vue.comment("Vue: Sencha's mood.")
    assert stored["anchor"]["quote"]["exact"] == "Steeping"
    pinned_on(page, stored, ".card:nth-child(1) .mood")
    page.evaluate("fixture.tick()")  # Sencha "Cooling", Assam now "Steeping"
    page.wait_for_function(
        "document.querySelector('.card:nth-child(3) .mood').textContent === 'Steeping'"
    )
    page.wait_for_timeout(300)
    pinned_on(page, stored, ".card:nth-child(1) .mood")
    page.click(".tabs button:has-text('About')")
    page.wait_for_selector(".about-text")
    comment_on(page, ".about-text", "Vue: about text.")
    about = vue.comment("Vue: about text.")
    assert about["anchor"]["source"] == vue.where("src/App.vue", '<p class="about-text">')
    page.wait_for_selector(pin_of(stored), state="detached")
    page.click(".tabs button:has-text('Home')")
    pinned_on(page, stored, ".card:nth-child(1) .mood")
    page.wait_for_selector(pin_of(about), state="detached")
