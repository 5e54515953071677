"""A comment's thread in the review overlay, in Chromium: the agent's question shown and marked
as waiting for the reviewer, the reviewer's reply, reopening and confirmation landing in the
store as theirs, a refused answer shown, a reply being written surviving the list's redraw, and
hostile words shown as text (issue 18)."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx

from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.conversation import Role
from maple_core.thread_events import ThreadEvent
from tests.overlay_support import (
    OVERLAY,
    Review,
    one_page_app,
    open_shop,
    pick,
    review_fixture,
    send,
)

DESK = """<!doctype html><html><head><title>Desk</title></head><body>
<h1 id="title">Help desk</h1>
<p id="hours">Open 9 to 5</p>
</body></html>"""

HOSTILE = "<img src=x onerror=alert(1)>"


APP = one_page_app(DESK)


review = review_fixture(APP, "desk")


def agent_says(review: Review, comment: dict[str, Any], body: str, *, question: bool) -> None:
    """The agent's words, written to the store as an agent writes them (not through the proxy,
    whose route takes every browser's words as a reviewer's)."""
    store = FileCommentStore(SystemClock(), review.repo)
    store.converse(comment["id"], ThreadEvent.reply(Role.AGENT, body, question=question))


def resolve(review: Review, comment: dict[str, Any]) -> None:
    answer = httpx.patch(
        review.proxy.url + "/__maple/api/comments/" + comment["id"],
        json={"status": "resolved", "resolution": {"sha": "abc1234def", "note": "Fixed."}},
        headers={"origin": review.proxy.url},
    )
    assert answer.status_code == 200


def entry(comment: dict[str, Any]) -> str:
    return f'{OVERLAY} >> li[data-maple-comment="{comment["id"]}"]'


def commented(page: Any, review: Review, path: str, body: str, name: str = "Ana Lima") -> Any:
    """A comment by ``name`` on the page at ``path``, with the list open."""
    open_shop(page, review, path)
    page.click(f"{OVERLAY} >> button.list")
    page.fill(f"{OVERLAY} >> input.name", name)
    pick(page, "#title")
    send(page, body)
    return review.comment(body)


def until(check: Any, page: Any, timeout_ms: int = 6000) -> Any:
    """``check()``'s first truthy answer, asked while the page runs."""
    for _ in range(timeout_ms // 100):
        answer = check()
        if answer:
            return answer
        page.wait_for_timeout(100)
    return check()


def test_an_agents_question_is_shown_marked_and_answered_by_the_reviewer(
    review: Review, page: Any
) -> None:
    stored = commented(page, review, "/question", "Make the title pop.")
    agent_says(review, stored, "Bigger or brighter?", question=True)
    asked = f'{entry(stored)} >> li[data-maple-question="waiting"]'
    page.wait_for_selector(asked, timeout=6000)  # the next poll brings it
    assert "Question for you" in (page.text_content(asked) or "")
    assert "Bigger or brighter?" in (page.text_content(asked) or "")
    assert page.get_attribute(f"{asked}", "data-maple-role") == "agent"
    pinned = f'{OVERLAY} >> .pin[data-maple-comment="{stored["id"]}"]'
    assert page.get_attribute(pinned, "data-maple-waiting") == ""
    assert (page.get_attribute(pinned, "aria-label") or "").endswith("asks you a question")
    page.click(f"{entry(stored)} >> button.reply")
    field = f"{entry(stored)} >> textarea[data-maple-field=reply]"
    assert page.get_attribute(field, "aria-label") == "Your reply"
    assert page.is_hidden(f"{entry(stored)} >> button.reply")  # writing: Send reply or Cancel
    page.fill(field, "Brighter, please.")
    page.press(field, "Control+Enter")  # the keyboard sends it, as the button does
    page.wait_for_selector(f'{entry(stored)} >> li[data-maple-question="answered"]', timeout=6000)
    assert page.get_attribute(pinned, "data-maple-waiting") is None
    replies = review.comment("Make the title pop.")["replies"]
    assert [(r["role"], r["kind"], r["body"]) for r in replies] == [
        ("agent", "reply", "Bigger or brighter?"),
        ("reviewer", "reply", "Brighter, please."),
    ]
    assert (replies[1]["author"]["name"], replies[1]["question"]) == ("Ana Lima", False)
    shown = page.text_content(f'{entry(stored)} >> li[data-maple-role="reviewer"]') or ""
    assert "Ana Lima" in shown


def test_a_reopening_needs_a_reason_and_turns_the_comment_open(review: Review, page: Any) -> None:
    stored = commented(page, review, "/reopen", "Align the hours.")
    resolve(review, stored)
    page.wait_for_selector(f'{entry(stored)}[data-maple-status="resolved"]', timeout=6000)
    page.click(f"{entry(stored)} >> button.reopen")
    page.click(f"{entry(stored)} >> button.reopen-send")  # no reason given: nothing is sent
    problem = f"{entry(stored)} >> .conversation > .problem"
    page.wait_for_selector(problem, state="visible")
    assert "Say why" in (page.text_content(problem) or "")
    assert review.comment("Align the hours.")["status"] == "resolved"
    page.fill(f"{entry(stored)} >> textarea[data-maple-field=reopen]", "Still ragged on a phone.")
    page.click(f"{entry(stored)} >> button.reopen-send")
    page.wait_for_selector(f'{entry(stored)}[data-maple-status="open"]', timeout=6000)
    now = review.comment("Align the hours.")
    assert now["status"] == "open"
    last = now["replies"][-1]
    assert (last["kind"], last["role"], last["body"], last["author"]["name"]) == (
        "reopen",
        "reviewer",
        "Still ragged on a phone.",
        "Ana Lima",
    )
    assert "reopened it" in (
        page.text_content(f'{entry(stored)} >> li[data-maple-kind="reopen"]') or ""
    )


def test_a_confirmation_is_recorded_and_shown_with_the_reviewers_name(
    review: Review, page: Any
) -> None:
    stored = commented(page, review, "/confirm", "Show the hours in bold.", name="Bo Berg")
    resolve(review, stored)
    confirm = f"{entry(stored)} >> button.confirm"
    page.wait_for_selector(confirm, timeout=6000)
    page.focus(confirm)
    page.keyboard.press("Enter")  # a labelled button, reached by keyboard
    page.wait_for_selector(f"{entry(stored)} >> .confirmed", timeout=6000)
    assert page.text_content(f"{entry(stored)} >> .confirmed") == "Confirmed by Bo Berg"
    assert page.locator(confirm).count() == 0  # confirmed once: no second button
    last = review.comment("Show the hours in bold.")["replies"][-1]
    assert (last["kind"], last["role"], last["author"]["name"]) == (
        "confirm",
        "reviewer",
        "Bo Berg",
    )
    assert last["resolution"]["sha"] == "abc1234def"


def test_a_refused_answer_is_shown_and_the_words_are_kept(review: Review, page: Any) -> None:
    stored = commented(page, review, "/refused", "Fix the title.")
    page.route(
        "**/__maple/api/comments/*/thread",
        lambda route: route.fulfill(
            status=400, content_type="application/json", body='{"error": "The route said no."}'
        ),
    )
    page.click(f"{entry(stored)} >> button.reply")
    field = f"{entry(stored)} >> textarea[data-maple-field=reply]"
    page.fill(field, "Thanks!")
    page.click(f"{entry(stored)} >> button.reply-send")
    problem = f"{entry(stored)} >> .conversation > .problem"
    page.wait_for_selector(problem, state="visible")
    assert page.text_content(problem) == "Not sent: The route said no."
    assert page.get_attribute(problem, "role") == "alert"
    assert page.input_value(field) == "Thanks!"
    assert "replies" not in review.comment("Fix the title.")


def test_a_reply_being_written_survives_the_agents_words_arriving(
    review: Review, page: Any
) -> None:
    stored = commented(page, review, "/typing", "Say when we open on Sundays.")
    page.click(f"{entry(stored)} >> button.reply")
    field = f"{entry(stored)} >> textarea[data-maple-field=reply]"
    page.type(field, "Half")
    agent_says(review, stored, "Noon to four?", question=True)
    page.wait_for_selector(f'{entry(stored)} >> li[data-maple-question="waiting"]', timeout=6000)
    page.keyboard.type(" past noon.")  # still focused, caret at the end
    assert page.input_value(field) == "Half past noon."


def test_hostile_words_in_a_thread_are_shown_as_text_and_run_nothing(
    review: Review, page: Any
) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    stored = commented(page, review, "/hostile", "Check the markup.", name=HOSTILE)
    agent_says(review, stored, HOSTILE, question=False)
    page.wait_for_selector(f'{entry(stored)} >> li[data-maple-role="agent"]', timeout=6000)
    page.click(f"{entry(stored)} >> button.reply")
    page.fill(f"{entry(stored)} >> textarea[data-maple-field=reply]", HOSTILE)
    page.click(f"{entry(stored)} >> button.reply-send")
    mine = f'{entry(stored)} >> li[data-maple-role="reviewer"]'
    page.wait_for_selector(mine, timeout=6000)
    assert page.text_content(f"{mine} >> .said") == HOSTILE
    assert HOSTILE in (page.text_content(f"{mine} >> .who") or "")  # the name, as typed
    assert page.text_content(f'{entry(stored)} >> li[data-maple-role="agent"] >> .said') == HOSTILE
    assert page.locator(f"{entry(stored)} >> img").count() == 0
    page.wait_for_timeout(300)
    assert dialogs == []
    assert until(lambda: len(review.comment("Check the markup.").get("replies", [])) == 2, page)
