"""Bench rows for the pull request's own review, against the fake GitHub.

``review_requests_row``: every request (a ``304`` too) and GraphQL point that a first look at a
pull request with 100 review threads (two comments each, so 200 review comments and, as GitHub
files every reply, 201 reviews) costs through the review source on a fresh shared folder, a
resolve of one thread, and then an idle stretch of looks every 2 s. The anchor, in the same run
on the same pull request: a reader that asks GraphQL for every thread's comments at each look,
as pull-request loops that poll GraphQL do.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from contract_tests.github_peers import shared_transport
from maple_adapters.github.review_source import ReviewSource
from maple_adapters.github.shared_transport import SharedTransport
from maple_core.pull_review import ReviewKind, ReviewReading, ReviewRef
from maple_core.trust import TrustPolicy
from tests.github.fake_github import FakeGitHub, serve

THREADS = 100
IDLE_S, STEP_S = 10.0, 2.0
# issue comments 1, review comments 2 pages, reviews 3 pages; one GraphQL page of threads
FIRST_LOOK_BUDGET = (6, 1)
RESOLVE_BUDGET = (1, 2)  # the reply; the threads' query and the mutation
SHA = "c0ffee1" * 5 + "abcde"
FULL_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved isOutdated path line
          comments(first: 100) { nodes { databaseId body author { login } authorAssociation
            url createdAt diffHunk } } }
      }
    }
  }
}
"""


def _seeded(fake: FakeGitHub) -> None:
    fake.open_pull("feat/review")
    fake.repo().associations.update({"rev": "COLLABORATOR"})
    for i in range(THREADS):
        root = fake.add_review_comment(1, "rev", f"Thread {i}: rename this.", line=10 + i)
        fake.reply_review_comment(1, root["id"], "rev", "And the docs.")
    fake.add_review(1, "rev", "CHANGES_REQUESTED", "A few things before this merges.")


def _look(source: ReviewSource, transport: SharedTransport) -> ReviewReading:
    issue = transport.request(
        "GET", "/repos/acme/web/issues/1/comments", params={"per_page": 100, "page": 1}
    ).data
    own = ["maple-bot"]
    return source.read(1, "feat/review", issue or [], own, when=datetime.now(UTC))


def _spent(fake: FakeGitHub) -> tuple[int, int, int]:
    """REST requests, counted REST requests and GraphQL requests since the last clear."""
    rest = [s for _, p, s in fake.requests if p != "/api/graphql"]
    return len(rest), sum(1 for s in rest if s != 304), len(fake.graphql_requests)


def _clear(fake: FakeGitHub) -> None:
    fake.requests.clear()
    fake.graphql_requests.clear()


def review_requests_row() -> tuple[str, str, str, float, str, bool]:
    fake = FakeGitHub()
    with tempfile.TemporaryDirectory(prefix="maple-review-bench-") as tmp:
        served = serve(fake, Path(tmp))
        try:
            _seeded(fake)
            transport = shared_transport(served, "api", Path(tmp) / "ours")
            assert isinstance(transport, SharedTransport)
            source = ReviewSource(
                transport,
                "acme",
                "web",
                host=served.host,
                policy=TrustPolicy(),
                cache=transport.cache,
            )
            _clear(fake)
            reading = _look(source, transport)
            assert len(reading.comments) == THREADS + 1
            look = _spent(fake)
            ref = ReviewRef(ReviewKind.THREAD, 1, int(reading.comments[0].id.rsplit("_", 1)[1]))
            _clear(fake)
            source.resolve_thread(ref, SHA, "Renamed.")
            resolve = _spent(fake)
            _look(source, transport)  # the resolve's read-back
            _clear(fake)
            ends = time.monotonic() + IDLE_S
            while time.monotonic() < ends:
                _look(source, transport)
                time.sleep(STEP_S)
            idle = _spent(fake)
            _clear(fake)
            ends = time.monotonic() + IDLE_S
            while time.monotonic() < ends:  # the anchor: every thread's comments by GraphQL
                transport.graphql(
                    FULL_QUERY, {"owner": "acme", "name": "web", "number": 1, "after": None}
                )
                time.sleep(STEP_S)
            anchor = sum(cost for _, cost in fake.graphql_requests)
        finally:
            served.stop()
    ours = idle[1] + idle[2]
    ok = (
        look[0] <= FIRST_LOOK_BUDGET[0]
        and look[2] <= FIRST_LOOK_BUDGET[1]
        and resolve[0] <= RESOLVE_BUDGET[0]
        and resolve[2] <= RESOLVE_BUDGET[1]
        and ours == 0
    )
    return (
        f"pull request with {THREADS} threads: first look, a resolve, {IDLE_S:.0f} s idle",
        f"first look {look[0]} REST + {look[2]} GraphQL; resolve {resolve[0]} REST + "
        f"{resolve[2]} GraphQL; idle {idle[0]} REST (all 304) and {idle[2]} GraphQL",
        f"GraphQL every {STEP_S:.0f} s, same run: {anchor} points",
        ours / max(anchor, 1),
        f"first look <= {FIRST_LOOK_BUDGET[0]} + {FIRST_LOOK_BUDGET[1]}; resolve <= "
        f"{RESOLVE_BUDGET[0]} + {RESOLVE_BUDGET[1]}; 0 counted idle",
        ok,
    )
