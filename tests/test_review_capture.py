"""Screenshots the agent can see (issue 17, point 2): a comment sent from the overlay carries an
image of what the reviewer saw, with the element's box and the click point; the image reaches
``get_comment_context`` through the official MCP client as image content, and ``maple comments
show`` names its file."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx2 as httpx
import pytest

from tests.overlay_support import DOCS, OVERLAY, Review, open_shop, rect_pixels, review_fixture
from tests.test_review_overlay_app import APP

review = review_fixture(APP, "capture")

# A 1×1 PNG: what a reviewer might paste, and what the MCP test attaches.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def comment_with_click(page: Any, selector: str, body: str) -> tuple[int, int]:
    """Comment mode, a click a little inside ``selector``'s box, then ``body`` sent."""
    page.click(f"{OVERLAY} >> button.mode")
    box = page.locator(selector).bounding_box()
    point = (round(box["x"]) + 5, round(box["y"]) + 4)
    page.mouse.click(*point)
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.fill(f"{OVERLAY} >> textarea", body)
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text({json.dumps(body)})", state="attached")
    return point


def decoded(page: Any, data: bytes) -> dict[str, Any]:
    """The image's size and its pixels' mean, as Chromium decodes it (it throws if it cannot)."""
    return dict(
        page.evaluate(
            """async (b64) => {
                const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
                const bitmap = await createImageBitmap(new Blob([bytes]));
                return { width: bitmap.width, height: bitmap.height };
            }""",
            base64.b64encode(data).decode(),
        )
    )


def ink(page: Any, image: bytes, rect: dict[str, float]) -> float:
    """The share of the pixels in ``rect`` of ``image`` that are dark: text drawn there."""
    reading = """
        let dark = 0;
        for (let i = 0; i < data.length; i += 4) {
            if (data[i] + data[i + 1] + data[i + 2] < 3 * 110) dark += 1;
        }
        return dark / (data.length / 4);"""
    return float(rect_pixels(page, image, rect, reading))


def inside(box: dict[str, float], area: dict[str, int]) -> dict[str, float]:
    """The part of ``box``, 4 px in from its edges (borders), within ``area``, in its pixels."""
    left = max(box["x"] + 4, area["x"])
    top = max(box["y"] + 4, area["y"])
    right = min(box["x"] + box["width"] - 4, area["x"] + area["width"])
    bottom = min(box["y"] + box["height"] - 4, area["y"] + area["height"])
    assert right - left >= 8
    assert bottom - top >= 8
    width, height = right - left, bottom - top
    return {"x": left - area["x"], "y": top - area["y"], "width": width, "height": height}


def media(review: Review, key: str) -> bytes:
    answer = httpx.get(f"{review.proxy.url}/__maple/api/media/{key}")
    answer.raise_for_status()
    return answer.content


def stored_image(review: Review, body: str) -> tuple[dict[str, Any], bytes]:
    """The comment sent with ``body``, and the bytes of its one attachment, checked on disk."""
    stored = review.comment(body)
    [attachment] = stored["attachments"]
    assert set(attachment) == {"connector", "key", "contentType", "source"}  # Maple's MediaRef
    assert attachment["connector"] == "file"
    assert attachment["source"] == "capture"
    assert attachment["contentType"] in ("image/png", "image/jpeg", "image/webp")
    files = list((review.repo / ".maple").glob(f"*/media/{attachment['key']}.*"))
    assert len(files) == 1  # on disk beside the comments
    image = media(review, attachment["key"])
    assert image == files[0].read_bytes()
    return stored, image


@pytest.mark.parametrize(
    ("selector", "body", "state"),
    [
        # inside the open modal: the modal is in the image
        ("[data-test=close-sale]", "The sale modal hides the cart.", "#modal"),
        # beside the field the reviewer filled in: what they typed is in the image
        ("#buy", "Buy should search for what I typed.", "#search"),
    ],
)
def test_a_comment_carries_an_image_of_what_the_reviewer_saw_with_box_and_click(
    review: Review, page: Any, selector: str, body: str, state: str
) -> None:
    open_shop(page, review, "/")
    page.fill("#search", "blue tea")
    page.evaluate("document.activeElement.blur()")

    point = comment_with_click(page, selector, body)
    stored, image = stored_image(review, body)
    size = decoded(page, image)
    box = page.locator(selector).bounding_box()
    context = stored["context"]
    assert context["elementBox"] == {
        "x": round(box["x"]),
        "y": round(box["y"]),
        "width": round(box["width"]),
        "height": round(box["height"]),
    }
    assert context["clickPoint"] == {"x": point[0], "y": point[1]}
    area = context["captureArea"]
    assert (size["width"], size["height"]) == (area["width"], area["height"])
    assert area["x"] <= box["x"]
    assert box["x"] + box["width"] <= area["x"] + area["width"]
    assert area["y"] <= box["y"]
    assert box["y"] + box["height"] <= area["y"] + area["height"]
    # the page's state is in the image: the modal's text, the typed words inside the field
    # (an empty field, or a page drawn afresh without the modal, is white there)
    where = inside(page.locator(state).bounding_box(), area)
    assert ink(page, image, where) > 0.02
    if state == "#search":  # docs/review.md shows it
        (DOCS / "review-capture.png").write_bytes(image)
    page.evaluate("document.getElementById('modal').hidden = true")
    page.fill("#search", "")
    page.evaluate("document.activeElement.blur()")
    assert ink(page, clipped(page, page.screenshot(), area), where) == 0


def clipped(page: Any, screenshot: bytes, area: dict[str, int]) -> bytes:
    """``screenshot`` cut to ``area``, as PNG bytes (drawn by Chromium)."""
    data = page.evaluate(
        """async ([b64, area]) => {
            const bitmap = await createImageBitmap(
                new Blob([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]),
                area.x, area.y, area.width, area.height);
            const canvas = new OffscreenCanvas(area.width, area.height);
            canvas.getContext("2d").drawImage(bitmap, 0, 0);
            const blob = await canvas.convertToBlob({ type: "image/png" });
            const bytes = new Uint8Array(await blob.arrayBuffer());
            let text = "";
            for (const byte of bytes) text += String.fromCharCode(byte);
            return btoa(text);
        }""",
        [base64.b64encode(screenshot).decode(), area],
    )
    return base64.b64decode(data)


@pytest.mark.parametrize("how", ["paste", "drop"])
def test_an_image_pasted_or_dropped_into_the_composer_is_attached_as_offered(
    review: Review, page: Any, how: str
) -> None:
    open_shop(page, review, "/")
    page.click(f"{OVERLAY} >> button.mode")
    page.click("#promo")
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.evaluate(
        """([how, b64]) => {
            const root = document.querySelector("[data-maple-overlay]").shadowRoot;
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const files = new DataTransfer();
            files.items.add(new File([bytes], "mine.png", { type: "image/png" }));
            const event = how === "paste"
                ? new ClipboardEvent("paste", { clipboardData: files, bubbles: true })
                : new DragEvent("drop", { dataTransfer: files, bubbles: true, cancelable: true });
            root.querySelector("textarea").dispatchEvent(event);
        }""",
        [how, base64.b64encode(PIXEL).decode()],
    )
    page.wait_for_selector(f"{OVERLAY} >> .shot:has-text('mine.png')")
    body = f"Use this picture instead ({how})."
    page.fill(f"{OVERLAY} >> textarea", body)
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text({json.dumps(body)})", state="attached")
    attachments = review.comment(body)["attachments"]
    assert [a["source"] for a in attachments] == ["capture", "offered"]
    assert media(review, attachments[1]["key"]) == PIXEL
