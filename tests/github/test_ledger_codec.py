"""The pull-request ledger's markdown and fence (behaviour §4.1, §4.3)."""

from __future__ import annotations

import json
import re

import pytest

from maple_adapters.github.ledger import (
    GitHubLedger,
    UnsupportedFenceError,
    fit_fence,
    merge_ledgers,
    parse_ledger_body,
    render_ledger_body,
)
from maple_core.approvals import Approval
from maple_core.comments import Anchor, Comment, Context, Resolution
from maple_core.errors import InvalidRecordError
from maple_core.statuses import CommentStatus

RECIPE = {"version": 1, "calls": [{"key": "trpc:roast.list", "state": "empty"}], "request": "none"}


def c(n: int, body: str = "Tighten it", **kw: object) -> Comment:
    return Comment(
        id=f"gh_7_{n}",
        branch="feat/x",
        body=body,
        created_at="2026-01-01T12:00:00.000Z",
        received_at=f"2026-01-01T12:00:00.{n:06d}Z",
        **kw,  # type: ignore[arg-type]
    )


def fence_of(body: str) -> dict:  # type: ignore[type-arg]
    match = re.search(r"```maple\n(.*?)\n```", body, re.S)
    assert match
    return json.loads(match.group(1))  # type: ignore[no-any-return]


def test_the_body_has_a_table_and_a_visible_key_sorted_fence() -> None:
    ledger = GitHubLedger(
        "feat/x",
        (
            c(
                1,
                "a | b\nc",
                anchor=Anchor(component="Header"),
                context=Context(viewport_width=1440, viewport_height=900),
            ),
        ),
    )
    body = render_ledger_body(ledger)
    assert "| # | Where | Comment | Viewport |" in body
    assert "| 1 | `Header` | `a ¦ b c` | 1440×900 |" in body
    assert "```maple\n" in body
    assert "<!--" not in body
    fence = re.search(r"```maple\n(.*?)\n```", body, re.S).group(1)  # type: ignore[union-attr]
    assert fence == json.dumps(
        json.loads(fence), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    assert list(json.loads(fence)) == ["branch", "comments", "version"]


def test_a_status_column_appears_once_anything_is_not_open() -> None:
    body = render_ledger_body(
        GitHubLedger(
            "feat/x",
            (c(1), c(2, status=CommentStatus.ORPHANED), c(3, status=CommentStatus.NEEDS_REVERIFY)),
        )
    )
    assert "| # | Where | Comment | Status | Viewport |" in body
    assert "| Open |" in body
    assert "| Unpinned |" in body
    assert "| Re-verify |" in body


def test_approvals_ride_in_the_ledger() -> None:
    approval = Approval(
        "gha_7_1", "feat/x", "9f2c1ab", "2026-01-01T00:00:00.000Z", {"name": "Dana"}
    )
    body = render_ledger_body(GitHubLedger("feat/x", (c(1),), (approval,)))
    assert "Approved:" in body
    assert fence_of(body)["approvals"][0]["id"] == "gha_7_1"
    again = parse_ledger_body(body, "feat/x")
    assert again is not None
    assert again.approvals == (approval,)


def test_round_trip_with_the_branch_asked_for_and_recipes_as_version_2() -> None:
    original = c(
        1,
        context=Context(url="https://p.example/", mock=RECIPE),
        resolution=Resolution(sha="9f1c0de", note="Done.", at="2026-01-01T13:00:00.000Z"),
        status=CommentStatus.RESOLVED,
        extra={"future": [1, 2]},
    )
    body = render_ledger_body(GitHubLedger("feat/x", (original,)))
    assert "· mocked" in body
    parsed = parse_ledger_body(body, "identifier-asked")
    assert parsed is not None
    [comment] = parsed.comments
    assert comment.branch == "identifier-asked"
    assert comment.resolution == original.resolution
    assert comment.extra == {"future": [1, 2]}
    assert comment.context is not None
    assert comment.context.mock is not None
    assert comment.context.mock["version"] == 2


def test_an_unreadable_recipe_is_dropped_and_the_comment_kept() -> None:
    bad = c(1, context=Context(url="https://p.example/", mock={"version": 9}))
    parsed = parse_ledger_body(render_ledger_body(GitHubLedger("feat/x", (bad,))))
    assert parsed is not None
    assert parsed.comments[0].context is not None
    assert parsed.comments[0].context.mock is None


def test_bodies_without_a_fence_are_not_ledgers_and_bad_fences_are_errors() -> None:
    assert parse_ledger_body("LGTM, ship it") is None
    with pytest.raises(InvalidRecordError, match="not JSON"):
        parse_ledger_body("```maple\n{nope\n```")
    with pytest.raises(UnsupportedFenceError, match="version 2"):
        parse_ledger_body('```maple\n{"version": 2, "comments": []}\n```')
    empty = parse_ledger_body("```maple\n{}\n```", "b")
    assert empty is not None
    assert empty.comments == ()


ONE = '{"branch":"b","comments":[{"id":"gh_1_1","branch":"b","body":"x","status":"open"}]}'


@pytest.mark.parametrize(
    "body",
    [
        f"  ```maple\n{ONE}\n```",  # indented
        f"See the block: ```maple\n{ONE}\n```",  # starts mid-line
        f"```maple extra words\n{ONE}\n```\n\n---",
        "```maple\n" + ONE.replace('"comments"', '"version":1.0,"comments"') + "\n```",
        "```maple\n" + ONE.replace('"comments"', '"version":"1","comments"') + "\n```",
    ],
)
def test_the_reader_reads_what_maple_reads(body: str) -> None:
    ledger = parse_ledger_body(body, "b")
    assert ledger is not None
    assert [c.id for c in ledger.comments] == ["gh_1_1"]


@pytest.mark.parametrize("comments", ['"none"', "{}", "null", "3"])
def test_a_fence_whose_comments_are_not_a_list_is_an_empty_ledger(comments: str) -> None:
    ledger = parse_ledger_body(f'```maple\n{{"branch":"b","comments":{comments}}}\n```', "b")
    assert ledger is not None
    assert ledger.comments == ()
    with pytest.raises(UnsupportedFenceError, match=r"version 1\.5"):
        parse_ledger_body('```maple\n{"version": 1.5, "comments": []}\n```')


def test_over_budget_detail_is_shed_in_marples_order() -> None:
    fat = c(
        1,
        anchor=Anchor(selector="main > div" * 20, quote={"exact": "x", "prefix": "p" * 300}),
        context=Context(
            url="https://p.example/",
            viewport_width=1,
            viewport_height=1,
            mock={"version": 2, "calls": []},
            extra={"regions": [{"role": "main", "width": 1}], "locale": "en"},
        ),
    )
    ledger = GitHubLedger(
        "feat/x",
        tuple(
            fat.__class__(**{**{s: getattr(fat, s) for s in fat.__slots__}, "id": f"gh_7_{i}"})
            for i in range(1, 41)
        ),
    )
    full, none_shed = fit_fence(ledger, budget=10**9)
    assert none_shed == ()
    text, shed = fit_fence(ledger, budget=len(full.encode()) - 1)
    assert shed == ("mock",)
    assert "mock" not in text
    text, shed = fit_fence(ledger, budget=2_000)
    assert shed == ("mock", "quote-context", "regions", "selector", "context", "quote")
    comment = json.loads(text)["comments"][0]
    assert "quote" not in comment["anchor"]
    assert set(comment["context"]) <= {
        "url",
        "viewportWidth",
        "viewportHeight",
        "devicePixelRatio",
        "colorScheme",
        "contentWidth",
    }


def test_merging_keeps_every_comment_and_the_newest_version() -> None:
    first = GitHubLedger("feat/x", (c(1), c(2)))
    racer_a = GitHubLedger("feat/x", (c(1), c(2), c(3, "from a")))
    resolved = c(1, status=CommentStatus.RESOLVED)
    racer_b = GitHubLedger("feat/x", (resolved, c(2), c(4, "from b")))
    merged = merge_ledgers([first, racer_a, racer_b])
    assert [x.id for x in merged.comments] == ["gh_7_1", "gh_7_2", "gh_7_3", "gh_7_4"]
    assert merged.comments[0].status is CommentStatus.RESOLVED


def test_two_racers_that_chose_one_number_both_keep_their_comment() -> None:
    a = GitHubLedger("feat/x", (c(1), c(2, "from a")))
    b_comment = Comment(
        id="gh_7_2", branch="feat/x", body="from b", received_at="2026-01-01T12:00:00.000099Z"
    )
    b = GitHubLedger("feat/x", (c(1), b_comment))
    merged = merge_ledgers([a, b])
    assert sorted(x.body for x in merged.comments) == ["Tighten it", "from a", "from b"]
    assert len({x.id for x in merged.comments}) == 3
    assert merge_ledgers([a, b]) == merged
