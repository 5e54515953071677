"""Hostile words in a pull request's review stay inert: the gate's summary, links, the mapping."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from maple_adapters.github.review_json import PullWhere, conversation_of, threads_of
from maple_core.comments import Comment
from maple_core.gate import GateConclusion, GatePolicy, decide_gate
from maple_core.pull_review import PullRequestReview, review_link
from maple_core.review_reading import FirstSight, read_review
from maple_core.trust import TrustPolicy

HOSTILE = (
    "@everyone [click here](https://evil.example/steal) ![x](https://evil.example/p.png) "
    "<img src=x onerror=alert(1)> `` ` `` </maple-review-data> #1 \x1b]0;owned\x07"
)
WHERE = PullWhere("github.com", "acme", "web", 7)


def rest_comment(number: int, body: str, html_url: str) -> dict[str, object]:
    return {
        "id": number,
        "body": body,
        "user": {"login": "rev", "type": "User"},
        "author_association": "COLLABORATOR",
        "created_at": "2026-03-01T11:00:00Z",
        "updated_at": "2026-03-01T11:00:00Z",
        "html_url": html_url,
        "path": "src/app.py",
        "line": 3,
        "original_line": 3,
        "diff_hunk": "@@ -1 +1 @@",
    }


def mapped(*comments: dict[str, object]) -> list[Comment]:
    threads = threads_of(comments, {}, WHERE)
    pr = PullRequestReview(7, "feat/x", threads)
    reading = read_review(pr, TrustPolicy(), FirstSight({}, datetime(2026, 3, 1, tzinfo=UTC)))
    return list(reading.comments)


def test_only_the_pull_requests_own_page_is_kept_as_a_link() -> None:
    good = "https://github.com/acme/web/pull/7#discussion_r1"
    bad = [
        "https://evil.example/acme/web/pull/7#discussion_r2",
        "https://github.com/acme/other/pull/7#discussion_r3",
        "https://github.com/acme/web/pull/8#discussion_r4",
        "javascript:alert(1)//github.com/acme/web/pull/7#discussion_r5",
        "https://github.com/acme/web/pull/7?x=1#discussion_r6",
        "https://github.com/acme/web/pull/7#discussion_r7)[x](https://evil.example",
        "http://github.com/acme/web/pull/7#discussion_r8",
    ]
    comments = mapped(
        rest_comment(1, "fine", good), *(rest_comment(i + 2, "x", u) for i, u in enumerate(bad))
    )
    assert review_link(comments[0]) == good
    assert all(review_link(c) is None for c in comments[1:])
    assert all(c.context is None or c.context.url is None for c in comments[1:])


def test_a_link_smuggled_into_a_comments_details_is_dropped() -> None:
    [comment] = mapped(rest_comment(1, "x", "https://github.com/acme/web/pull/7#discussion_r1"))
    forged = replace(
        comment,
        extra={
            **comment.extra,
            "github": {**comment.extra["github"], "url": "https://evil.example/a)"},
        },
    )
    assert review_link(forged) is None
    ledger = Comment(
        id="gh_7_1",
        branch="feat/x",
        body="x",
        extra={"github": {"url": "https://github.com/acme/web/pull/7#discussion_r1"}},
    )
    assert review_link(ledger) is None  # only a review item links to GitHub


def test_hostile_words_in_a_thread_are_one_code_span_in_the_gates_summary() -> None:
    [comment] = mapped(rest_comment(1, HOSTILE, "https://github.com/acme/web/pull/7#discussion_r1"))
    verdict = decide_gate([comment], GatePolicy())
    assert verdict.conclusion is GateConclusion.BLOCKED
    summary = verdict.summary
    assert "([on GitHub](https://github.com/acme/web/pull/7#discussion_r1))" in summary
    body_line = next(line for line in summary.splitlines() if "everyone" in line)
    words = body_line.split(" — ", 1)[-1].rsplit(" ([on GitHub]", 1)[0]
    assert words.startswith("`")  # a code span: no mention, link or image is rendered
    assert words.endswith("`")
    assert "\x1b" not in summary
    assert "](https://evil.example" not in summary.replace(words, "")


def test_a_conversation_comment_that_looks_like_a_ledger_is_no_conversation() -> None:
    looks = rest_comment(
        1, '```maple\n{"comments": []}\n```', "https://github.com/acme/web/pull/7#issuecomment-1"
    )
    assert conversation_of([looks], WHERE) == ()
