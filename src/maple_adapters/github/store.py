"""The ``github`` store: a pull request's ledger comment, over either transport (behaviour §4)."""

from __future__ import annotations

import builtins
import contextlib
import re
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from urllib.parse import parse_qs, urlsplit

from maple_adapters.github.ledger import (
    GitHubLedger,
    merge_ledgers,
    parse_ledger_body,
    render_ledger_body,
)
from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_core.approvals import Approval, NewApproval
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import MapleError, NotFoundError, StoreUnavailableError
from maple_core.json_types import JsonObject
from maple_core.paging import CommentPage, ListQuery, decode_decimal_cursor, page_of
from maple_core.ports import Capability, Clock
from maple_core.statuses import CommentStatus

__all__ = ["GitHubChangeSignal", "GitHubLedgerStore"]

_CAPABILITIES = frozenset(Capability)
_COMMENT_ID = re.compile(r"gh_(\d+)_(\d+)")
_APPROVAL_ID = re.compile(r"gha_(\d+)_(\d+)")
_MAX_PAGES = 100
_POLL_S = 2.0


@dataclass(frozen=True, slots=True)
class _Ledgers:
    """Every ledger comment on a pull request (oldest update first) and their union."""

    pull: int
    ids: tuple[int, ...]
    merged: GitHubLedger


class GitHubLedgerStore:
    """Comments and approvals in one issue comment per pull request (Maple's ``githubStore``).

    Reading merges every ledger found, so two writers racing on one pull request lose nothing;
    a write consolidates them into one. Every GET is conditional (see ``ConditionalTransport``).

    Args:
        transport: how to reach GitHub (``api`` or ``cli``), already resilient and conditional.
        owner: the repository's owner.
        repo: the repository's name.
        clock: stamps arrivals.
    """

    def __init__(self, transport: GitHubTransport, owner: str, repo: str, clock: Clock) -> None:
        self._transport = transport
        self._owner = owner
        self._repo = repo
        self._clock = clock
        self._base = f"/repos/{owner}/{repo}"

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

    def _fail(self, exc: MapleError, operation: str) -> StoreUnavailableError:
        return StoreUnavailableError(str(exc), store=self.name, operation=operation)

    # -- reading ---------------------------------------------------------------------------

    def find_pull(self, branch: str) -> int | None:
        """The pull request whose head is ``branch``: an open one, else the newest of any."""
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
                    return number
        return None

    def _issue_comments(self, pull: int) -> builtins.list[JsonObject]:
        found: builtins.list[JsonObject] = []
        page = 1
        while page <= _MAX_PAGES:
            response = self._transport.request(
                "GET",
                f"{self._base}/issues/{pull}/comments",
                params={"per_page": 100, "page": page},
            )
            if isinstance(response.data, list):
                found += [c for c in response.data if isinstance(c, dict)]
            following = _next_page(response.headers.get("link", ""))
            if following is None:
                break
            page = following
        return found

    def _ledgers(self, pull: int, branch: str | None) -> _Ledgers | None:
        ledgers: builtins.list[tuple[str, int, GitHubLedger]] = []
        for comment in self._issue_comments(pull):
            body, comment_id = comment.get("body"), comment.get("id")
            if not isinstance(body, str) or not isinstance(comment_id, int):
                continue
            ledger = parse_ledger_body(body, branch)
            if ledger is not None:
                updated = comment.get("updated_at")
                ledgers.append((updated if isinstance(updated, str) else "", comment_id, ledger))
        if not ledgers:
            return None
        ledgers.sort(key=lambda item: (item[0], item[1]))
        merged = merge_ledgers([ledger for _, _, ledger in ledgers])
        return _Ledgers(pull, tuple(i for _, i, _ in ledgers), merged)

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments; no pull request means none."""
        try:
            pull = self.find_pull(query.branch)
            found = self._ledgers(pull, query.branch) if pull is not None else None
        except MapleError as exc:
            raise self._fail(exc, "list") from exc
        comments = found.merged.comments if found else ()
        return page_of(comments, query, encode=str, decode=decode_decimal_cursor)

    def head(self, branch: str) -> str | None:
        """The head commit of the branch's pull request, asked every time; ``None`` without one."""
        try:
            pull = self.find_pull(branch)
            if pull is None:
                return None
            data = self._transport.request("GET", f"{self._base}/pulls/{pull}").data
        except MapleError as exc:
            raise self._fail(exc, "head") from exc
        head = data.get("head") if isinstance(data, dict) else None
        sha = head.get("sha") if isinstance(head, dict) else None
        return sha if isinstance(sha, str) else None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first; no pull request means none."""
        try:
            pull = self.find_pull(branch)
            found = self._ledgers(pull, branch) if pull is not None else None
        except MapleError as exc:
            raise self._fail(exc, "approvals") from exc
        approvals = found.merged.approvals if found else ()
        return sorted(approvals, key=lambda a: a.at, reverse=True)

    def changes(self, branch: str) -> GitHubChangeSignal:
        """A signal that polls the pull request's comments with conditional requests."""
        return GitHubChangeSignal(self, branch)

    # -- writing ---------------------------------------------------------------------------

    def _post(self, pull: int, ledger: GitHubLedger, stale: Sequence[int]) -> None:
        """Create the new ledger first, then delete the old ones (a failed delete is ignored)."""
        self._transport.request(
            "POST",
            f"{self._base}/issues/{pull}/comments",
            body={"body": render_ledger_body(ledger)},
        )
        self._delete(stale)

    def _delete(self, stale: Sequence[int]) -> None:
        for comment_id in stale:
            with contextlib.suppress(MapleError):
                self._transport.request("DELETE", f"{self._base}/issues/comments/{comment_id}")

    def _edit(self, found: _Ledgers, ledger: GitHubLedger) -> None:
        """Write the merged ledger over the newest one, then delete the others."""
        self._transport.request(
            "PATCH",
            f"{self._base}/issues/comments/{found.ids[-1]}",
            body={"body": render_ledger_body(ledger)},
        )
        self._delete(found.ids[:-1])

    def append(self, comment: NewComment) -> Comment:
        """Store one comment as ``gh_<pull>_<n>``."""
        return self.append_many([comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in one new ledger (one POST), then delete the old ones."""
        if not comments:
            return []
        branch = comments[0].branch
        try:
            pull = self.find_pull(branch)
            if pull is None:
                raise NotFoundError(
                    f"No pull request for branch {branch}; Maple has nowhere to post. "
                    "Open a pull request for the branch, or use MAPLE_STORE=file.",
                    store=self.name,
                    operation="append",
                )
            found = self._ledgers(pull, branch)
            existing = found.merged if found else GitHubLedger(branch)
            number = max((_number(c.id) for c in existing.comments), default=0)
            stamps: builtins.list[str | None] = [c.arrival for c in existing.comments]
            stored: builtins.list[Comment] = []
            for offset, new in enumerate(comments, start=1):
                instant = next_arrival_stamp(self._clock.now(), stamps)
                stamp = format_stamp(instant)
                stamps = [stamp]
                comment = new.stored(
                    f"gh_{pull}_{number + offset}", stamp, format_js_timestamp(instant)
                )
                stored.append(replace(comment, branch=branch))
            ledger = replace(existing, branch=branch, comments=existing.comments + tuple(stored))
            self._post(pull, ledger, found.ids if found else ())
        except NotFoundError:
            raise
        except MapleError as exc:
            raise self._fail(exc, "append") from exc
        return stored

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

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status in place (PATCH); an unknown id is ``NotFoundError``."""
        pull = self._by_id(_COMMENT_ID, comment_id, "comment", "set_status")
        try:
            found = self._ledgers(pull, None)
            target = (
                next((c for c in found.merged.comments if c.id == comment_id), None)
                if found
                else None
            )
            if found is None or target is None:
                raise NotFoundError(
                    f"No Maple record {comment_id} on this repository. "
                    "List the branch's comments for the ids there are.",
                    store=self.name,
                    operation="set_status",
                )
            updated = target.with_status(status, resolution)
            comments = tuple(updated if c.id == comment_id else c for c in found.merged.comments)
            self._edit(found, replace(found.merged, comments=comments))
        except NotFoundError:
            raise
        except MapleError as exc:
            raise self._fail(exc, "set_status") from exc
        return updated

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval as ``gha_<pull>_<n>`` (a repost, like an append)."""
        try:
            pull = self.find_pull(approval.branch)
            if pull is None:
                raise NotFoundError(
                    f"No pull request for branch {approval.branch}; Maple has nowhere to post.",
                    store=self.name,
                    operation="approve",
                )
            found = self._ledgers(pull, approval.branch)
            existing = found.merged if found else GitHubLedger(approval.branch)
            number = max((_number(a.id) for a in existing.approvals), default=0) + 1
            stored = approval.stored(f"gha_{pull}_{number}")
            self._post(
                pull,
                replace(existing, approvals=(*existing.approvals, stored)),
                found.ids if found else (),
            )
        except NotFoundError:
            raise
        except MapleError as exc:
            raise self._fail(exc, "approve") from exc
        return stored

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval, editing the ledger in place."""
        pull = self._by_id(_APPROVAL_ID, approval_id, "approval", "unapprove")
        try:
            found = self._ledgers(pull, None)
            kept = tuple(a for a in found.merged.approvals if a.id != approval_id) if found else ()
            if found is None or len(kept) == len(found.merged.approvals):
                raise NotFoundError(
                    f"No approval with id {approval_id}.", store=self.name, operation="unapprove"
                )
            self._edit(found, replace(found.merged, approvals=kept))
        except NotFoundError:
            raise
        except MapleError as exc:
            raise self._fail(exc, "unapprove") from exc


def _number(record_id: str) -> int:
    tail = record_id.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _next_page(link: str) -> int | None:
    for part in link.split(","):
        if 'rel="next"' in part:
            url = part.split(";", 1)[0].strip().strip("<>")
            page = parse_qs(urlsplit(url).query).get("page")
            if page and page[0].isdigit():
                return int(page[0])
    return None


class GitHubChangeSignal:
    """Polls a branch's pull request every 2 s with conditional requests (a 304 is free)."""

    def __init__(self, store: GitHubLedgerStore, branch: str) -> None:
        self._store = store
        self._branch = branch
        self._next_poll = 0.0

    def _state(self) -> Hashable:
        try:
            pull = self._store.find_pull(self._branch)
            if pull is None:
                return None
            comments = self._store._issue_comments(pull)
        except (MapleError, GitHubError):
            return ("unreadable", time.monotonic())
        return tuple((c.get("id"), c.get("updated_at"), hash(str(c.get("body")))) for c in comments)

    def token(self) -> Hashable:
        """The pull request's comments as of now (fetched conditionally)."""
        self._next_poll = time.monotonic() + _POLL_S
        return self._state()

    def wait(self, token: Hashable, timeout: float) -> bool:
        """Poll at most every 2 s until the comments differ from ``token`` or time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            now = time.monotonic()
            if now >= self._next_poll:
                self._next_poll = now + _POLL_S
                if self._state() != token:
                    return True
            pause = min(self._next_poll, deadline) - time.monotonic()
            if pause <= 0 and time.monotonic() >= deadline:
                return False
            time.sleep(max(pause, 0))
