"""Presence in the review overlay, in Chromium: who is on each comment, on its pin and in the list.

An agent's claim shows "on it" (agent, since) within a second, and clears on release; an
agent's question shows "waiting for you"; a resolution "resolved"; a reply and a resolution say
which agent, model and session wrote them; a hostile agent name is shown as text (issue 28).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.claims import Claimant, ClaimRequest
from maple_core.conversation import Role
from maple_core.cursor import format_js_timestamp
from maple_core.thread_events import ThreadEvent
from tests.overlay_support import BRANCH, OVERLAY, Review, reviewing
from tests.test_review_overlay_conversation import APP, HOSTILE, commented, entry, resolve

AGENT = Claimant.of("claude-code", "ms-overlay", "claude-sonnet-4-5")


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Review]:
    repo = make_repo(tmp_path_factory.mktemp("presence") / "desk", BRANCH)
    with reviewing(APP, repo) as served:
        yield served


def store(review: Review) -> FileCommentStore:
    return FileCommentStore(SystemClock(), review.repo)


def pin(comment: dict[str, Any]) -> str:
    return f'{OVERLAY} >> .pin[data-maple-comment="{comment["id"]}"]'


def test_a_claim_shows_on_it_within_a_second_and_clears_on_release(
    review: Review, page: Any
) -> None:
    stored = commented(page, review, "/claimed", "Make the title pop.")
    page.wait_for_selector(f'{pin(stored)}[data-maple-presence="nobody"]', timeout=6000)
    assert page.text_content(f"{entry(stored)} >> .presence") == "nobody yet"
    claimed = store(review).claim(stored["id"], ClaimRequest.claim(AGENT))
    assert claimed.decision.granted
    began = time.monotonic()
    page.wait_for_selector(f'{pin(stored)}[data-maple-presence="on-it"]', timeout=1000)
    page.wait_for_selector(f'{entry(stored)}[data-maple-presence="on-it"]', timeout=1000)
    assert time.monotonic() - began <= 1.0
    shown = page.text_content(f"{entry(stored)} >> .presence") or ""
    assert shown.startswith("on it: claude-code since ")
    assert "on it: claude-code" in (page.get_attribute(pin(stored), "aria-label") or "")
    store(review).claim(stored["id"], ClaimRequest.release(AGENT))
    page.wait_for_selector(f'{pin(stored)}[data-maple-presence="nobody"]', timeout=6000)
    assert page.text_content(f"{entry(stored)} >> .presence") == "nobody yet"


def test_a_question_is_waiting_for_you_and_a_resolution_is_resolved(
    review: Review, page: Any
) -> None:
    stored = commented(page, review, "/asked", "Align the hours.")
    store(review).claim(stored["id"], ClaimRequest.claim(AGENT))
    store(review).converse(
        stored["id"],
        ThreadEvent.reply(Role.AGENT, "Left or centre?", question=True, by=AGENT.signature()),
    )
    page.wait_for_selector(f'{pin(stored)}[data-maple-presence="waiting-for-you"]', timeout=6000)
    assert page.text_content(f"{entry(stored)} >> .presence") == "waiting for you"
    who = page.text_content(f'{entry(stored)} >> li[data-maple-role="agent"] >> .who') or ""
    assert "· claude-code · claude-sonnet-4-5 · session ms-overlay" in who
    resolve(review, stored)
    page.wait_for_selector(f'{pin(stored)}[data-maple-presence="resolved"]', timeout=6000)
    assert page.text_content(f"{entry(stored)} >> .presence") == "resolved"


def test_a_hostile_agent_name_is_shown_as_text(review: Review, page: Any) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    stored = commented(page, review, "/hostile-agent", "Check the title.")
    now = datetime.now(UTC)
    planted = {  # as a hand edit or another tool could leave it: the name never made inert
        "agent": HOSTILE,
        "session": "ms-hostile",
        "since": format_js_timestamp(now),
        "expires": format_js_timestamp(now + timedelta(minutes=5)),
    }
    claims = review.repo / ".maple" / "feat-shop" / "claims.json"
    claims.write_text(json.dumps({"version": 1, "claims": {stored["id"]: planted}}))
    page.wait_for_selector(f'{pin(stored)}[data-maple-presence="on-it"]', timeout=6000)
    shown = page.text_content(f"{entry(stored)} >> .presence") or ""
    assert HOSTILE in shown
    assert page.locator(f"{entry(stored)} >> img").count() == 0
    page.wait_for_timeout(300)
    assert dialogs == []
