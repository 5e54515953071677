"""The pull-request ledger's markdown and fence (behaviour §4.1, §4.3)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from maple_adapters.github.fitting import fit_fence, fit_ledger
from maple_adapters.github.ledger import BODY_LIMIT, GitHubLedger, github_length
from maple_adapters.github.merging import merge_ledgers
from maple_adapters.github.parsing import UnsupportedFenceError, parse_ledger_body
from maple_adapters.github.rendering import LedgerTooLargeError, render_ledger_body
from maple_core.anchors import Anchor
from maple_core.approvals import Approval
from maple_core.comments import Comment, Resolution
from maple_core.conversation import ReplyKind, Role, thread_of, with_thread
from maple_core.errors import InvalidRecordError
from maple_core.page_context import Context
from maple_core.statuses import CommentStatus
from maple_core.thread_events import ThreadEvent, apply_event
from maple_core.threads import confirmation_of
from tests.github.maple_ledger import maple_body, maple_record

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
        "feat/x", "9f2c1ab", "2026-01-01T00:00:00.000Z", {"name": "Dana"}, id="gha_7_1"
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


# -- threads -----------------------------------------------------------------------------------


def stamp(n: int) -> str:
    return f"2026-01-01T12:00:{n:02d}.000000Z"


def replied(comment: Comment, n: int, role: Role, body: str, **kw: object) -> Comment:
    """``comment`` with one more reply, received at second ``n`` (and stamped as changed then)."""
    event = ThreadEvent.reply(role, body, **kw)  # type: ignore[arg-type]
    after = apply_event(comment, event, f"ghr_7_{n:02d}", stamp(n), stamp(n)[:23] + "Z")
    return replace(after, extra={**after.extra, "updatedAt": stamp(n)})


def test_two_racing_replies_both_stay_in_the_order_they_were_received() -> None:
    base = c(1)
    a = replied(base, 11, Role.AGENT, "from a")
    b = replied(base, 12, Role.REVIEWER, "from b")
    for order in ([a, b], [b, a]):
        merged = merge_ledgers([GitHubLedger("feat/x", (x,)) for x in order])
        [comment] = merged.comments
        assert [r.body for r in thread_of(comment)] == ["from a", "from b"]
        assert comment.extra["updatedAt"] == stamp(12)  # the newest version wins the rest
    both = replied(a, 13, Role.AGENT, "and more")
    merged = merge_ledgers([GitHubLedger("feat/x", (both,)), GitHubLedger("feat/x", (b,))])
    assert [r.id for r in thread_of(merged.comments[0])] == ["ghr_7_11", "ghr_7_12", "ghr_7_13"]


def _read(comment: Comment, entry_id: str, **reading: object) -> Comment:
    """``comment`` with entry ``entry_id`` holding a reading (``classification``), in place."""
    entries = [
        {**e, "classification": {"outcome": "approved", **reading}}
        if isinstance(e, dict) and e.get("id") == entry_id
        else e
        for e in comment.extra["replies"]  # type: ignore[union-attr]
    ]
    return replace(comment, extra={**comment.extra, "replies": entries})


def test_a_reading_noted_on_an_entry_survives_a_racing_version_without_it() -> None:
    base = replied(c(1), 11, Role.REVIEWER, "LGTM now")
    noted = _read(base, "ghr_7_11", at="2026-01-01T12:00:20.000Z")
    racer = replied(base, 12, Role.AGENT, "Thanks!")  # newer, written on a read before the note
    for order in ([noted, racer], [racer, noted]):
        merged = merge_ledgers([GitHubLedger("feat/x", (x,)) for x in order])
        [entry, thanks] = thread_of(merged.comments[0])
        assert entry.extra["classification"] == {  # type: ignore[comparison-overlap]
            "outcome": "approved",
            "at": "2026-01-01T12:00:20.000Z",
        }
        assert thanks.body == "Thanks!"
    undone = _read(base, "ghr_7_11", at="2026-01-01T12:00:20.000Z", undone={"at": "x"})
    for order in ([noted, undone], [undone, noted]):
        merged = merge_ledgers([GitHubLedger("feat/x", (x,)) for x in order])
        [entry] = thread_of(merged.comments[0])
        assert entry.extra["classification"]["undone"] == {"at": "x"}  # type: ignore[index]


def test_a_thread_every_version_agrees_on_is_left_as_it_is() -> None:
    comment = replied(c(1), 11, Role.AGENT, "x")
    odd = replace(comment, extra={**comment.extra, "replies": ["not an entry", {"body": "no id"}]})
    for kept in (comment, odd):
        merged = merge_ledgers([GitHubLedger("feat/x", (kept,))] * 2)
        assert merged.comments[0].extra["replies"] == kept.extra["replies"]


def test_replies_are_shed_first_oldest_first_and_the_body_says_so() -> None:
    mocked = c(1, context=Context(viewport_width=1, viewport_height=1, mock=RECIPE))
    mocked = replied(mocked, 1, Role.REVIEWER, "r" * 500)
    mocked = with_thread(
        mocked,
        (
            *thread_of(mocked),
            *[
                replace(r, id=f"ghr_7_{n:02d}", received_at=stamp(n))
                for n, r in ((n, thread_of(mocked)[0]) for n in range(2, 30, 2))
            ],
        ),
    )
    other = c(2)
    for n in range(3, 30, 2):
        other = replied(other, n, Role.AGENT, "a" * 500)
    ledger = GitHubLedger("feat/x", (mocked, other))
    full, _ = fit_fence(ledger, budget=10**9)
    budget = len(full.encode()) - 5_000
    fitted = fit_ledger(ledger, budget)
    assert fitted.shed == ("replies",)
    assert len(fitted.text.encode()) <= budget
    assert "mock" in json.loads(fitted.text)["comments"][0]["context"]  # no detail shed yet
    kept = sorted(r.received_at or "" for x in fitted.comments for r in thread_of(x))
    every = sorted(r.received_at or "" for x in ledger.comments for r in thread_of(x))
    assert kept == every[fitted.replies_shed :]  # the oldest went, across both threads
    assert 0 < fitted.replies_shed < len(every)
    body = render_ledger_body(ledger, budget)
    assert (
        f"{fitted.replies_shed} older replies were left out to keep this ledger under GitHub's "
        "size limit." in body
    )
    assert "left out" not in render_ledger_body(ledger)


def test_reopen_and_confirm_entries_are_shed_after_plain_replies() -> None:
    resolution = Resolution("f" * 40, "2026-01-01T12:00:00.000Z")
    comment = c(1).with_status(CommentStatus.RESOLVED, resolution)
    confirm = apply_event(comment, ThreadEvent.confirm("ok " * 100), "ghr_7_00", stamp(0), "x")
    for n in range(1, 20):
        confirm = replied(confirm, n, Role.AGENT, "words " * 100)
    ledger = GitHubLedger("feat/x", (confirm,))
    full, _ = fit_fence(ledger, budget=10**9)
    fitted = fit_ledger(ledger, len(full.encode()) - 3_000)
    [kept] = fitted.comments
    assert thread_of(kept)[0].kind is ReplyKind.CONFIRM  # the oldest entry, yet kept
    assert confirmation_of(kept) is not None
    assert fitted.replies_shed > 0


def test_the_table_shows_each_conversation_and_keeps_reviewer_text_inert() -> None:
    hostile = "@everyone ![x](http://evil) <img src=x> [link](http://evil) `tick` | pipe"
    quiet = c(1)
    talked = replied(c(2), 11, Role.AGENT, "Which one?", question=True)
    answered = replied(
        replied(c(3), 12, Role.AGENT, "Bigger?", question=True),
        13,
        Role.REVIEWER,
        hostile,
        author={"name": "@mallory <b>x</b>", "id": "m"},
    )
    body = render_ledger_body(GitHubLedger("feat/x", (quiet, talked, answered)))
    rows = {line.split(" | ")[0]: line for line in body.splitlines() if line.startswith("| ")}
    assert "| # | Where | Comment | Conversation | Viewport |" in body
    assert "| — |" in rows["| 1"]
    assert "1 reply · **waiting for the reviewer** |" in rows["| 2"]
    assert "2 replies ·" in rows["| 3"]
    assert "waiting" not in rows["| 3"]
    cell = rows["| 3"].split(" | ")[3]
    assert cell == (
        "2 replies · `@mallory <b>x</b>`: "
        "`@everyone ![x](http://evil) <img src=x> [link](http://evil) 'tick' ¦ pipe`"
    )
    table = body.split("```maple")[0]
    outside = re.sub(r"`[^`]*`", "", table)  # what GitHub renders: everything but code spans
    for unsafe in ("@everyone", "@mallory", "![", "](", "<img", "<b>", "http://evil"):
        assert unsafe not in outside


def test_a_thread_stays_within_githubs_body_limit() -> None:
    many = tuple(
        replied(c(i, "b" * 300), 1, Role.REVIEWER, "w" * 9_000 + " @everyone") for i in range(1, 61)
    )
    body = render_ledger_body(GitHubLedger("feat/x", many))
    assert github_length(body) <= BODY_LIMIT
    assert re.search(r"\n\d+ older replies were left out", body)
    assert len(fence_text(body).encode()) <= 40_000
    rows = [line for line in body.splitlines() if line.startswith("| ") and "#" not in line]
    assert rows
    assert all(line.endswith(" |") and len(line) < 1_000 for line in rows)


def test_maple_compat_a_thread_survives_a_parse_and_a_rewrite_byte_for_byte() -> None:
    replies = [
        {
            "at": "2026-01-01T12:00:01.000Z",
            "author": {"id": "r", "name": "Rae", "avatar": "x"},
            "body": 'Brighter, please 👍 \u2028 "quoted"',
            "id": "ghr_7_aa",
            "kind": "reply",
            "question": False,
            "receivedAt": "2026-01-01T12:00:01.000001Z",
            "role": "reviewer",
            "someFutureKey": {"nested": [1, 2.5, None]},
        },
        {"id": "ghr_7_bb", "kind": "mystery", "role": "alien", "receivedAt": "not a stamp"},
        "not an object",
    ]
    ledger = GitHubLedger("feat/x", (replace(c(1), extra={"replies": replies}),))
    first = render_ledger_body(ledger)
    parsed = parse_ledger_body(first, "feat/x")
    assert parsed is not None
    again = render_ledger_body(parsed)
    assert fence_text(again) == fence_text(first)
    stable = json.dumps(replies, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert f'"replies":{stable}' in fence_text(again)
    merged = merge_ledgers([parsed, parsed])
    assert fence_text(render_ledger_body(merged)) == fence_text(first)


def fence_text(body: str) -> str:
    match = re.search(r"```maple\n(.*?)\n```", body, re.S)
    assert match
    return match.group(1)


def test_a_reply_written_on_a_stale_read_never_undoes_a_reviewers_reopening() -> None:
    """Two writers: the reviewer reopens; the agent, from a read before that, replies. Only a
    status change stamps ``updatedAt`` (as the store writes them), so the union of the two
    ledgers keeps the reopening's status and both entries (issue 18's attack review)."""
    resolved = c(1, status=CommentStatus.RESOLVED)
    resolved = replace(
        resolved,
        resolution=Resolution(sha="a" * 40, at="2026-01-01T12:00:01.000Z"),
        extra={**resolved.extra, "updatedAt": "2026-01-01T12:00:01.000000Z"},
    )
    reopened = apply_event(
        resolved, ThreadEvent.reopen("Still wraps."), "r1", "2026-01-01T12:00:10.000000Z", "t"
    )
    reopened = replace(
        reopened, extra={**reopened.extra, "updatedAt": "2026-01-01T12:00:10.000000Z"}
    )
    replied = apply_event(  # no status change: the store leaves updatedAt alone
        resolved, ThreadEvent.reply(Role.AGENT, "Done."), "r2", "2026-01-01T12:00:11.000000Z", "t"
    )
    merged = merge_ledgers(
        [GitHubLedger("feat/x", (reopened,)), GitHubLedger("feat/x", (replied,))]
    )
    [comment] = merged.comments
    assert comment.status is CommentStatus.OPEN
    assert [r.id for r in thread_of(comment)] == ["r1", "r2"]


# -- which fence is the ledger (issue 22, points 2 and 6) ----------------------------------------

LEDGER_OF_TWO = maple_body(
    [maple_record(1, "The header wraps."), maple_record(2, "```maple\n{}\n```")], raw=True
)


@pytest.mark.parametrize(
    "body",
    [
        LEDGER_OF_TWO,  # a reviewer's empty fence first, in a table that shows bodies raw
        maple_body([maple_record(1, "x"), maple_record(2, "```maple\n{}\n```")]),  # with <br>
        maple_body(
            [maple_record(1, 'a | b\n```maple\n{"comments":[],"version":1}\n```')], raw=True
        ),
        render_ledger_body(
            GitHubLedger("b", (Comment(id="gh_1_1", branch="b", body="```maple\n{}\n```"),))
        ),
    ],
    ids=["raw", "br", "pipes", "maples-own"],
)
def test_the_ledger_is_the_fence_that_holds_the_reviewers_words(body: str) -> None:
    ledger = parse_ledger_body(body, "b")
    assert ledger is not None
    assert [c.id for c in ledger.comments][:1] == ["gh_1_1"]


@pytest.mark.parametrize(
    "body",
    [
        # two ledgers, neither quoting the other
        '```maple\n{"comments":[],"version":1}\n```\n\n' + LEDGER_OF_TWO,
        # a reviewer's ledger ahead of the real one, which was cut short
        maple_body(
            [maple_record(1, '```maple\n{"comments":[],"version":1}\n```')], raw=True
        ).rsplit("\n```\n", 1)[0],
    ],
    ids=["two-ledgers", "cut-short"],
)
def test_a_body_whose_ledger_cannot_be_told_is_refused(body: str) -> None:
    with pytest.raises(InvalidRecordError, match="cannot tell which one is the ledger"):
        parse_ledger_body(body, "b")


@pytest.mark.parametrize(
    ("text", "cost"),
    [("abc", 3), ('"', 2), ("\n", 2), ("\\", 2), ("\x01", 6), ("é", 1), ("\ud83d", 6)],
)
def test_a_body_is_counted_as_github_counts_it(text: str, cost: int) -> None:
    assert github_length(text) == cost


def test_detail_and_replies_are_shed_until_the_body_fits_as_github_counts_it() -> None:
    """Quotes and line breaks cost two characters each on GitHub: a fence within its byte
    budget can still make a body GitHub refuses, so shedding goes on until the body fits."""
    talky = tuple(replied(c(i, '"' * 2_500), 4, Role.REVIEWER, '"\n' * 1_000) for i in range(1, 6))
    body = render_ledger_body(GitHubLedger("feat/x", talky))
    assert github_length(body) <= BODY_LIMIT
    assert len(fence_text(body).encode()) <= 40_000
    assert "left out" in body


def test_a_ledger_that_cannot_fit_is_refused_naming_the_limit_and_the_longest() -> None:
    huge = tuple(c(i, "\x01" * 9_000) for i in range(1, 3))  # each 54,000 once escaped
    with pytest.raises(LedgerTooLargeError, match="65,536") as refused:
        render_ledger_body(GitHubLedger("feat/x", huge))
    assert "gh_7_1 (" in str(refused.value)
    assert "nothing was written" in str(refused.value)
