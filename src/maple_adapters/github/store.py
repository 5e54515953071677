"""The ``github`` store: a pull request's ledger comment, over either transport (behaviour §4)."""

from __future__ import annotations

import builtins
import contextlib
import random
import re
import secrets
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar
from urllib.parse import parse_qs, quote, urlsplit

from maple_adapters.github.ledger import (
    BODY_LIMIT,
    GitHubLedger,
    LedgerTooLargeError,
    comment_identity,
    merge_ledgers,
    parse_ledger_body,
    record_number,
    render_ledger_body,
)
from maple_adapters.github.ledger_claims import LedgerClaims
from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_core.approvals import Approval, NewApproval
from maple_core.authors import guest_author, server_author
from maple_core.claims import ClaimRequest, ClaimResult
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import (
    ConversationError,
    EntryNote,
    ReplyKind,
    ThreadEvent,
    activity_stamps,
    apply_event,
    thread_of,
)
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import (
    InvalidRecordError,
    LedgerFullError,
    MapleError,
    NotFoundError,
    StoreError,
    StoreRejectedError,
    StoreUnavailableError,
    UnreadableLedgerError,
)
from maple_core.json_types import JsonObject, JsonValue
from maple_core.paging import CommentPage, ListQuery, decode_decimal_cursor, page_of
from maple_core.ports import BranchState, Capability, Clock
from maple_core.statuses import CommentStatus

__all__ = ["GitHubChangeSignal", "GitHubLedgerStore"]

_CAPABILITIES = frozenset(Capability) - {Capability.AMEND}
_TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
_GUEST = guest_author()

_COMMENT_ID = re.compile(r"gh_(\d+)_(\d+)")
_APPROVAL_ID = re.compile(r"gha_(\d+)_(\d+)")
_MAX_PAGES = 100
_PULL_COMMITS_CAP = 250  # GitHub lists at most this many of a pull request's commits
_SHORT_SHA = 7  # the shortest abbreviated commit a resolution's sha is matched as
_POLL_S = 2.0
_WRITE_ATTEMPTS = 5
_RETRY_PAUSE_S = 0.2  # scaled by the attempt and jittered, so racing writers fall out of step
_SETTLE_S = 0.25
_MAX_SETTLE_S = 3.0
_REUSE_S = _POLL_S  # how long a write's read-back stands in for a fresh read (see ``state``)
_STATUS_ROOM = 4_096  # of GitHub's body limit, kept for status changes by writes that add words
_PARSED = 8  # ledger bodies kept parsed (a pull request seldom has more than two at once)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class _Pull:
    """A branch's pull request: its number and the commit its head points at."""

    number: int
    head: str | None


@dataclass(frozen=True, slots=True)
class _ReadBack:
    """The issue comments a write was read back from, and when (on the store's clock)."""

    pull: int
    at: float
    comments: tuple[JsonObject, ...]


@dataclass(frozen=True, slots=True)
class _Ledgers:
    """Every ledger comment on a pull request (oldest update first) and their union."""

    pull: int
    ids: tuple[int, ...]
    merged: GitHubLedger
    updated: tuple[str, ...] = ()


class GitHubLedgerStore:
    """Comments and approvals in one issue comment per pull request (Maple's ``githubStore``).

    Reading merges every ledger found, so two writers racing on one pull request lose nothing;
    a write consolidates them into one. Every GET is conditional (see ``ConditionalTransport``).

    Only a ledger its writers wrote is read: one whose author is the identity this store writes
    as (the token's user, or the App ``app_id``'s bot), or has push access by association
    (``OWNER``, ``MEMBER``, ``COLLABORATOR``). Anyone else who can comment on the pull request
    may post ledger-looking text; it is ignored and never deleted. A trusted ledger that cannot
    be read is refused (:class:`UnreadableLedgerError`), never skipped or overwritten.

    Args:
        transport: how to reach GitHub (``api`` or ``cli``), already resilient and conditional.
        owner: the repository's owner.
        repo: the repository's name.
        clock: stamps arrivals.
        app_id: the GitHub App whose bot writes ledgers too (``MAPLE_GATE_APP_ID``), if any.
    """

    def __init__(
        self,
        transport: GitHubTransport,
        owner: str,
        repo: str,
        clock: Clock,
        *,
        app_id: str | int | None = None,
    ) -> None:
        self._transport = transport
        self._owner = owner
        self._repo = repo
        self._clock = clock
        self._base = f"/repos/{owner}/{repo}"
        self._app_id = str(app_id) if app_id is not None else None
        self._own_logins: set[str] = set()
        self._user_login: str | None = None
        self._asked_who = False
        self._can_push: dict[str, bool] = {}
        self._writing = threading.Lock()  # one write at a time from this store
        self._read_back: _ReadBack | None = None
        self._commits: dict[tuple[int, str], frozenset[str]] = {}  # (pull, head) -> its commits
        self._claims = LedgerClaims(self)
        self._parsed: dict[tuple[int, str | None, str], GitHubLedger | None] = {}
        self._parsing = threading.Lock()

    @property
    def name(self) -> str:
        """``github``."""
        return "github"

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Everything, ``head`` and ``watch`` included."""
        return _CAPABILITIES

    @property
    def transport(self) -> GitHubTransport:
        """The transport this store talks through."""
        return self._transport

    @contextlib.contextmanager
    def _failing(
        self, operation: str, passing: tuple[type[MapleError], ...] = ()
    ) -> Iterator[None]:
        """Translate what goes wrong inside into the store's errors, in this one place.

        Errors of the ``passing`` types (the caller's own mistakes) propagate unchanged.
        """
        try:
            yield
        except passing:
            raise
        except MapleError as exc:
            raise self._fail(exc, operation) from exc

    def _fail(self, exc: MapleError, operation: str) -> StoreError:
        if isinstance(exc, StoreError):  # already says what is wrong with the store
            return exc
        if isinstance(exc, GitHubError) and exc.rejected:  # a bad token, no access: not a retry
            return StoreRejectedError(str(exc), store=self.name, operation=operation)
        return StoreUnavailableError(str(exc), store=self.name, operation=operation)

    # -- reading ---------------------------------------------------------------------------

    def find_pull(self, branch: str) -> int | None:
        """The pull request whose head is ``branch``: an open one, else the newest of any."""
        pull = self._pull(branch)
        return pull.number if pull is not None else None

    def _pull(self, branch: str) -> _Pull | None:
        """The branch's pull request and its head commit, from the listing (one request)."""
        head = f"{self._owner}:{branch}"
        lookups: tuple[dict[str, str | int], ...] = (
            {"head": head, "per_page": 1, "state": "open"},
            {"head": head, "per_page": 1, "state": "all", "sort": "updated", "direction": "desc"},
        )
        for params in lookups:
            pulls = self._transport.request("GET", f"{self._base}/pulls", params=params).data
            if isinstance(pulls, list) and pulls and isinstance(pulls[0], dict):
                number = pulls[0].get("number")
                if isinstance(number, int):
                    head_of = pulls[0].get("head")
                    sha = head_of.get("sha") if isinstance(head_of, dict) else None
                    return _Pull(number, sha if isinstance(sha, str) else None)
        return None

    def issue_comments(self, pull: int) -> builtins.list[JsonObject]:
        """Every issue comment on the pull request, all pages, oldest first."""
        found: builtins.list[JsonObject] = []
        page = 1
        while True:
            if page > _MAX_PAGES:  # fail closed: an unread page could hold the newest ledger
                raise UnreadableLedgerError(
                    f"Pull request #{pull} has more than {_MAX_PAGES * 100} comments; maple reads "
                    "at most that many, so it cannot tell it has seen every ledger. Delete "
                    "comments that are not needed (spam first), then try again.",
                    store=self.name,
                    operation="list",
                    location=f"pull request #{pull}",
                )
            response = self._transport.request(
                "GET",
                f"{self._base}/issues/{pull}/comments",
                params={"per_page": 100, "page": page},
            )
            items = response.data if isinstance(response.data, list) else []
            found += [c for c in items if isinstance(c, dict)]
            following = _next_page(response.headers.get("link", ""))
            if following is None and len(items) >= 100:
                following = page + 1  # a full page without a Link: look once more
            if following is None or following <= page:
                break
            page = following
        return found

    def _writer_logins(self) -> frozenset[str]:
        """The logins this store writes as: the token's user (asked once), and what it posted as."""
        if not self._asked_who:
            self._asked_who = True
            try:
                me = self._transport.request("GET", "/user").data
            except GitHubError as exc:
                if not exc.rejected:
                    raise
                me = None  # an App installation token has no user: its bot is learnt on write
            login = me.get("login") if isinstance(me, dict) else None
            if isinstance(login, str) and login:
                self._own_logins.add(login)
                self._user_login = login
        return frozenset(self._own_logins)

    def _author(self) -> JsonObject:
        """Who a comment appended without an author is by: the token's user, else the guest."""
        self._writer_logins()
        login = self._user_login
        return server_author(login, login) if login else guest_author()

    def _learn_writer(self, created: JsonValue) -> None:
        user = created.get("user") if isinstance(created, dict) else None
        login = user.get("login") if isinstance(user, dict) else None
        if isinstance(login, str) and login:
            self._own_logins.add(login)

    def _trusted(self, comment: JsonObject) -> bool:
        """True when the comment's author may write the ledger (see the class docstring)."""
        association = comment.get("author_association")
        if association == "OWNER":
            return True
        app = comment.get("performed_via_github_app")
        if (
            self._app_id is not None
            and isinstance(app, dict)
            and str(app.get("id")) == self._app_id
        ):
            return True
        user = comment.get("user")
        login = user.get("login") if isinstance(user, dict) else None
        if not isinstance(login, str) or not login:
            return False
        if login in self._writer_logins():
            return True
        return association in _TRUSTED_ASSOCIATIONS and self._pushes(login)

    def _pushes(self, login: str) -> bool:
        """Whether ``login`` can push, asked once per store.

        ``MEMBER`` and ``COLLABORATOR`` include people whose role on the repository is read or
        triage, so their permission is asked; where the token may not ask, the association,
        as GitHub reports it, is taken.
        """
        known = self._can_push.get(login)
        if known is not None:
            return known
        try:
            answer = self._transport.request(
                "GET", f"{self._base}/collaborators/{quote(login, safe='')}/permission"
            ).data
        except GitHubError as exc:
            if not exc.rejected:
                raise
            can = exc.status != 404  # 403: this token may not ask; 404: not a collaborator
        else:
            permission = answer.get("permission") if isinstance(answer, dict) else None
            can = permission in ("admin", "write")
        self._can_push[login] = can
        return can

    def _ledgers(self, pull: int, branch: str | None, operation: str = "list") -> _Ledgers | None:
        return self._ledgers_in(pull, self.issue_comments(pull), branch, operation)

    def _ledgers_in(
        self,
        pull: int,
        comments: Sequence[JsonObject],
        branch: str | None,
        operation: str,
    ) -> _Ledgers | None:
        """The trusted ledgers among a pull request's issue comments, merged."""
        ledgers: builtins.list[tuple[str, int, GitHubLedger]] = []
        for comment in comments:
            body, comment_id = comment.get("body"), comment.get("id")
            if not isinstance(body, str) or not isinstance(comment_id, int):
                continue
            if "```maple" not in body or not self._trusted(comment):
                continue
            try:
                ledger = self._parse(comment_id, body, branch)
            except InvalidRecordError as exc:
                where = comment.get("html_url")
                location = where if isinstance(where, str) else f"issue comment {comment_id}"
                raise UnreadableLedgerError(
                    f"The maple ledger at {location} cannot be read: {exc} Fix its ```maple "
                    "block by hand, or delete that comment (its records are then lost); maple "
                    "will not overwrite it.",
                    store=self.name,
                    operation=operation,
                    location=location,
                ) from None
            if ledger is not None:
                updated = comment.get("updated_at")
                ledgers.append((updated if isinstance(updated, str) else "", comment_id, ledger))
        if not ledgers:
            return None
        ledgers.sort(key=lambda item: (item[0], item[1]))
        # A record cannot have changed after GitHub last saw its ledger change: the comment's
        # server time caps the stamps written inside it.
        merged = merge_ledgers(
            [ledger for _, _, ledger in ledgers],
            ceilings=[u for u, _, _ in ledgers],
            ids=[i for _, i, _ in ledgers],
        )
        return _Ledgers(
            pull, tuple(i for _, i, _ in ledgers), merged, tuple(u for u, _, _ in ledgers)
        )

    def _parse(self, comment_id: int, body: str, branch: str | None) -> GitHubLedger | None:
        """The ledger in ``body``, parsed once per text.

        A ledger comment is read far more often than it changes: every listing, every wait's
        look, every write's read-back.
        """
        key = (comment_id, branch, body)
        with self._parsing:
            found = self._parsed.get(key)
        if found is None:
            found = parse_ledger_body(body, branch)
            with self._parsing:
                if len(self._parsed) >= _PARSED:
                    self._parsed.pop(next(iter(self._parsed)))
                self._parsed[key] = found
        return found

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments; no pull request means none."""
        with self._failing("list"):
            pull = self.find_pull(query.branch)
            found = self._ledgers(pull, query.branch) if pull is not None else None
        comments = found.merged.comments if found else ()
        return page_of(comments, query, encode=str, decode=decode_decimal_cursor)

    def head(self, branch: str) -> str | None:
        """The head commit of the branch's pull request, asked every time; ``None`` without one."""
        with self._failing("head"):
            pull = self._pull(branch)
        return pull.head if pull is not None else None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first; no pull request means none."""
        with self._failing("approvals"):
            pull = self.find_pull(branch)
            found = self._ledgers(pull, branch, "approvals") if pull is not None else None
        return _newest_first(found.merged.approvals if found else ())

    def state(self, branch: str) -> BranchState:
        """The branch's pull request (its head with it) and its ledgers: two requests.

        The ledger read for a write is the one the verdict is decided from: asked within 2 s of
        this store's own write to the same pull request, the comments the write was read back
        from (after it landed) stand in for a fresh listing, once.

        ``pushed`` (the pull request's commits, for the gate's "not pushed" evidence) costs a
        third request only when some resolved comment names a commit other than the head, and
        only once per head (see :meth:`_pushed`).
        """
        with self._failing("state"):
            pull = self._pull(branch)
            if pull is None:
                return BranchState(branch, (), (), None, None)
            comments = self._take_read_back(pull.number)
            if comments is None:
                comments = tuple(self.issue_comments(pull.number))
            found = self._ledgers_in(pull.number, comments, branch, "state")
            merged = found.merged if found is not None else GitHubLedger(branch)
            pushed = self._pushed(pull, merged.comments)
        return BranchState(
            branch,
            merged.comments,
            tuple(_newest_first(merged.approvals)),
            pull.head,
            _fingerprint(comments),
            pushed,
        )

    def _pushed(self, pull: _Pull, comments: Sequence[Comment]) -> frozenset[str] | None:
        """The commits the pull request holds, as far as the resolved ``comments`` ask.

        Resolutions that all name the head (or an abbreviation of it, 7 characters or more) need
        no request: the head alone is the answer. Otherwise the pull request's commits are
        listed (GitHub lists at most 250), once per head: a pull request's commits change only
        with its head. An abbreviated sha that starts one of them counts as pushed, so the gate
        can match resolutions as written. ``None`` (unknown) when the head is unknown, the
        listing fails, or the pull request has more commits than GitHub lists.
        """
        head = pull.head
        if head is None:
            return None
        named = {
            c.resolution.sha
            for c in comments
            if c.status is CommentStatus.RESOLVED and c.resolution is not None
        }
        if all(_abbreviates(sha, head) for sha in named):
            return frozenset({head, *named})
        key = (pull.number, head)
        commits = self._commits.get(key)
        if commits is None:
            try:
                listed = self._pull_commits(pull.number)
            except GitHubError:
                return None  # unknown: the gate shows no "not pushed" rather than a wrong one
            if listed is None:
                return None
            commits = self._commits[key] = listed
        return commits | {s for s in named if any(_abbreviates(s, c) for c in commits)}

    def _pull_commits(self, pull: int) -> frozenset[str] | None:
        """The pull request's commit shas, every page (``None`` past GitHub's 250)."""
        shas: set[str] = set()
        page = 1
        while True:
            response = self._transport.request(
                "GET",
                f"{self._base}/pulls/{pull}/commits",
                params={"per_page": 100, "page": page},
            )
            items = response.data if isinstance(response.data, list) else []
            for item in items:
                sha = item.get("sha") if isinstance(item, dict) else None
                if isinstance(sha, str):
                    shas.add(sha)
            following = _next_page(response.headers.get("link", ""))
            if following is None or following <= page or page * 100 >= _PULL_COMMITS_CAP:
                break
            page = following
        # At the cap, the list may be cut short: a commit missing from it is not known unpushed.
        return frozenset(shas) if len(shas) < _PULL_COMMITS_CAP else None

    def _take_read_back(self, pull: int) -> tuple[JsonObject, ...] | None:
        kept, self._read_back = self._read_back, None
        if kept is None or kept.pull != pull or self._clock.monotonic() - kept.at > _REUSE_S:
            return None
        return kept.comments

    def changes(self, branch: str) -> GitHubChangeSignal:
        """A signal that polls the pull request's comments with conditional requests."""
        return GitHubChangeSignal(self, branch, self._clock)

    # -- what the pull request's review reads and writes through (see ``pull_store``) -------

    def pull_of(self, branch: str) -> tuple[int, str | None] | None:
        """The branch's pull request: its number and head commit (one request)."""
        pull = self._pull(branch)
        return (pull.number, pull.head) if pull is not None else None

    def branch_of(self, pull: int) -> str | None:
        """The head branch of pull request ``pull``, or ``None`` when there is none."""
        answer = self._transport.request("GET", f"{self._base}/pulls/{pull}").data
        head = answer.get("head") if isinstance(answer, dict) else None
        ref = head.get("ref") if isinstance(head, dict) else None
        return ref if isinstance(ref, str) else None

    def read_back(self, pull: int) -> tuple[JsonObject, ...] | None:
        """The issue comments this store's last write was read back from, once, within 2 s."""
        return self._take_read_back(pull)

    def ledger_in(
        self, pull: int, comments: Sequence[JsonObject], branch: str, operation: str
    ) -> GitHubLedger:
        """The trusted ledgers among ``comments``, merged (an empty ledger when there is none)."""
        found = self._ledgers_in(pull, comments, branch, operation)
        return found.merged if found is not None else GitHubLedger(branch)

    def writer_logins(self) -> frozenset[str]:
        """The logins this store writes as."""
        return self._writer_logins()

    @staticmethod
    def fingerprint(comments: Sequence[JsonObject]) -> Hashable:
        """A change token for a pull request's issue comments."""
        return _fingerprint(comments)

    def pushed(
        self, pull: int, head: str | None, comments: Sequence[Comment]
    ) -> frozenset[str] | None:
        """The pull request's commits, as far as ``comments``' resolutions ask (see ``state``)."""
        return self._pushed(_Pull(pull, head), comments)

    def on_pull(self, pull: int, sha: str) -> bool | None:
        """Whether ``sha`` (7 characters or more) is on the pull request; ``None`` if unknown."""
        found = self._pull_by_number(pull)
        if found is not None and found.head is not None and _abbreviates(sha, found.head):
            return True
        head = found.head if found is not None else None
        key = (pull, head or "")
        commits = self._commits.get(key)
        if commits is None:
            try:
                listed = self._pull_commits(pull)
            except GitHubError:
                return None
            if listed is None:
                return None
            commits = self._commits[key] = listed
        return any(_abbreviates(sha, commit) for commit in commits)

    def _pull_by_number(self, pull: int) -> _Pull | None:
        answer = self._transport.request("GET", f"{self._base}/pulls/{pull}").data
        head = answer.get("head") if isinstance(answer, dict) else None
        sha = head.get("sha") if isinstance(head, dict) else None
        return _Pull(pull, sha if isinstance(sha, str) else None)

    def write_marks(
        self,
        pull: int,
        operation: str,
        change: Callable[[GitHubLedger], GitHubLedger],
        landed: Callable[[GitHubLedger], bool | None],
    ) -> None:
        """Change the ledger's records of review items in place, as a resolve edits a comment."""
        with self._failing(operation):
            self._write(pull, None, operation, change, landed, repost=False)

    # -- writing ---------------------------------------------------------------------------

    def _body(self, ledger: GitHubLedger, operation: str, *, adds_words: bool) -> str:
        """The ledger's body, within GitHub's limit; ``LedgerFullError`` when it cannot be.

        A write that adds words (a comment, a reply, an approval) leaves room under the limit
        for status changes, so every comment already in the ledger can still be resolved.
        """
        limit = BODY_LIMIT - _STATUS_ROOM if adds_words else BODY_LIMIT
        try:
            return render_ledger_body(ledger, limit=limit, now=self._clock.now())
        except LedgerTooLargeError as exc:
            raise LedgerFullError(str(exc), store=self.name, operation=operation) from None

    def _post(self, pull: int, body: str) -> None:
        """Create a new ledger (the old ones go once it is read back)."""
        created = self._transport.request(
            "POST", f"{self._base}/issues/{pull}/comments", body={"body": body}
        )
        self._learn_writer(created.data)

    def _edit(self, found: _Ledgers, body: str) -> None:
        """Write the merged ledger over the newest one (the others go once it is read back)."""
        self._transport.request(
            "PATCH", f"{self._base}/issues/comments/{found.ids[-1]}", body={"body": body}
        )

    def _delete_unchanged(self, found: _Ledgers, indexes: Sequence[int] | range) -> None:
        """Delete stale ledgers, but only those nobody changed since we read them."""
        for index in indexes:
            comment_id = found.ids[index]
            path = f"{self._base}/issues/comments/{comment_id}"
            with contextlib.suppress(MapleError):
                now = self._transport.request("GET", path).data
                if isinstance(now, dict) and now.get("updated_at") == found.updated[index]:
                    self._transport.request("DELETE", path)

    def _write(
        self,
        pull: int,
        branch: str | None,
        operation: str,
        change: Callable[[GitHubLedger], GitHubLedger],
        landed: Callable[[GitHubLedger], _T | None],
        *,
        repost: bool,
        adds_words: bool = False,
    ) -> _T:
        """Read, change, write, then read again to check the change landed; retry if it did not.

        GitHub cannot make an edit conditional on the version read, so another writer may
        overwrite ours; reading back catches that (an edit in place is read back a moment
        later), and the change is made again on what is there. Writes from one store take
        turns; the ledgers a write replaces are deleted only once it landed. ``change`` may
        raise (``NotFoundError``) when what it changes is not there.
        """
        with self._writing:
            self._claims.forget()
            return self._write_until_landed(
                pull, branch, operation, change, landed, repost=repost, adds_words=adds_words
            )

    def _write_until_landed(
        self,
        pull: int,
        branch: str | None,
        operation: str,
        change: Callable[[GitHubLedger], GitHubLedger],
        landed: Callable[[GitHubLedger], _T | None],
        *,
        repost: bool,
        adds_words: bool,
    ) -> _T:
        for attempt in range(_WRITE_ATTEMPTS):
            if attempt:
                self._clock.sleep(_RETRY_PAUSE_S * attempt * random.uniform(0.5, 1.5))
            began = self._clock.monotonic()
            found = self._ledgers(pull, branch, operation)
            current = found.merged if found else GitHubLedger(branch or "")
            changed = change(current)
            # Every write leaves each record readable by Maple's writers (an author, a context).
            updated = replace(
                changed, comments=tuple(c.for_maple(_GUEST) for c in changed.comments)
            )
            body = self._body(updated, operation, adds_words=adds_words)
            if found is None or repost:
                self._post(pull, body)
                stale = range(len(found.ids)) if found is not None else range(0)
            else:
                try:
                    self._edit(found, body)
                except GitHubError as exc:
                    if exc.status != 404:
                        raise
                    # A racing writer's repost replaced the ledger we read and deleted it once
                    # its own landed: read again and make the change on what is there now.
                    continue
                stale = range(len(found.ids) - 1)
                # An edit in place can be overwritten by a writer whose read came before it and
                # whose edit lands just after ours: read back a moment later, not at once. That
                # writer's read-and-edit takes about as long as ours did (gh on a busy machine:
                # seconds), so wait at least that long.
                cycle = self._clock.monotonic() - began
                self._clock.sleep(min(max(_SETTLE_S, cycle), _MAX_SETTLE_S))
            comments = tuple(self.issue_comments(pull))
            after = self._ledgers_in(pull, comments, branch, operation)
            result = landed(after.merged) if after else None
            if result is not None:
                # Only now that the new ledger is read back are the old ones it replaces deleted.
                if found is not None:
                    self._delete_unchanged(found, stale)
                self._read_back = _ReadBack(pull, self._clock.monotonic(), comments)
                return result
        raise StoreUnavailableError(
            f"Other writers kept changing pull request #{pull}'s ledger, so {operation} did not "
            "land. Try again.",
            store=self.name,
            operation=operation,
        )

    def append(self, comment: NewComment) -> Comment:
        """Store one comment as ``gh_<pull>_<n>``."""
        return self.append_many([comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in one new ledger (one POST), then delete the old ones."""
        if not comments:
            return []
        branch = comments[0].branch
        with self._failing("append"):
            pull = self.find_pull(branch)
            if pull is None:
                raise NotFoundError(
                    f"No pull request for branch {branch}; Maple has nowhere to post. "
                    "Open a pull request for the branch, or use MAPLE_STORE=file.",
                    store=self.name,
                    operation="append",
                )
            wanted: builtins.list[Comment] = []

            def change(current: GitHubLedger) -> GitHubLedger:
                number = max((record_number(c.id) for c in current.comments), default=0)
                # After every stamp in the ledger, replies' included (a waiting agent's cursor).
                stamps: builtins.list[str | None] = list(activity_stamps(current.comments))
                wanted.clear()
                author = self._author()
                for offset, new in enumerate(comments, start=1):
                    instant = next_arrival_stamp(self._clock.now(), stamps)
                    stamp = format_stamp(instant)
                    stamps = [stamp]
                    stored = new.stored(
                        f"gh_{pull}_{number + offset}",
                        stamp,
                        format_js_timestamp(instant),
                        author,
                    )
                    wanted.append(replace(stored, branch=branch))
                return replace(current, branch=branch, comments=current.comments + tuple(wanted))

            def landed(merged: GitHubLedger) -> builtins.list[Comment] | None:
                by_identity = {comment_identity(c): c for c in merged.comments}
                final = [by_identity.get(comment_identity(c)) for c in wanted]
                return None if any(c is None for c in final) else [c for c in final if c]

            return self._write(pull, branch, "append", change, landed, repost=True, adds_words=True)

    def _by_id(self, pattern: re.Pattern[str], record_id: str, kind: str, operation: str) -> int:
        match = pattern.fullmatch(record_id)
        if match is None:
            raise NotFoundError(
                f"Not a GitHub {kind} id: {record_id}. GitHub {kind} ids look like "
                f"{'gh' if kind == 'comment' else 'gha'}_<pull>_<n>.",
                store=self.name,
                operation=operation,
            )
        return int(match.group(1))

    def _comment_in(self, ledger: GitHubLedger, comment_id: str, operation: str) -> Comment:
        """The comment ``comment_id`` in ``ledger``, or ``NotFoundError`` naming the id."""
        found = next((c for c in ledger.comments if c.id == comment_id), None)
        if found is None:
            raise NotFoundError(
                f"No Maple record {comment_id} on this repository. "
                "List the branch's comments for the ids there are.",
                store=self.name,
                operation=operation,
            )
        return found

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status in place (PATCH); an unknown id is ``NotFoundError``."""
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "set_status")
        first: builtins.list[tuple[tuple[str | None, str | None, str], str]] = []

        def target(current: GitHubLedger) -> tuple[tuple[str | None, str | None, str], str]:
            """The comment's identity and the change's stamp, both fixed by the first read."""
            if first:
                return first[0]
            found = self._comment_in(current, comment_id, "set_status")
            # Strictly later than the version it replaces, even on a clock that is behind, so the
            # change wins every merge with a stale copy of the comment.
            seen = (found.extra.get("updatedAt"), found.arrival)
            stamp = format_stamp(
                next_arrival_stamp(self._clock.now(), [s for s in seen if isinstance(s, str)])
            )
            first.append((comment_identity(found), stamp))
            return first[0]

        with self._failing("set_status"):

            def change(current: GitHubLedger) -> GitHubLedger:
                key, stamp = target(current)
                versions = []
                for c in current.comments:
                    if comment_identity(c) == key:
                        c = c.with_status(status, resolution)
                        c = replace(c, extra={**c.extra, "updatedAt": stamp})
                    versions.append(c)
                return replace(current, comments=tuple(versions))

            def landed(merged: GitHubLedger) -> Comment | None:
                key, stamp = first[0]
                now = next((c for c in merged.comments if comment_identity(c) == key), None)
                ok = (
                    now is not None and now.status is status and now.extra.get("updatedAt") == stamp
                )
                return now if ok else None

            return self._write(pull, None, "set_status", change, landed, repost=False)

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply a thread event to a comment in place (PATCH), as :meth:`set_status` changes one.

        The entry is ``ghr_<pull>_<hex>``, stamped after every stamp in the ledger (replies'
        included) on the first read; a retry applies the same entry with the same stamps. An
        event that changes the status (a reopening, a first resolve) stamps the comment's
        ``updatedAt`` so it wins merges with stale copies; one that only adds to the thread does
        not, so a reply written on a stale read can never carry that read's old status over a
        reviewer's reopening (the thread is merged as a union, so the reply lands either way).
        An unknown id is ``NotFoundError``; an event the comment cannot take raises
        :class:`~maple_core.conversation.ConversationError` unchanged.
        """
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "converse")
        reply_id = f"ghr_{pull}_{secrets.token_hex(6)}"
        first: builtins.list[tuple[tuple[str | None, str | None, str], str, str]] = []
        expected: builtins.list[Comment] = []

        def target(current: GitHubLedger) -> tuple[tuple[str | None, str | None, str], str, str]:
            """The comment's identity and the entry's stamps, all fixed by the first read."""
            if first:
                return first[0]
            found = self._comment_in(current, comment_id, "converse")
            # After every stamp in the ledger (so a waiting agent's cursor covers the reply) and
            # after the comment's last change (so this change wins every merge).
            updated = found.extra.get("updatedAt")
            instant = next_arrival_stamp(
                self._clock.now(),
                [*activity_stamps(current.comments), updated if isinstance(updated, str) else None],
            )
            first.append(
                (comment_identity(found), format_stamp(instant), format_js_timestamp(instant))
            )
            return first[0]

        with self._failing("converse", passing=(ConversationError,)):

            def change(current: GitHubLedger) -> GitHubLedger:
                key, stamp, at = target(current)
                versions = []
                for c in current.comments:
                    if comment_identity(c) == key:
                        if all(r.id != reply_id for r in thread_of(c)):
                            was = (c.status, c.resolution)
                            c = apply_event(c, event, reply_id, stamp, at)
                            if (c.status, c.resolution) != was:
                                c = replace(c, extra={**c.extra, "updatedAt": stamp})
                        expected[:] = [c]
                    versions.append(c)
                return replace(current, comments=tuple(versions))

            def landed(merged: GitHubLedger) -> Comment | None:
                key = first[0][0]
                now = next((c for c in merged.comments if comment_identity(c) == key), None)
                if now is None or not expected:
                    return None
                want = expected[0]
                if any(r.id == reply_id for r in thread_of(want)):
                    # The entry is the event: once it is there it happened, and a status change
                    # someone made after it (a resolve after a reopening) stands.
                    return now if any(r.id == reply_id for r in thread_of(now)) else None
                ok = now.status is want.status and now.resolution == want.resolution
                return now if ok else None

            return self._write(
                pull,
                None,
                "converse",
                change,
                landed,
                repost=False,
                adds_words=isinstance(event, ThreadEvent) and event.kind is ReplyKind.REPLY,
            )

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request; GitHub's order arbitrates a new claim (``ledger_claims``)."""
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "claim")
        found = self._claims.claim(pull, [comment_id], request)
        if not found:
            self._comment_in(GitHubLedger(""), comment_id, "claim")  # raises NotFoundError
        return found[0]

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment, one write per pull request they are on."""
        by_pull: dict[int, builtins.list[str]] = {}
        for comment_id in comment_ids:
            match = _COMMENT_ID.fullmatch(comment_id)
            if match is not None:
                by_pull.setdefault(int(match.group(1)), []).append(comment_id)
        done: dict[str, ClaimResult] = {}
        for pull, ids in by_pull.items():
            for result in self._claims.claim(pull, ids, request):
                done[result.comment.id] = result
        return [done[i] for i in comment_ids if i in done]

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one checked edit."""
        with self._failing("claim"):
            pull = self.find_pull(branch)
            if pull is None:
                return []
            return self._claims.sweep(pull, branch, request)

    def list_branch(self, branch: str) -> builtins.list[Comment]:
        """Every comment on ``branch`` (all pages), as :meth:`list` gives them."""
        return builtins.list(self.state(branch).comments)

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval as ``gha_<pull>_<n>`` (a repost, like an append)."""
        with self._failing("approve"):
            pull = self.find_pull(approval.branch)
            if pull is None:
                raise NotFoundError(
                    f"No pull request for branch {approval.branch}; Maple has nowhere to post.",
                    store=self.name,
                    operation="approve",
                )
            key = (approval.branch, approval.commit, approval.at)

            def change(current: GitHubLedger) -> GitHubLedger:
                number = max((record_number(a.id) for a in current.approvals), default=0) + 1
                stored = approval.stored(f"gha_{pull}_{number}")
                return replace(current, approvals=(*current.approvals, stored))

            def landed(merged: GitHubLedger) -> Approval | None:
                return next(
                    (a for a in merged.approvals if (a.branch, a.commit, a.at) == key), None
                )

            return self._write(
                pull, approval.branch, "approve", change, landed, repost=True, adds_words=True
            )

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval, editing the ledger in place (and remembering the withdrawal)."""
        pull = self._by_id(_APPROVAL_ID, approval_id, "approval", "unapprove")
        checked: builtins.list[bool] = []  # whether the first read held the approval
        with self._failing("unapprove"):

            def change(current: GitHubLedger) -> GitHubLedger:
                if not checked and all(a.id != approval_id for a in current.approvals):
                    raise NotFoundError(
                        f"No approval with id {approval_id}.",
                        store=self.name,
                        operation="unapprove",
                    )
                checked.append(True)
                kept = tuple(a for a in current.approvals if a.id != approval_id)
                withdrawn = tuple(dict.fromkeys((*current.withdrawn, approval_id)))
                return replace(current, approvals=kept, withdrawn=withdrawn)

            def landed(merged: GitHubLedger) -> bool | None:
                return True if all(a.id != approval_id for a in merged.approvals) else None

            self._write(pull, None, "unapprove", change, landed, repost=False)


def _abbreviates(sha: str, commit: str) -> bool:
    """True when ``sha`` is ``commit`` or an abbreviation of it (7 characters or more)."""
    sha = sha.lower()
    return sha == commit.lower() or (len(sha) >= _SHORT_SHA and commit.lower().startswith(sha))


def _next_page(link: str) -> int | None:
    for part in link.split(","):
        if 'rel="next"' in part:
            url = part.split(";", 1)[0].strip().strip("<>")
            page = parse_qs(urlsplit(url).query).get("page")
            if page and page[0].isdigit():
                return int(page[0])
    return None


def _newest_first(approvals: Sequence[Approval]) -> builtins.list[Approval]:
    return sorted(approvals, key=lambda a: a.at, reverse=True)


def _fingerprint(comments: Sequence[JsonObject]) -> Hashable:
    """A change token for a pull request's issue comments (ids, update times, bodies)."""
    return tuple((c.get("id"), c.get("updated_at"), hash(str(c.get("body")))) for c in comments)


class GitHubChangeSignal:
    """Polls a branch's pull request every 2 s with conditional requests (a 304 is free).

    Its deadlines and pauses are ``clock``'s, so a test clock drives them.
    """

    def __init__(self, store: GitHubLedgerStore, branch: str, clock: Clock) -> None:
        self._store = store
        self._branch = branch
        self._clock = clock
        # A signal is made just before a read (a token or the store's ``state``): poll 2 s on.
        self._next_poll = clock.monotonic() + _POLL_S

    def _state(self) -> Hashable:
        try:
            pull = self._store.find_pull(self._branch)
            if pull is None:
                return None
            comments = self._store.issue_comments(pull)
        except MapleError:  # GitHubError is one
            return ("unreadable", self._clock.monotonic())
        return _fingerprint(comments)

    def token(self) -> Hashable:
        """The pull request's comments as of now (fetched conditionally)."""
        self._next_poll = self._clock.monotonic() + _POLL_S
        return self._state()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Poll at most every 2 s until the comments differ from ``token`` or time runs out."""
        clock = self._clock
        deadline = clock.monotonic() + timeout
        while True:
            now = clock.monotonic()
            if now >= self._next_poll:
                self._next_poll = now + _POLL_S
                if self._state() != token:
                    return True
            pause = min(self._next_poll, deadline) - clock.monotonic()
            if pause <= 0 and clock.monotonic() >= deadline:
                return False
            clock.sleep(max(pause, 0))
