"""The pull request's own review, read and answered over either transport.

Reading costs REST requests that are free while nothing changed (every GET is conditional, and
shared across processes by :class:`~maple_adapters.github.shared.SharedTransport`): the review
comments and the reviews, all pages, beside the issue comments the ledger store reads anyway.
GraphQL is asked only for what REST cannot say (whether a thread is resolved or outdated, its
id, 👍 on a review), and only when the REST answers changed since GraphQL was last asked, or,
once a minute at most, while something is there that only GraphQL would show changing (any
thread, which anyone may resolve or unresolve without a word, a held review somebody may
endorse).
GraphQL's queries and the memo of their answers are :mod:`~maple_adapters.github.review_graphql`'s;
acting on the review (replies, resolves, the 👀 on a claimed thread) is
:mod:`~maple_adapters.github.review_acting`'s.
"""

from __future__ import annotations

import builtins
import hashlib
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from datetime import datetime
from urllib.parse import quote

from maple_adapters.github.review_acting import ReviewActing
from maple_adapters.github.review_graphql import (
    REVIEW_THUMBS_QUERY,
    THREADS_QUERY,
    ReviewMemo,
    memo_from_json,
    memo_to_json,
    states_token,
)
from maple_adapters.github.review_json import (
    PullWhere,
    ThreadState,
    conversation_of,
    reviews_of,
    thread_states_of,
    threads_of,
)
from maple_adapters.github.shared import SharedCache
from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_core.json_types import JsonObject, JsonValue
from maple_core.pull_review import Mark, PullRequestReview, ReviewReading
from maple_core.rate_budget import PollVerdict
from maple_core.review_reading import FirstSight, read_review
from maple_core.trust import TRUSTED_ASSOCIATIONS, Author, Endorsement, TrustPolicy

__all__ = ["ReviewSource"]

_MAX_PAGES = 30  # 3,000 review comments, reviews or threads: beyond that maple stops reading
_MAX_THUMB_LOOKUPS = 50  # held notes whose 👍 are read per look
_SWEEP_S = 60.0
_PUSHERS = frozenset({"admin", "maintain", "write"})


_Listing = builtins.list[JsonValue]


class ReviewSource(ReviewActing):
    """Reads a pull request's threads, reviews and conversation, and answers them.

    Args:
        transport: GitHub, through either transport (resilient; shared when ``cache`` is).
        owner: the repository's owner.
        repo: the repository's name.
        host: where people see the repository (links are kept only on it).
        policy: who is trusted.
        cache: the folder shared with other processes (first sights and GraphQL's memo), if any.
        sweep_s: how often, at most, GraphQL is asked while nothing REST shows changed.
        now: epoch seconds.
    """

    def __init__(
        self,
        transport: GitHubTransport,
        owner: str,
        repo: str,
        *,
        host: str,
        policy: TrustPolicy,
        cache: SharedCache | None = None,
        sweep_s: float = _SWEEP_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        self._transport = transport
        self._owner, self._repo, self._host = owner, repo, host
        self._base = f"/repos/{owner}/{repo}"
        self.policy = policy
        self._cache = cache
        self._sweep_s = sweep_s
        self._now = now
        self._lock = threading.Lock()
        self._memos: dict[int, ReviewMemo] = {}
        self._seen: dict[int, dict[str, str]] = {}  # without a shared folder
        self._pushers: dict[str, bool] = {}
        self._own: frozenset[str] = frozenset()  # maple's logins, as the last read named them
        self._tokens: dict[int, Hashable] = {}

    # -- reading ---------------------------------------------------------------------------

    def _all_pages(self, path: str) -> builtins.list[JsonValue]:
        found: builtins.list[JsonValue] = []
        for page in range(1, _MAX_PAGES + 1):
            answer = self._transport.request("GET", path, params={"per_page": 100, "page": page})
            items = answer.data if isinstance(answer.data, list) else []
            found += items
            link = answer.headers.get("link")
            more = 'rel="next"' in link if link is not None else len(items) >= 100
            if not more:  # a full page without any Link header: look once more
                break
        return found

    def read(
        self,
        pull: int,
        branch: str,
        issue_comments: Sequence[JsonValue],
        own_logins: Iterable[str],
        *,
        when: datetime,
        floor: Iterable[str | None] = (),
        marks: Mapping[str, Mark] | None = None,
        reading: bool = False,
    ) -> ReviewReading:
        """The pull request's review as comments (the work) and held words.

        ``issue_comments`` are the pull request's issue comments (the ledger store read them);
        ``when`` is the reading's time on the store's clock; ``floor`` the ledger's stamps,
        which first sights come after; ``marks`` the ledger's records of review items;
        ``reading``: a classifier reads trusted replies in threads.
        """
        own = frozenset(login.lower() for login in own_logins)
        self._own = own
        comments, reviews, memo = self._listed(pull)
        where = PullWhere(self._host, self._owner, self._repo, pull, own)
        associations = _associations([*comments, *reviews, *issue_comments])
        thumbs = self._thumbs(comments, issue_comments, associations)
        review = PullRequestReview(
            pull,
            branch,
            threads_of(comments, memo.states or {}, where, thumbs=thumbs),
            reviews_of(reviews, where, thumbs=dict(memo.review_thumbs or {})),
            conversation_of(issue_comments, where, thumbs=thumbs),
            own,
            reading,
        )
        return self._sighted(pull, review, marks or {}, list(floor), when)

    def _listed(self, pull: int) -> tuple[_Listing, _Listing, ReviewMemo]:
        """The review comments, the reviews and GraphQL's memo; notes the change token."""
        comments = self._all_pages(f"{self._base}/pulls/{pull}/comments")
        reviews = self._all_pages(f"{self._base}/pulls/{pull}/reviews")
        memo = self._graphql_memo(pull, comments, reviews)
        self._tokens[pull] = (_fingerprint(comments, reviews), states_token(memo))
        return comments, reviews, memo

    def token(self, pull: int) -> Hashable:
        """The review's change token now (conditional requests; GraphQL only when due)."""
        self._listed(pull)
        return self._tokens[pull]

    def last_token(self, pull: int) -> Hashable:
        """The change token of the last read of ``pull`` (no request)."""
        return self._tokens.get(pull)

    def verdict(self) -> PollVerdict:
        """Whether polling may go on now, as the shared rate budget says."""
        return self._cache.verdict() if self._cache is not None else PollVerdict(True)

    def budget_lines(self) -> list[str]:
        """What the shared rate budget says, per resource and any pause (for ``maple doctor``)."""
        if self._cache is None:
            return []
        return self._cache.budget().describe(self._cache.reserve, self._now())

    def _sighted(
        self,
        pull: int,
        review: PullRequestReview,
        marks: Mapping[str, Mark],
        floor: Sequence[str | None],
        when: datetime,
    ) -> ReviewReading:
        """Map the review, stamping first sights in the shared folder (or in memory)."""
        if self._cache is None:
            with self._lock:
                seen = self._seen.setdefault(pull, {})
                sight = FirstSight(seen, when, floor)
                reading = read_review(review, self.policy, sight, marks)
                seen.update(sight.new)
            return reading
        with self._cache.state(f"seen-{pull}") as kept:
            stamps = {k: v for k, v in kept.items() if isinstance(v, str)}
            sight = FirstSight(stamps, when, floor)
            reading = read_review(review, self.policy, sight, marks)
            kept.update(sight.new)
        return reading

    def _graphql_memo(
        self,
        pull: int,
        comments: Sequence[JsonValue],
        reviews: Sequence[JsonValue],
    ) -> ReviewMemo:
        """GraphQL's states, asked again only when REST changed or a sweep is due."""
        basis = _fingerprint(comments, reviews)
        memo = self._load_memo(pull)
        now = self._now()
        sweep = self._sweep_worthy(memo, comments, reviews)
        due = (
            memo.states is None
            or memo.basis != basis
            or (sweep and now - memo.checked >= self._sweep_s)
        )
        if not due:
            return memo
        paused = self._cache is not None and not self._cache.verdict("graphql").poll
        if paused and memo.states is not None:
            return memo  # GitHub's budget is low: the last answer stands
        states = self.thread_states(pull) if comments else {}
        thumbs = self._review_thumbs(pull) if self._held_reviews(reviews) else {}
        memo = ReviewMemo(basis, now, states, thumbs)
        self._store_memo(pull, memo)
        return memo

    def _sweep_worthy(
        self, memo: ReviewMemo, comments: Sequence[JsonValue], reviews: Sequence[JsonValue]
    ) -> bool:
        """Whether GraphQL could show something REST cannot: a 👍 on a review, or a thread.

        Anyone may resolve or unresolve a thread on GitHub's page without a word, which changes
        no REST answer; a stale "resolved" would let the gate clear while the thread is open.
        """
        return self._held_reviews(reviews) or bool(memo.states) or bool(comments)

    def _held_reviews(self, reviews: Sequence[JsonValue]) -> bool:
        return any(
            isinstance(r, dict)
            and isinstance(body := r.get("body"), str)
            and bool(body.strip())
            and not self.policy.trusts(_author(r))
            for r in reviews
        )

    def thread_states(self, pull: int) -> dict[int, ThreadState]:
        """Every thread's GraphQL state, by its first comment's id (one point a 100 threads)."""
        nodes: builtins.list[JsonValue] = []
        after: str | None = None
        for _ in range(_MAX_PAGES):
            connection = self._pull_field(THREADS_QUERY, pull, after, "reviewThreads")
            nodes += _listed(connection, "nodes")
            after = _next(connection)
            if after is None:
                break
        return thread_states_of(nodes)

    def _review_thumbs(self, pull: int) -> dict[int, tuple[Endorsement, ...]]:
        found: dict[int, tuple[Endorsement, ...]] = {}
        after: str | None = None
        for _ in range(_MAX_PAGES):
            connection = self._pull_field(REVIEW_THUMBS_QUERY, pull, after, "reviews")
            for node in _listed(connection, "nodes"):
                number = node.get("databaseId") if isinstance(node, dict) else None
                if isinstance(node, dict) and isinstance(number, int):
                    found[number] = tuple(self._graphql_thumbs(node))
            after = _next(connection)
            if after is None:
                break
        return found

    def _graphql_thumbs(self, node: JsonObject) -> Iterable[Endorsement]:
        reactions = node.get("reactions")
        for reaction in _listed(reactions, "nodes"):
            user = reaction.get("user") if isinstance(reaction, dict) else None
            login = user.get("login") if isinstance(user, dict) else None
            at = reaction.get("createdAt") if isinstance(reaction, dict) else None
            if isinstance(login, str) and isinstance(at, str):
                yield Endorsement(self._endorser(login, {}), at)

    def _pull_field(self, query: str, pull: int, after: str | None, name: str) -> JsonObject:
        variables: JsonObject = {
            "owner": self._owner,
            "name": self._repo,
            "number": pull,
            "after": after,
        }
        data = self._transport.graphql(query, variables).data
        try:
            found = data["data"]["repository"]["pullRequest"][name]  # type: ignore[index, call-overload]
        except (KeyError, TypeError):
            found = None
        if not isinstance(found, dict):
            raise GitHubError(502, "graphql", f"GitHub's answer had no {name} for #{pull}.")
        return found

    def _thumbs(
        self,
        comments: Sequence[JsonValue],
        issue_comments: Sequence[JsonValue],
        associations: Mapping[str, str],
    ) -> dict[int, tuple[Endorsement, ...]]:
        """The 👍 on held notes that have any (REST lists them; other notes need none)."""
        found: dict[int, tuple[Endorsement, ...]] = {}
        lookups = 0
        for kind, items in (("pulls", comments), ("issues", issue_comments)):
            for item in items:
                if lookups >= _MAX_THUMB_LOOKUPS or not isinstance(item, dict):
                    continue
                reactions = item.get("reactions")
                count = reactions.get("+1") if isinstance(reactions, dict) else 0
                number = item.get("id")
                if not isinstance(number, int) or not count or self.policy.trusts(_author(item)):
                    continue
                lookups += 1
                listed = self._all_pages_with(
                    f"{self._base}/{kind}/comments/{number}/reactions", {"content": "+1"}
                )
                found[number] = tuple(
                    Endorsement(self._endorser(_login(r), associations), at)
                    for r in listed
                    if isinstance(r, dict) and isinstance(at := r.get("created_at"), str)
                )
        return found

    def _all_pages_with(
        self, path: str, params: Mapping[str, str | int]
    ) -> builtins.list[JsonValue]:
        answer = self._transport.request("GET", path, params={**params, "per_page": 100})
        return answer.data if isinstance(answer.data, list) else []

    def _endorser(self, login: str, associations: Mapping[str, str]) -> Author:
        """A reactor as an author: their association on the pull request, else their access.

        Reactions carry no association, so someone who wrote nothing here is asked about (once
        per source): write access or more counts as a collaborator's.
        """
        known = associations.get(login.lower())
        if known in TRUSTED_ASSOCIATIONS:
            return Author(login, known)
        if login.lower().endswith("[bot]"):
            return Author(login, "NONE", bot=True)
        if login not in self._pushers:
            try:
                answer = self._transport.request(
                    "GET", f"{self._base}/collaborators/{quote(login, safe='')}/permission"
                ).data
            except GitHubError as exc:
                if not exc.rejected:
                    raise
                answer = None
            permission = answer.get("permission") if isinstance(answer, dict) else None
            self._pushers[login] = permission in _PUSHERS
        return Author(login, "COLLABORATOR" if self._pushers[login] else known or "NONE")

    def _load_memo(self, pull: int) -> ReviewMemo:
        if self._cache is None:
            return self._memos.get(pull, ReviewMemo())
        kept = self._cache.read_json(f"graphql-{pull}")
        return memo_from_json(kept) if kept else ReviewMemo()

    def _store_memo(self, pull: int, memo: ReviewMemo) -> None:
        if self._cache is None:
            self._memos[pull] = memo
        else:
            self._cache.write_json(f"graphql-{pull}", memo_to_json(memo))

    def forget(self, pull: int) -> None:
        """Drop GraphQL's memo, so the next read asks again (after maple acted on a thread)."""
        self._store_memo(pull, ReviewMemo())


def _login(obj: JsonValue) -> str:
    user = obj.get("user") if isinstance(obj, dict) else None
    login = user.get("login") if isinstance(user, dict) else None
    return login.lower() if isinstance(login, str) else ""


def _author(obj: JsonObject) -> Author:
    from maple_adapters.github.review_json import author_of

    return author_of(obj)


def _associations(items: Iterable[JsonValue]) -> dict[str, str]:
    """Each author's association as GitHub reports it on this pull request."""
    found: dict[str, str] = {}
    for item in items:
        association = item.get("author_association") if isinstance(item, dict) else None
        if isinstance(association, str):
            found[_login(item)] = association
    return found


def _fingerprint(*listings: Sequence[JsonValue]) -> str:
    """A short hash of REST answers: GraphQL is asked again only when it changes."""
    digest = hashlib.sha256()
    for listing in listings:
        for item in listing:
            if isinstance(item, dict):
                digest.update(
                    f"{item.get('id')}|{item.get('updated_at')}|{item.get('state')}\n".encode()
                )
    return digest.hexdigest()[:32]


def _listed(obj: JsonValue, key: str) -> builtins.list[JsonValue]:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []


def _next(connection: JsonObject) -> str | None:
    info = connection.get("pageInfo")
    if isinstance(info, dict) and info.get("hasNextPage") is True:
        cursor = info.get("endCursor")
        return cursor if isinstance(cursor, str) else None
    return None
