"""A pull request's own review threads, read by the real ``claude`` and ``codex`` (issue 26 on 25).

With ``MAPLE_CLASSIFIER`` set, a trusted author's reply in a thread maple resolved is read by the
harness against a scripted loopback model the first time the store sees it, instead of reopening
the thread outright: "LGTM now" confirms, "still broken on Safari" reopens in the reviewer's
words, a question waits, approval with remarks opens each remark as a comment linked to the
thread. A trusted person's ``COMMENTED`` review is read the same way: approved records it,
remarks become comments linked to it, a question leaves it open. Each reading is kept in the
ledger's record of the item, so it is read once. A stranger's "LGTM", a bot's, and a review
whose state already decides reach no model at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contract_tests.conftest import review_store
from contract_tests.github_peers import TOKEN
from contract_tests.support import FakeClock
from maple_adapters.github.pull_store import PullRequestStore
from maple_core.comments import Comment
from maple_core.conversation import CLASSIFICATION, ReplyKind, thread_of
from maple_core.feedback import REMARK_OF, Classification, Outcome, Transition, classification_of
from maple_core.listing import list_all
from maple_core.pull_review import GITHUB
from maple_core.resolving import resolve_comment
from maple_core.statuses import CommentStatus
from maple_core.threads import confirmation_of
from tests.github.fake_github import FakeGitHub, Served
from tests.github.test_end_to_end import checkout_at_head, env_for
from tests.harness_support import Harness, harness_fixture, model_reads
from tests.mcp_support import stdio_server, structured

BRANCH = "feat/review"
HEAD = "5eed5eed" * 5


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub(tokens={TOKEN: 1})


harness = harness_fixture(model_reads)


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull(BRANCH, head_sha=HEAD)
    served.fake.repo().associations.update({"rev": "COLLABORATOR", "lead": "OWNER"})
    return served.fake


@pytest.fixture
def store(
    served: Served, fake: FakeGitHub, harness: Harness, tmp_path: Path, clock: FakeClock
) -> PullRequestStore:
    return review_store(clock, served, "api", tmp_path, classifier=harness.classifier())


def resolved_thread(fake: FakeGitHub, store: PullRequestStore, clock: FakeClock) -> int:
    """A collaborator's line comment, resolved by maple on GitHub; its first comment's id."""
    root = fake.add_review_comment(1, "rev", "Rename this.")
    resolve_comment(store, f"ghrt_1_{root['id']}", HEAD, "Renamed it.", clock)
    assert fake.thread(root["id"]).resolved
    return int(root["id"])


def thread(store: PullRequestStore, root: int) -> Comment:
    return next(c for c in list_all(store, BRANCH) if c.id == f"ghrt_1_{root}")


def test_a_trusted_lgtm_confirms_and_is_read_once(
    fake: FakeGitHub,
    store: PullRequestStore,
    clock: FakeClock,
    harness: Harness,
    served: Served,
    tmp_path: Path,
) -> None:
    root = resolved_thread(fake, store, clock)
    reply = fake.reply_review_comment(1, root, "rev", "LGTM now")
    before = harness.readings()
    seen = thread(store, root)
    assert harness.readings() > before
    assert seen.status is CommentStatus.RESOLVED
    entry = next(r for r in thread_of(seen) if r.id == f"ghrc_1_{reply['id']}")
    record = classification_of(entry)
    assert record is not None
    assert (record.outcome, record.applied, record.harness) == (
        Outcome.APPROVED,
        Transition.CONFIRM,
        harness.name,
    )
    confirmation = confirmation_of(seen)
    assert confirmation is not None
    assert confirmation.classified == entry.id
    read = harness.readings()
    other = review_store(clock, served, "cli", tmp_path / "other", classifier=harness.classifier())
    again = thread(other, root)  # another process, over gh, with its own poll
    assert classification_of(next(r for r in thread_of(again) if r.id == entry.id)) == record
    assert harness.readings() == read  # recorded in the ledger, not recomputed
    assert fake.thread(root).resolved


def test_still_broken_reopens_in_the_reviewers_words(
    fake: FakeGitHub, store: PullRequestStore, clock: FakeClock
) -> None:
    root = resolved_thread(fake, store, clock)
    fake.reply_review_comment(1, root, "rev", "still broken on Safari")
    seen = thread(store, root)
    assert seen.status is CommentStatus.OPEN
    reopening = [r for r in thread_of(seen) if r.kind is ReplyKind.REOPEN]
    assert [r.body for r in reopening] == ["still broken on Safari"]


def test_a_question_waits_and_the_thread_stays_resolved(
    fake: FakeGitHub, store: PullRequestStore, clock: FakeClock
) -> None:
    root = resolved_thread(fake, store, clock)
    reply = fake.reply_review_comment(1, root, "rev", "what about dark mode?")
    seen = thread(store, root)
    assert seen.status is CommentStatus.RESOLVED
    assert confirmation_of(seen) is None
    entry = next(r for r in thread_of(seen) if r.id == f"ghrc_1_{reply['id']}")
    record = classification_of(entry)
    assert record is not None
    assert (record.outcome, record.applied) == (Outcome.WAIT, Transition.NONE)


def test_approval_with_remarks_confirms_and_opens_each_remark_linked_to_the_thread(
    fake: FakeGitHub, store: PullRequestStore, clock: FakeClock
) -> None:
    root = resolved_thread(fake, store, clock)
    reply = fake.reply_review_comment(
        1, root, "rev", "LGTM, but the spacing is still off on mobile"
    )
    seen = thread(store, root)
    assert seen.status is CommentStatus.RESOLVED
    assert confirmation_of(seen) is not None
    opened = [c for c in list_all(store, BRANCH) if c.extra.get(REMARK_OF)]
    assert [(c.body, c.status) for c in opened] == [
        ("the spacing is still off on mobile", CommentStatus.OPEN)
    ]
    assert opened[0].extra[REMARK_OF] == {"comment": seen.id, "entry": f"ghrc_1_{reply['id']}"}


@pytest.mark.parametrize("login", ["drive-by", "copilot[bot]"])
def test_a_strangers_or_a_bots_lgtm_reaches_no_model(
    fake: FakeGitHub, store: PullRequestStore, clock: FakeClock, harness: Harness, login: str
) -> None:
    root = resolved_thread(fake, store, clock)
    fake.reply_review_comment(1, root, login, "LGTM")
    before = harness.readings()
    seen = thread(store, root)
    assert harness.readings() == before
    assert confirmation_of(seen) is None
    assert all(classification_of(r) is None for r in thread_of(seen))


def review_item(store: PullRequestStore, review: dict[str, object]) -> Comment:
    return next(c for c in list_all(store, BRANCH) if c.id == f"ghrv_1_{review['id']}")


def reading_of(item: Comment) -> Classification | None:
    details = item.extra.get(GITHUB)
    return (
        Classification.from_json(details.get(CLASSIFICATION)) if isinstance(details, dict) else None
    )


def test_a_trusted_comment_reviews_lgtm_records_the_review_once(
    fake: FakeGitHub, store: PullRequestStore, harness: Harness
) -> None:
    review = fake.add_review(1, "lead", "COMMENTED", "LGTM now")
    before = harness.readings()
    item = review_item(store, review)
    assert harness.readings() > before
    assert item.status is CommentStatus.RESOLVED
    record = reading_of(item)
    assert record is not None
    assert (record.outcome, record.applied) == (Outcome.APPROVED, Transition.CONFIRM)
    read = harness.readings()
    assert reading_of(review_item(store, review)) == record
    assert harness.readings() == read


def test_a_comment_review_approved_with_comments_opens_its_remarks_linked_to_it(
    fake: FakeGitHub, store: PullRequestStore
) -> None:
    review = fake.add_review(1, "lead", "COMMENTED", "LGTM, but the spacing is still off on mobile")
    item = review_item(store, review)
    assert item.status is CommentStatus.RESOLVED
    opened = [c for c in list_all(store, BRANCH) if c.extra.get(REMARK_OF)]
    assert [(c.body, c.status) for c in opened] == [
        ("the spacing is still off on mobile", CommentStatus.OPEN)
    ]
    assert opened[0].extra[REMARK_OF] == {"comment": item.id, "entry": item.id}


def test_a_comment_review_asking_a_question_stays_open_work(
    fake: FakeGitHub, store: PullRequestStore
) -> None:
    review = fake.add_review(1, "lead", "COMMENTED", "what about dark mode?")
    item = review_item(store, review)
    assert item.status is CommentStatus.OPEN
    record = reading_of(item)
    assert record is not None
    assert (record.outcome, record.applied) == (Outcome.WAIT, Transition.NONE)


@pytest.mark.parametrize(
    ("login", "state"),
    [("drive-by", "COMMENTED"), ("copilot[bot]", "COMMENTED"), ("lead", "APPROVED")],
)
def test_a_strangers_a_bots_or_a_decisive_review_reaches_no_model(
    fake: FakeGitHub, store: PullRequestStore, harness: Harness, login: str, state: str
) -> None:
    fake.add_review(1, login, state, "LGTM")
    before = harness.readings()
    listed = list_all(store, BRANCH)
    assert harness.readings() == before
    assert all(reading_of(c) is None for c in listed)


@pytest.mark.anyio
async def test_maple_mcp_reads_replies_and_reopens_only_on_still_broken(
    served: Served, fake: FakeGitHub, harness: Harness, tmp_path: Path
) -> None:
    repo, head = checkout_at_head(fake, tmp_path, BRANCH)
    fine = fake.add_review_comment(1, "rev", "Rename this.")
    broken = fake.add_review_comment(1, "rev", "The header wraps at 375px.", line=20)
    env = {**env_for(served, "api", tmp_path), **harness.env, "MAPLE_CLASSIFIER": harness.name}
    async with stdio_server(repo, **env) as client:
        for root in (fine, broken):
            done = {"id": f"ghrt_1_{root['id']}", "sha": head, "note": "Fixed."}
            await client.call_tool("resolve_comment", done)
        idle = {"branch": BRANCH, "timeoutMs": 1_000}
        cursor = structured(await client.call_tool("wait_for_comments", idle))["cursor"]
        fake.reply_review_comment(1, fine["id"], "rev", "LGTM now")
        fake.reply_review_comment(1, broken["id"], "rev", "still broken on Safari")
        woke = structured(
            await client.call_tool(
                "wait_for_comments", {"branch": BRANCH, "cursor": cursor, "timeoutMs": 30_000}
            )
        )
    assert woke["status"] == "comments"
    statuses = {c["id"]: c["status"] for c in woke["comments"]}
    assert statuses[f"ghrt_1_{broken['id']}"] == "open"  # the agent has work again
    assert statuses.get(f"ghrt_1_{fine['id']}", "resolved") == "resolved"  # confirmed: none
    assert fake.thread(fine["id"]).resolved
