"""Bench rows: a claim and its release against a plain listing, on the file and GitHub stores.

Each row times a claim and the release that follows it (one round trip, as an agent claims a
comment and resolving releases it) against listing the branch's comments (``list_all``, what
``list_comments`` does), interleaved in the same run over the same store and comments, and
reports the ratio of the medians (issue 28's target: at most 2×). On GitHub a claim posts a
claim note and reads it back, and the release deletes it (docs/claims.md).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from contract_tests.github_peers import api_transport
from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.system import SystemClock
from maple_core.anchors import Anchor
from maple_core.claims import Claimant, ClaimRequest
from maple_core.comments import NewComment
from maple_core.listing import list_all
from maple_core.page_context import Context
from maple_core.ports import CommentClaims, CommentStore
from tests.github.fake_github import FakeGitHub, serve

BRANCH = "feat/claims"
COMMENTS = 50
RUNS = 40
AGENT = Claimant.of("claude-code", "ms-bench")


def _comment(i: int) -> NewComment:
    return NewComment(
        branch=BRANCH,
        body=f"Comment {i}: the header wraps at 375px and the logo overlaps the menu.",
        anchor=Anchor(source="src/Header.tsx:12:5", component="Header", selector="header > nav"),
        context=Context(
            url="https://preview.example.com/", viewport_width=1440, viewport_height=900
        ),
    )


def _medians(store: CommentStore, comment_id: str) -> tuple[float, float]:
    """The median of a claim-and-release round trip, and of a listing, interleaved."""
    assert isinstance(store, CommentClaims)
    claim, release = ClaimRequest.claim(AGENT), ClaimRequest.release(AGENT)

    def round_trip() -> None:
        assert store.claim(comment_id, claim).decision.granted
        store.claim(comment_id, release)

    def listing() -> None:
        assert len(list_all(store, BRANCH)) == COMMENTS

    trips: list[float] = []
    lists: list[float] = []
    for action, samples in ((round_trip, trips), (listing, lists)):
        action()  # warm: the first of each (caches, connections) is not what is measured
        del samples[:]
    for _ in range(RUNS):
        trips.append(_timed(round_trip))
        lists.append(_timed(listing))
    return statistics.median(trips), statistics.median(lists)


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _row(where: str, trip: float, listed: float) -> tuple[str, str, str, float, str, bool]:
    ratio = trip / listed
    return (
        f"claim + release, {where}, {COMMENTS} comments (median)",
        f"{trip * 1000:.2f} ms",
        f"list_comments {listed * 1000:.2f} ms",
        ratio,
        "≤ 2×",
        ratio <= 2.0,
    )


def file_claim_row() -> tuple[str, str, str, float, str, bool]:
    """The file store: claims.json under its own lock, beside a ledger of 50 comments."""
    with tempfile.TemporaryDirectory(prefix="maple-claims-") as tmp:
        store = FileCommentStore(SystemClock(), make_repo(Path(tmp) / "repo", BRANCH))
        ids = [c.id for c in store.append_many([_comment(i) for i in range(COMMENTS)])]
        return _row("file store", *_medians(store, ids[0]))


def github_claim_row() -> tuple[str, str, str, float, str, bool]:
    """The GitHub store over PyGithub, against the fake GitHub on loopback (TLS)."""
    with tempfile.TemporaryDirectory(prefix="maple-claims-gh-") as tmp:
        served = serve(FakeGitHub(), Path(tmp))
        try:
            served.fake.open_pull(BRANCH)
            store = GitHubLedgerStore(api_transport(served), "acme", "web", SystemClock())
            ids = [c.id for c in store.append_many([_comment(i) for i in range(COMMENTS)])]
            return _row("GitHub store (fake, api)", *_medians(store, ids[0]))
        finally:
            served.stop()
