"""What maple understood from a reviewer's reply, in the review overlay in Chromium (issue 26).

The reviewer answers a resolved comment in their own words through ``maple review``'s overlay;
the real ``claude`` (against the scripted model) reads the reply; the overlay shows what maple
understood under the reply and lets the reviewer undo it, and a reading whose words were edited
since is shown as no longer counting, as the gate judges it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import Comment
from maple_core.listing import list_all
from maple_core.threads import confirmation_of
from maple_entrypoints.review import review_app
from tests.harness_support import Harness, start_harness
from tests.loopback import serve_asgi
from tests.overlay_support import BRANCH, OVERLAY, Review, open_shop, pick, send
from tests.test_review_overlay_conversation import APP, entry, resolve


def model_reads(words: str) -> Any:
    if "still broken" in words:
        return {"outcome": "changes-requested", "remarks": []}
    if "?" in words:
        return {"outcome": "wait", "remarks": []}
    return {"outcome": "approved", "remarks": []}


@pytest.fixture(scope="module")
def harness(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Harness:
    started = start_harness("claude", tmp_path_factory.mktemp("claude"), request)
    started.answer(model_reads)
    return started


@pytest.fixture(scope="module")
def review(harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
    repo = make_repo(tmp_path_factory.mktemp("reading") / "desk", BRANCH)
    app = serve_asgi(APP)
    proxy = serve_asgi(review_app(app.url, repo, BRANCH, classifier=harness.classifier()))
    try:
        yield Review(repo, app, proxy)
    finally:
        proxy.stop()
        app.stop()


def answered(page: Any, review: Review, path: str, body: str, words: str) -> dict[str, Any]:
    """A comment by Ana, resolved, then answered in ``words`` from the overlay."""
    open_shop(page, review, path)
    page.click(f"{OVERLAY} >> button.list")
    page.fill(f"{OVERLAY} >> input.name", "Ana Lima")
    pick(page, "#title")
    send(page, body)
    stored = review.comment(body)
    resolve(review, stored)
    page.wait_for_selector(f'{entry(stored)}[data-maple-status="resolved"]', timeout=10_000)
    page.click(f"{entry(stored)} >> button.reply")
    page.fill(f"{entry(stored)} >> textarea[data-maple-field=reply]", words)
    page.click(f"{entry(stored)} >> button.reply-send")
    return stored


def kept(review: Review, stored: dict[str, Any]) -> Comment:
    """The comment as the store keeps it now."""
    listed = list_all(FileCommentStore(SystemClock(), review.repo), BRANCH)
    return next(c for c in listed if c.id == stored["id"])


def understood(stored: dict[str, Any]) -> str:
    return f"{entry(stored)} >> .understood"


def test_maple_shows_it_read_lgtm_as_approval_and_the_reviewer_undoes_it(
    review: Review, page: Any
) -> None:
    stored = answered(page, review, "/lgtm", "Make the title bigger.", "LGTM ✅ — ça marche")
    line = understood(stored)
    page.wait_for_selector(f'{line}[data-maple-applied="confirm"]', timeout=60_000)
    assert "maple read this as approval and confirmed the resolution" in (
        page.text_content(line) or ""
    )
    page.wait_for_selector(f"{entry(stored)} >> .confirmed", timeout=10_000)
    assert page.text_content(f"{entry(stored)} >> .confirmed") == "Confirmed by Ana Lima"
    made = f'{entry(stored)} >> li[data-maple-kind="confirm"]'
    assert "(maple, from their reply)" in (page.text_content(made) or "")
    page.click(f"{line} >> button.undo")
    page.wait_for_selector(f"{line}:has-text('undone by Ana Lima')", timeout=10_000)
    assert page.locator(f"{entry(stored)} >> .confirmed").count() == 0
    assert page.locator(f"{line} >> button.undo").count() == 0
    assert page.locator(f"{entry(stored)} >> button.confirm").count() == 1  # the buttons stay
    comment = kept(review, stored)
    assert confirmation_of(comment) is None


def test_a_confirm_pressed_after_the_reading_stands_when_the_reading_is_undone(
    review: Review, page: Any
) -> None:
    stored = answered(page, review, "/keep", "Make the footer darker.", "LGTM, looks right now")
    line = understood(stored)
    page.wait_for_selector(f'{line}[data-maple-applied="confirm"]', timeout=60_000)
    page.click(f"{entry(stored)} >> button.confirm")  # offered while only maple's confirmation
    pressed = f'{entry(stored)} >> li[data-maple-kind="confirm"]:not(:has-text("(maple"))'
    page.wait_for_selector(pressed, timeout=10_000)
    assert page.locator(f"{entry(stored)} >> button.confirm").count() == 0
    page.click(f"{line} >> button.undo")
    page.wait_for_selector(f"{line}:has-text('undone by Ana Lima')", timeout=10_000)
    assert page.text_content(f"{entry(stored)} >> .confirmed") == "Confirmed by Ana Lima"
    comment = kept(review, stored)
    confirmation = confirmation_of(comment)
    assert confirmation is not None
    assert confirmation.classified is None


def test_a_reopening_maple_made_is_shown_and_undone_back_to_resolved(
    review: Review, page: Any
) -> None:
    stored = answered(page, review, "/safari", "Fix the hours.", "still broken on Safari")
    line = understood(stored)
    page.wait_for_selector(f'{line}[data-maple-applied="reopen"]', timeout=60_000)
    page.wait_for_selector(f'{entry(stored)}[data-maple-status="open"]', timeout=10_000)
    assert "changes requested and reopened the comment" in (page.text_content(line) or "")
    page.click(f"{line} >> button.undo")
    page.wait_for_selector(f'{entry(stored)}[data-maple-status="resolved"]', timeout=10_000)
    assert review.comment("Fix the hours.")["status"] == "resolved"


def test_a_question_changes_nothing_and_offers_no_undo(review: Review, page: Any) -> None:
    stored = answered(page, review, "/question", "Bold the title.", "What about dark mode?")
    line = understood(stored)
    page.wait_for_selector(f'{line}[data-maple-outcome="wait"]', timeout=60_000)
    assert "not decisive yet and changed nothing" in (page.text_content(line) or "")
    assert page.locator(f"{line} >> button.undo").count() == 0
    assert page.locator(f"{entry(stored)} >> button.confirm").count() == 1


def test_words_edited_after_the_reading_no_longer_count_in_the_overlay(
    review: Review, page: Any
) -> None:
    stored = answered(page, review, "/edited", "Center the title.", "Looks right now")
    line = understood(stored)
    page.wait_for_selector(f'{line}[data-maple-applied="confirm"]', timeout=60_000)
    page.wait_for_selector(f"{entry(stored)} >> .confirmed", timeout=10_000)
    ledger = review.repo / ".maple" / "feat-shop" / "comments.json"
    data = json.loads(ledger.read_text())
    for comment in data["comments"]:
        for reply in comment.get("replies", []):
            if reply.get("body") == "Looks right now":
                reply["body"] = "Looks wrong now"  # an edit after the reading, as on GitHub
    ledger.write_text(json.dumps(data))
    page.wait_for_selector(f"{line}:has-text('the words changed since')", timeout=10_000)
    assert page.locator(f"{entry(stored)} >> .confirmed").count() == 0
