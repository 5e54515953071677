"""The overlay's screenshots: from the reviewer's Send to the comment on disk with its image,
against the same Send whose POST carries no image (the capture turned off), in Chromium.

Send is pressed at once after the pick, while the capture may still be drawing: the worst case
(a reviewer who types for a second or more sends after it has finished). The time runs from the
click on Send until ``comments.json`` holds the comment and, with an image, until its file is in
``media/``, polled every millisecond from here.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from contract_tests.support import make_repo
from maple_entrypoints.review import review_app
from tests.loopback import serve_asgi
from tests.test_review_overlay_app import APP, OVERLAY

CHROMIUM = "/usr/bin/chromium"
BRANCH = "feat/bench"
RUNS = 15
BUDGET_MS = 1500.0
"""Send to stored, with the image: what a reviewer still feels as immediate feedback."""


def _stored(repo: Path, body: str, images: int) -> bool:
    ledgers = list((repo / ".maple").glob("*/comments.json"))
    if not ledgers or body not in ledgers[0].read_text(encoding="utf-8"):
        return False
    return len(list((repo / ".maple").glob("*/media/shot-*"))) >= images


def _send_to_disk(page: Any, repo: Path, body: str, images: int) -> float:
    page.click(f"{OVERLAY} >> button.mode")
    page.click("#buy")
    page.fill(f"{OVERLAY} >> textarea", body)
    start = time.perf_counter()
    page.click(f"{OVERLAY} >> button.send", no_wait_after=True)
    while not _stored(repo, body, images):
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    page.wait_for_selector(f"{OVERLAY} >> textarea", state="hidden")  # the composer closed
    return elapsed


def capture_row() -> tuple[str, str, str, float, str, bool]:
    name = "overlay Send to comment + image on disk, Chromium (median)"
    if shutil.which(CHROMIUM) is None:
        return (name, "skipped", "Chromium is not installed", 0.0, f"≤ {BUDGET_MS:g} ms", True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="maple-bench-capture-") as tmp:
        repo = make_repo(Path(tmp) / "shop", BRANCH)
        app = serve_asgi(APP)
        proxy = serve_asgi(review_app(app.url, repo, BRANCH))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, args=["--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(proxy.url + "/")
                page.wait_for_selector(f"{OVERLAY} >> button.mode")
                with_image, without = [], []
                for i in range(RUNS + 1):  # the first of each warms up
                    with_image.append(_send_to_disk(page, repo, f"with image {i}", i + 1))
                page.evaluate(
                    "document.body.appendChild(Object.assign(document.createElement('script'),"
                    " { type: 'text/plain' })).setAttribute('data-maple-capture', 'off')"
                )
                for i in range(RUNS + 1):
                    without.append(_send_to_disk(page, repo, f"without image {i}", 0))
                browser.close()
        finally:
            proxy.stop()
            app.stop()
    figure = statistics.median(with_image[1:])
    anchor = statistics.median(without[1:])
    return (
        name,
        f"{figure * 1000:.0f} ms",
        f"the same Send, its POST without an image: {anchor * 1000:.0f} ms",
        figure / anchor,
        f"≤ {BUDGET_MS:g} ms",
        figure * 1000 <= BUDGET_MS,
    )
