"""The fake GitHub's GraphQL API: the part of GitHub's schema maple asks for, executed for real.

Queries are parsed, validated and executed by ``graphql-core`` against a schema written with
GitHub's own type and field names (``PullRequestReviewThread.isResolved``, ``comments`` with
``databaseId``, ``reviews``, reactions, ``rateLimit``) and the three mutations maple makes
(``resolveReviewThread``, ``unresolveReviewThread``, ``addPullRequestReviewThreadReply``), plus
``addReaction``. So a misspelt field fails here as it would on GitHub. As GitHub documents:
every connection needs ``first`` or ``last`` between 1 and 100; a query costs the connections it
could fetch divided by 100 (at least 1 point) from a 5,000-point hourly budget of its own
(``x-ratelimit-resource: graphql``); over budget the answer is ``200`` with a ``RATE_LIMIT``
error; errors carry GitHub's ``type`` (``NOT_FOUND``, ``FORBIDDEN``...).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphql import (
    FieldNode,
    GraphQLError,
    OperationDefinitionNode,
    build_schema,
    graphql_sync,
    parse,
    validate,
)
from graphql.language import FragmentSpreadNode, InlineFragmentNode, SelectionSetNode

from tests.github.fake_reviews import user_json

if TYPE_CHECKING:
    from tests.github.fake_github import FakeGitHub, Pull, Repo
    from tests.github.fake_reviews import Thread

SDL = """
scalar DateTime
scalar URI

interface Node { id: ID! }
interface Actor { login: String! url: URI! }
union Reactor = User | Bot

type User implements Node & Actor { id: ID! login: String! url: URI! databaseId: Int }
type Bot implements Node & Actor { id: ID! login: String! url: URI! databaseId: Int }

enum CommentAuthorAssociation {
  MEMBER OWNER MANNEQUIN COLLABORATOR CONTRIBUTOR FIRST_TIME_CONTRIBUTOR FIRST_TIMER NONE
}
enum PullRequestReviewState { PENDING COMMENTED APPROVED CHANGES_REQUESTED DISMISSED }
enum PullRequestReviewCommentState { PENDING SUBMITTED }
enum PullRequestReviewThreadSubjectType { LINE FILE }
enum ReactionContent { THUMBS_UP THUMBS_DOWN LAUGH HOORAY CONFUSED HEART ROCKET EYES }
enum DiffSide { LEFT RIGHT }

type PageInfo {
  hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String
}
type RateLimit {
  cost: Int! limit: Int! nodeCount: Int! remaining: Int! resetAt: DateTime! used: Int!
}

type Query {
  repository(owner: String!, name: String!, followRenames: Boolean = true): Repository
  rateLimit(dryRun: Boolean = false): RateLimit
  viewer: User!
}

type Repository implements Node {
  id: ID! name: String! nameWithOwner: String!
  pullRequest(number: Int!): PullRequest
}

type PullRequest implements Node {
  id: ID! number: Int! url: URI! headRefName: String! headRefOid: String!
  reviewThreads(first: Int, after: String, last: Int, before: String):
    PullRequestReviewThreadConnection!
  reviews(first: Int, after: String, last: Int, before: String,
          states: [PullRequestReviewState!], author: String): PullRequestReviewConnection
}

type PullRequestReviewThreadConnection {
  nodes: [PullRequestReviewThread] edges: [PullRequestReviewThreadEdge]
  pageInfo: PageInfo! totalCount: Int!
}
type PullRequestReviewThreadEdge { cursor: String! node: PullRequestReviewThread }
type PullRequestReviewThread implements Node {
  id: ID! isResolved: Boolean! isOutdated: Boolean! isCollapsed: Boolean!
  path: String! line: Int originalLine: Int startLine: Int originalStartLine: Int
  diffSide: DiffSide! subjectType: PullRequestReviewThreadSubjectType!
  resolvedBy: User viewerCanResolve: Boolean! viewerCanUnresolve: Boolean! viewerCanReply: Boolean!
  comments(first: Int, after: String, last: Int, before: String, skip: Int):
    PullRequestReviewCommentConnection!
  pullRequest: PullRequest!
}

type PullRequestReviewCommentConnection {
  nodes: [PullRequestReviewComment] edges: [PullRequestReviewCommentEdge]
  pageInfo: PageInfo! totalCount: Int!
}
type PullRequestReviewCommentEdge { cursor: String! node: PullRequestReviewComment }
type PullRequestReviewComment implements Node {
  id: ID! databaseId: Int body: String! bodyText: String! url: URI!
  createdAt: DateTime! updatedAt: DateTime! lastEditedAt: DateTime publishedAt: DateTime
  author: Actor authorAssociation: CommentAuthorAssociation!
  diffHunk: String! path: String! line: Int originalLine: Int outdated: Boolean!
  replyTo: PullRequestReviewComment pullRequestReview: PullRequestReview
  state: PullRequestReviewCommentState!
  reactionGroups: [ReactionGroup!]
  reactions(first: Int, after: String, last: Int, before: String, content: ReactionContent):
    ReactionConnection!
}

type PullRequestReviewConnection {
  nodes: [PullRequestReview] edges: [PullRequestReviewEdge] pageInfo: PageInfo! totalCount: Int!
}
type PullRequestReviewEdge { cursor: String! node: PullRequestReview }
type PullRequestReview implements Node {
  id: ID! databaseId: Int body: String! state: PullRequestReviewState!
  author: Actor authorAssociation: CommentAuthorAssociation!
  submittedAt: DateTime createdAt: DateTime! updatedAt: DateTime! url: URI!
  reactionGroups: [ReactionGroup!]
  reactions(first: Int, after: String, last: Int, before: String, content: ReactionContent):
    ReactionConnection!
}

type ReactionConnection { nodes: [Reaction] pageInfo: PageInfo! totalCount: Int! }
type Reaction implements Node {
  id: ID! databaseId: Int content: ReactionContent! createdAt: DateTime! user: User
}
type ReactionGroup {
  content: ReactionContent! createdAt: DateTime viewerHasReacted: Boolean!
  reactors(first: Int, after: String, last: Int, before: String): ReactorConnection!
}
type ReactorConnection { nodes: [Reactor] pageInfo: PageInfo! totalCount: Int! }

input ResolveReviewThreadInput { threadId: ID! clientMutationId: String }
type ResolveReviewThreadPayload { clientMutationId: String thread: PullRequestReviewThread }
input UnresolveReviewThreadInput { threadId: ID! clientMutationId: String }
type UnresolveReviewThreadPayload { clientMutationId: String thread: PullRequestReviewThread }
input AddPullRequestReviewThreadReplyInput {
  pullRequestReviewThreadId: ID! body: String! pullRequestReviewId: ID clientMutationId: String
}
type AddPullRequestReviewThreadReplyPayload {
  clientMutationId: String comment: PullRequestReviewComment
}
input AddReactionInput { subjectId: ID! content: ReactionContent! clientMutationId: String }
type AddReactionPayload { clientMutationId: String reaction: Reaction }

type Mutation {
  resolveReviewThread(input: ResolveReviewThreadInput!): ResolveReviewThreadPayload
  unresolveReviewThread(input: UnresolveReviewThreadInput!): UnresolveReviewThreadPayload
  addPullRequestReviewThreadReply(input: AddPullRequestReviewThreadReplyInput!):
    AddPullRequestReviewThreadReplyPayload
  addReaction(input: AddReactionInput!): AddReactionPayload
}
"""

CONNECTIONS = frozenset({"reviewThreads", "comments", "reviews", "reactions", "reactors"})
TO_GRAPHQL = {
    "+1": "THUMBS_UP",
    "-1": "THUMBS_DOWN",
    "laugh": "LAUGH",
    "hooray": "HOORAY",
    "confused": "CONFUSED",
    "heart": "HEART",
    "rocket": "ROCKET",
    "eyes": "EYES",
}
FROM_GRAPHQL = {v: k for k, v in TO_GRAPHQL.items()}
SCHEMA = build_schema(SDL)


def _typed(obj: Any, *_: Any) -> str:
    return str(obj["__typename"])


for _abstract in ("Actor", "Node", "Reactor"):
    SCHEMA.type_map[_abstract].resolve_type = _typed  # type: ignore[attr-defined]


class GitHubGraphQLError(GraphQLError):
    """An error with GitHub's ``type`` (``NOT_FOUND``, ``FORBIDDEN``...)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message, extensions={"type": kind})


@dataclass
class Context:
    """Who asks, and through which fake."""

    fake: FakeGitHub
    login: str
    access: str  # push, read or none


def cost_of(document: Any) -> tuple[int, list[dict[str, Any]]]:
    """GitHub's point cost of a query, and its pagination errors (``first``/``last`` rules)."""
    fragments = {d.name.value: d for d in document.definitions if hasattr(d, "type_condition")}
    errors: list[dict[str, Any]] = []
    requests = 0

    def walk(selection_set: SelectionSetNode | None, multiplier: int, path: list[str]) -> None:
        nonlocal requests
        if selection_set is None:
            return
        for selection in selection_set.selections:
            if isinstance(selection, FragmentSpreadNode):
                walk(fragments[selection.name.value].selection_set, multiplier, path)
                continue
            if isinstance(selection, InlineFragmentNode):
                walk(selection.selection_set, multiplier, path)
                continue
            assert isinstance(selection, FieldNode)
            name = selection.name.value
            inner = multiplier
            if name in CONNECTIONS:
                args = {a.name.value: getattr(a.value, "value", None) for a in selection.arguments}
                limit = args.get("first") or args.get("last")
                if limit is None:
                    errors.append(
                        {
                            "type": "MISSING_PAGINATION_BOUNDARIES",
                            "path": [*path, name],
                            "message": "You must provide a `first` or `last` value to properly "
                            f"paginate the `{name}` connection.",
                        }
                    )
                    limit = "100"
                elif int(limit) > 100 or int(limit) < 1:
                    errors.append(
                        {
                            "type": "EXCESSIVE_PAGINATION",
                            "path": [*path, name],
                            "message": f"Requesting {limit} records on the `{name}` connection "
                            "exceeds the `first` limit of 100 records.",
                        }
                    )
                requests += multiplier
                inner = multiplier * max(min(int(limit), 100), 1)
            walk(selection.selection_set, inner, [*path, name])

    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            if definition.operation.value == "mutation":
                return 1, errors
            walk(definition.selection_set, 1, [definition.operation.value])
    return max(1, round(requests / 100)), errors


def execute(fake: FakeGitHub, login: str, access: str, body: Any) -> tuple[dict[str, Any], int]:
    """Run one GraphQL request body; the answer and the points it cost."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return {
            "errors": [{"message": "A query attribute must be specified and must be a string."}]
        }, 0
    try:
        document = parse(body["query"])
    except GraphQLError as exc:
        return {"errors": [_shaped(exc.formatted)]}, 0
    invalid = validate(SCHEMA, document)
    if invalid:
        return {"errors": [_shaped(e.formatted) for e in invalid]}, 0
    cost, paging = cost_of(document)
    if paging:
        return {"errors": paging}, 0
    window = fake.graphql_window
    window.roll()
    if window.limit - window.used < cost:
        return {
            "errors": [
                {
                    "type": "RATE_LIMIT",
                    "code": "graphql_rate_limit",
                    "message": "API rate limit already exceeded for user ID 1.",
                }
            ]
        }, 0
    window.used += cost
    context = Context(fake, login, access)
    variables = body.get("variables") if isinstance(body.get("variables"), dict) else None
    root = _root(context, cost)
    result = graphql_sync(
        SCHEMA, body["query"], root_value=root, context_value=context, variable_values=variables
    )
    answer: dict[str, Any] = {"data": result.data}
    if result.errors:
        answer["errors"] = [_shaped(e.formatted) for e in result.errors]
    return answer, cost


def _shaped(formatted: dict[str, Any]) -> dict[str, Any]:
    """GitHub puts an error's ``type`` at the top, beside ``message``, ``path``, ``locations``."""
    shaped = dict(formatted)
    extensions = shaped.get("extensions") or {}
    if "type" in extensions:
        shaped["type"] = extensions["type"]
        shaped.pop("extensions")
    return shaped


# -- the objects ---------------------------------------------------------------------------


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _index(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        text = base64.b64decode(cursor.encode()).decode()
        return int(text.rsplit(":", 1)[1])
    except (ValueError, IndexError) as exc:
        raise GitHubGraphQLError(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        ) from exc


def connection(items: list[Any], wrap: Callable[[Any], dict[str, Any]]) -> Callable[..., Any]:
    """A resolver paging ``items`` by ``first``/``after`` or ``last``/``before``."""

    def resolve(
        _info: Any,
        first: int | None = None,
        after: str | None = None,
        last: int | None = None,
        before: str | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        start = (_index(after) + 1) if after is not None else 0
        end = _index(before) if before is not None else len(items)
        window = list(range(start, min(end, len(items))))
        if first is not None:
            window = window[:first]
        if last is not None:
            window = window[-last:]
        chosen = [(i, wrap(items[i])) for i in window]
        return {
            "nodes": [node for _, node in chosen],
            "edges": [{"cursor": _cursor(i), "node": node} for i, node in chosen],
            "totalCount": len(items),
            "pageInfo": {
                "hasNextPage": bool(window) and window[-1] < len(items) - 1,
                "hasPreviousPage": bool(window) and window[0] > 0,
                "startCursor": _cursor(window[0]) if window else None,
                "endCursor": _cursor(window[-1]) if window else None,
            },
        }

    return resolve


def actor(login: str) -> dict[str, Any]:
    user = user_json(login)
    return {
        "__typename": "Bot" if user["type"] == "Bot" else "User",
        "id": user["node_id"],
        "login": login,
        "url": user["html_url"],
        "databaseId": user["id"],
    }


def _root(context: Context, cost: int) -> dict[str, Any]:
    fake = context.fake

    def repository(_info: Any, owner: str, name: str, **_: Any) -> dict[str, Any]:
        repo = fake.repos.get((owner, name))
        if repo is None or context.access == "none":
            raise GitHubGraphQLError(
                "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
            )
        return _repository(context, repo, owner, name)

    def rate_limit(_info: Any, **_: Any) -> dict[str, Any]:
        window = fake.graphql_window
        return {
            "cost": cost,
            "limit": window.limit,
            "nodeCount": 0,
            "remaining": max(window.limit - window.used, 0),
            "resetAt": _iso(window.reset),
            "used": window.used,
        }

    return {
        "repository": repository,
        "rateLimit": rate_limit,
        "viewer": lambda _info: actor(context.login),
        "resolveReviewThread": lambda _info, input: _set_resolved(context, input, True),
        "unresolveReviewThread": lambda _info, input: _set_resolved(context, input, False),
        "addPullRequestReviewThreadReply": lambda _info, input: _reply(context, input),
        "addReaction": lambda _info, input: _react(context, input),
    }


def _iso(epoch: float) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _repository(context: Context, repo: Repo, owner: str, name: str) -> dict[str, Any]:
    def pull_request(_info: Any, number: int) -> dict[str, Any]:
        pull = next((p for p in repo.pulls if p.number == number), None)
        if pull is None:
            raise GitHubGraphQLError(
                "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
            )
        return _pull(context, repo, pull)

    return {
        "id": f"R_{owner}_{name}",
        "name": name,
        "nameWithOwner": f"{owner}/{name}",
        "pullRequest": pull_request,
    }


def _pull(context: Context, repo: Repo, pull: Pull) -> dict[str, Any]:
    fake = context.fake
    with fake.lock:
        threads = [
            t
            for t in repo.threads
            if t.pull == pull.number
            and (root := fake._review_comment(repo, t.root)) is not None
            and fake.visible_to(repo, root, context.login)
        ]
        reviews = [
            r
            for r in repo.reviews.get(pull.number, [])
            if r["state"] != "PENDING" or r["user"]["login"] == context.login
        ]

    def reviews_of(
        _info: Any, states: list[str] | None = None, author: str | None = None, **page: Any
    ):
        chosen = [
            r
            for r in reviews
            if (states is None or r["state"] in states)
            and (author is None or r["user"]["login"] == author)
        ]
        return connection(chosen, lambda r: _review(context, repo, r))(_info, **page)

    return {
        "id": f"PR_{pull.number}",
        "number": pull.number,
        "url": f"{fake.web_root}/acme/web/pull/{pull.number}",
        "headRefName": pull.head_ref,
        "headRefOid": pull.head_sha,
        "reviewThreads": connection(threads, lambda t: _thread(context, repo, pull, t)),
        "reviews": reviews_of,
    }


def _thread(context: Context, repo: Repo, pull: Pull, thread: Thread) -> dict[str, Any]:
    fake = context.fake
    with fake.lock:
        comments = [
            c
            for c in repo.review_comments
            if (c["id"] == thread.root or c.get("in_reply_to_id") == thread.root)
            and fake.visible_to(repo, c, context.login)
        ]
    root = comments[0] if comments else {"path": "", "line": None, "original_line": None}
    can_push = context.access == "push"
    return {
        "id": thread.node_id,
        "isResolved": thread.resolved,
        "isOutdated": root["line"] is None,
        "isCollapsed": thread.resolved,
        "path": root["path"],
        "line": root["line"],
        "originalLine": root["original_line"],
        "startLine": None,
        "originalStartLine": None,
        "diffSide": "RIGHT",
        "subjectType": "LINE",
        "resolvedBy": actor(thread.resolved_by) if thread.resolved_by else None,
        "viewerCanResolve": can_push and not thread.resolved,
        "viewerCanUnresolve": can_push and thread.resolved,
        "viewerCanReply": context.access != "none",
        "comments": connection(comments, lambda c: _comment(context, repo, c)),
        "pullRequest": lambda _info: _pull(context, repo, pull),
    }


def _comment(context: Context, repo: Repo, comment: dict[str, Any]) -> dict[str, Any]:
    fake = context.fake
    review = fake._review(repo, comment["pull_request_review_id"])
    root_id = comment.get("in_reply_to_id")
    edited = comment["updated_at"] != comment["created_at"]
    return {
        "id": comment["node_id"],
        "databaseId": comment["id"],
        "body": comment["body"],
        "bodyText": comment["body"],
        "url": comment["html_url"],
        "createdAt": comment["created_at"],
        "updatedAt": comment["updated_at"],
        "lastEditedAt": comment["updated_at"] if edited else None,
        "publishedAt": comment["created_at"],
        "author": actor(comment["user"]["login"]),
        "authorAssociation": comment["author_association"],
        "diffHunk": comment["diff_hunk"],
        "path": comment["path"],
        "line": comment["line"],
        "originalLine": comment["original_line"],
        "outdated": comment["line"] is None,
        "replyTo": (
            (lambda _info: _comment(context, repo, fake._review_comment(repo, root_id)))
            if root_id is not None
            else None
        ),
        "pullRequestReview": (lambda _info: _review(context, repo, review)) if review else None,
        "state": "PENDING" if review and review["state"] == "PENDING" else "SUBMITTED",
        **_reactable(context, repo, ("pull", comment["id"])),
    }


def _review(context: Context, repo: Repo, review: dict[str, Any]) -> dict[str, Any]:
    stamp = review.get("submitted_at") or context.fake._now()
    return {
        "id": review["node_id"],
        "databaseId": review["id"],
        "body": review["body"],
        "state": review["state"],
        "author": actor(review["user"]["login"]),
        "authorAssociation": review["author_association"],
        "submittedAt": review.get("submitted_at"),
        "createdAt": stamp,
        "updatedAt": stamp,
        "url": review["html_url"],
        **_reactable(context, repo, ("review", review["id"])),
    }


def _reactable(context: Context, repo: Repo, target: tuple[str, int]) -> dict[str, Any]:
    with context.fake.lock:
        listed = list(repo.reactions.get(target, []))

    def reactions(_info: Any, content: str | None = None, **page: Any) -> dict[str, Any]:
        chosen = [r for r in listed if content is None or TO_GRAPHQL[r["content"]] == content]
        return connection(chosen, _reaction)(_info, **page)

    groups = []
    for rest, graphql_name in TO_GRAPHQL.items():
        of_kind = [r for r in listed if r["content"] == rest]
        if of_kind:
            groups.append(
                {
                    "content": graphql_name,
                    "createdAt": of_kind[0]["created_at"],
                    "viewerHasReacted": any(r["user"]["login"] == context.login for r in of_kind),
                    "reactors": connection(of_kind, lambda r: actor(r["user"]["login"])),
                }
            )
    return {"reactions": reactions, "reactionGroups": groups}


def _reaction(reaction: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": reaction["node_id"],
        "databaseId": reaction["id"],
        "content": TO_GRAPHQL[reaction["content"]],
        "createdAt": reaction["created_at"],
        "user": actor(reaction["user"]["login"]),
    }


def _find_thread(context: Context, node_id: str) -> tuple[Repo, Thread]:
    for repo in context.fake.repos.values():
        for thread in repo.threads:
            if thread.node_id == node_id:
                return repo, thread
    raise GitHubGraphQLError(
        "NOT_FOUND", f"Could not resolve to a node with the global id of '{node_id}'."
    )


def _set_resolved(context: Context, given: dict[str, Any], resolved: bool) -> dict[str, Any]:
    repo, thread = _find_thread(context, given["threadId"])
    if context.access != "push":
        mutation = "ResolveReviewThread" if resolved else "UnresolveReviewThread"
        raise GitHubGraphQLError(
            "FORBIDDEN",
            f"{context.login} does not have the correct permissions to execute `{mutation}`",
        )
    with context.fake.lock:
        thread.resolved = resolved
        thread.resolved_by = context.login if resolved else None
    pull = next(p for p in repo.pulls if p.number == thread.pull)
    return {
        "clientMutationId": given.get("clientMutationId"),
        "thread": _thread(context, repo, pull, thread),
    }


def _reply(context: Context, given: dict[str, Any]) -> dict[str, Any]:
    repo, thread = _find_thread(context, given["pullRequestReviewThreadId"])
    body = given["body"]
    if not body.strip():
        raise GitHubGraphQLError("UNPROCESSABLE", "Body can't be blank")
    if len(body) > 65536:
        raise GitHubGraphQLError("UNPROCESSABLE", "Body is too long (maximum is 65536 characters)")
    fake = context.fake
    with fake.lock:
        review = fake._new_review(repo, thread.pull, context.login, "COMMENTED", "")
        created = fake._new_review_comment(
            repo, thread.pull, context.login, body, review_id=review["id"], in_reply_to=thread.root
        )
    return {
        "clientMutationId": given.get("clientMutationId"),
        "comment": _comment(context, repo, created),
    }


def _react(context: Context, given: dict[str, Any]) -> dict[str, Any]:
    fake = context.fake
    subject = given["subjectId"]
    kinds = {"IC": "issue", "PRRC": "pull", "PRR": "review"}
    prefix, _, number = subject.partition("_")
    for repo in fake.repos.values():
        known = (
            (
                prefix == "IC"
                and any(c["node_id"] == subject for cs in repo.comments.values() for c in cs)
            )
            or (prefix == "PRRC" and any(c["node_id"] == subject for c in repo.review_comments))
            or (prefix == "PRR" and fake._review(repo, int(number or 0)) is not None)
        )
        if known and number.isdigit():
            with fake.lock:
                reaction = fake._add_reaction(
                    repo,
                    (kinds[prefix], int(number)),
                    context.login,
                    FROM_GRAPHQL[given["content"]],
                )
            return {
                "clientMutationId": given.get("clientMutationId"),
                "reaction": _reaction(reaction),
            }
    raise GitHubGraphQLError(
        "NOT_FOUND", f"Could not resolve to a node with the global id of '{subject}'."
    )
