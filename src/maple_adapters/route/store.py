"""``MAPLE_STORE=route``: comments read and resolved through a deployed Maple route."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import TypedDict, Unpack
from urllib.parse import quote

from maple_adapters.route.http import RouteAnswer, RouteHttp, RouteUnreachableError
from maple_adapters.route.signal import POLL_S, RouteChangeSignal
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import Claim, ClaimDecision, ClaimOutcome, ClaimRequest, ClaimResult
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.conversation import ConversationError, ReplyKind
from maple_core.errors import (
    InvalidQueryError,
    InvalidRecordError,
    MapleError,
    MissingCapabilityError,
    NotFoundError,
    StoreRejectedError,
    StoreUnavailableError,
)
from maple_core.json_types import JsonObject, JsonValue
from maple_core.paging import CommentPage, ListQuery
from maple_core.ports import BranchState, Capability
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent

__all__ = [
    "RouteCommentStore",
]

_CAPABILITIES = frozenset(
    {
        Capability.LIST,
        Capability.APPEND,
        Capability.APPEND_MANY,
        Capability.SET_STATUS,
        Capability.APPROVALS,
        Capability.CONVERSE,
        Capability.CLAIM,
    }
)
_NO_APPROVE = (
    "The route store does not approve: a reviewer approves from the overlay, where the route "
    "knows who they are."
)
_NO_UNAPPROVE = (
    "The route store does not withdraw approvals: the reviewer who approved withdraws it from "
    "the overlay."
)


class _Parts(TypedDict, total=False):
    """What a request to the route carries besides its method and path."""

    params: dict[str, str | list[str]] | None
    body: JsonValue


class RouteCommentStore:
    """The comment store behind a Maple route mount URL (``MAPLE_URL``).

    The route decides what a write becomes: it names the author, stamps a resolution's time and
    keeps the comments in its own store. ``GITHUB_TOKEN``, when set, is sent as a bearer token
    (a route backed by GitHub acts with it). Approving is a reviewer's act in the overlay, where
    the route knows who they are, so this store lists approvals but does not approve; it cannot
    name a head commit either (the route publishes the gate itself, on ``/gate/refresh``).
    """

    name = "route"
    capabilities = _CAPABILITIES
    """List, append, append many, set status, approvals, threads and claims."""

    def __init__(self, http: RouteHttp, poll_s: float = POLL_S) -> None:
        self._http = http
        self._poll_s = poll_s

    def __repr__(self) -> str:
        return f"RouteCommentStore({self._http.base!r})"

    # -- requests ----------------------------------------------------------------------------

    def _ask(self, operation: str, method: str, path: str, **parts: Unpack[_Parts]) -> RouteAnswer:
        answer = self._send(operation, method, path, **parts)
        if answer.ok:
            return answer
        raise self._refusal(answer, operation)

    def _send(self, operation: str, method: str, path: str, **parts: Unpack[_Parts]) -> RouteAnswer:
        try:
            return self._http.request(method, path, **parts)
        except RouteUnreachableError as exc:
            raise StoreUnavailableError(
                f"{exc}. Check that MAPLE_URL is the route's mount URL and the deployment is up.",
                store=self.name,
                operation=operation,
            ) from None

    def _refusal(self, answer: RouteAnswer, operation: str) -> MapleError:
        text = answer.describe()
        status = answer.status
        if status == 400:
            kind = InvalidQueryError if operation == "list" else InvalidRecordError
            return kind(text)
        if status == 404:
            if _generic_not_found(answer):
                return StoreRejectedError(
                    f"{text} MAPLE_URL must be the route's mount URL, such as "
                    "https://preview.example.com/api/maple.",
                    store=self.name,
                    operation=operation,
                )
            return NotFoundError(text, store=self.name, operation=operation)
        if status == 501:
            return self._missing(operation, text)
        if status in (401, 403):
            return StoreRejectedError(
                f"{text} Set GITHUB_TOKEN to a token the route accepts.",
                store=self.name,
                operation=operation,
            )
        if status >= 500 or status == 429:
            return StoreUnavailableError(text, store=self.name, operation=operation)
        return StoreRejectedError(text, store=self.name, operation=operation)

    @staticmethod
    def _comments(data: JsonValue, what: str) -> builtins.list[Comment]:
        values = data.get("comments") if isinstance(data, dict) else None
        if not isinstance(values, list):
            raise InvalidRecordError(f"The route's {what} answer has no 'comments' array.")
        return [Comment.from_json(v) for v in values]

    # -- the store port ----------------------------------------------------------------------

    def list(self, query: ListQuery) -> CommentPage:
        """One page from ``GET /comments``; the route's cursor is passed through unread."""
        if query.limit is not None and query.limit <= 0:
            raise InvalidQueryError(f"limit must be positive, received {query.limit}")
        answer = self._ask("list", "GET", "/comments", params=_list_params(query))
        cursor = answer.data.get("cursor") if isinstance(answer.data, dict) else None
        return CommentPage(
            tuple(self._comments(answer.data, "listing")),
            cursor if isinstance(cursor, str) else None,
        )

    def append(self, comment: NewComment) -> Comment:
        """``POST /comments`` with one comment; the route names its author."""
        answer = self._ask("append", "POST", "/comments", body=_draft_json(comment))
        return Comment.from_json(answer.data)

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """``POST /comments`` with an array: one write on the route's store."""
        if not comments:
            return []
        body: JsonValue = [_draft_json(c) for c in comments]
        answer = self._ask("append", "POST", "/comments", body=body)
        return self._comments(answer.data, "append")

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """``PATCH /comments/{id}``; the route stamps the resolution's time itself."""
        body: JsonObject = {"status": status.value}
        if resolution is not None:
            claim: JsonObject = {"sha": resolution.sha}
            if resolution.note is not None:
                claim["note"] = resolution.note
            body["resolution"] = claim
        path = "/comments/" + quote(comment_id, safe="")
        return Comment.from_json(self._ask("set_status", "PATCH", path, body=body).data)

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """A resolve as ``PATCH /comments/{id}``; any other event ``POST /comments/{id}/thread``.

        A resolve goes the way a TypeScript Maple route takes it too (a maple route keeps the
        first evidence of a comment resolved twice). The event's role is sent as it is; the
        route names its author. A route without the thread endpoint (Maple's) keeps no replies.

        A note on an entry (a classification) is kept where the route runs, never sent.

        Raises:
            MissingCapabilityError: the route keeps no replies, or the event is a note.
            ConversationError: the route refused the event (400), saying why.
        """
        if isinstance(event, EntryNote):
            raise MissingCapabilityError(
                "A route keeps its reviewers' classifications where it runs; set "
                "MAPLE_CLASSIFIER there.",
                store=self.name,
                operation="classify",
            )
        if event.kind is ReplyKind.RESOLVE:
            assert event.resolution is not None  # checked by ThreadEvent
            return self.set_status(comment_id, CommentStatus.RESOLVED, event.resolution)
        body: JsonObject = {
            "kind": event.kind.value,
            "role": event.role.value,
            "body": event.body,
            "question": event.question,
        }
        path = "/comments/" + quote(comment_id, safe="") + "/thread"
        answer = self._send("converse", "POST", path, body=body)
        if answer.status == 404 and _generic_not_found(answer):
            raise self._missing(
                "converse",
                f"{answer.describe()} The route keeps no replies: it has no thread endpoint (a "
                "TypeScript Maple route, or an older maple). Reply where the comment lives.",
            )
        if answer.status == 400:  # the route's reason the comment cannot take the event
            raise ConversationError(answer.describe())
        if not answer.ok:
            raise self._refusal(answer, "converse")
        return Comment.from_json(answer.data)

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """``POST /comments/{id}/claim``; the route decides on its own clock (409: held).

        Raises:
            MissingCapabilityError: the route keeps no claims (no such endpoint).
        """
        path = "/comments/" + quote(comment_id, safe="") + "/claim"
        answer = self._claims_answer("claim", path, request.to_json())
        return _claim_result(answer.data)

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """``POST /claims`` with the ids: one write on the route's store."""
        if not comment_ids:
            return []
        body: JsonObject = {**request.to_json(), "ids": list(comment_ids)}
        answer = self._claims_answer("claim", "/claims", body)
        results = answer.data.get("results") if isinstance(answer.data, dict) else None
        if not isinstance(results, list):
            raise InvalidRecordError("The route's claims answer has no 'results' array.")
        return [_claim_result(r) for r in results]

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """``POST /claims``: the session's claims on ``branch``, renewed or ended at once."""
        answer = self._claims_answer("claim", "/claims", {"branch": branch, **request.to_json()})
        return self._comments(answer.data, "claims")

    def _claims_answer(self, operation: str, path: str, body: JsonObject) -> RouteAnswer:
        answer = self._send(operation, "POST", path, body=body)
        if answer.status == 404 and _generic_not_found(answer):
            raise MissingCapabilityError(
                f"{answer.describe()} The route keeps no claims: it has no claim endpoint (a "
                "TypeScript Maple route, or an older maple).",
                store=self.name,
                operation=operation,
            )
        if answer.ok or answer.status == 409:
            return answer
        raise self._refusal(answer, operation)

    def head(self, branch: str) -> str | None:
        """Always ``None``: a route does not say which commit its preview serves."""
        return None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """``GET /approvals``, newest first; ``None`` when the route's store keeps none."""
        try:
            answer = self._ask("approvals", "GET", "/approvals", params={"branch": branch})
        except MissingCapabilityError:
            return None
        values = answer.data.get("approvals") if isinstance(answer.data, dict) else None
        if not isinstance(values, list):
            raise InvalidRecordError("The route's approvals answer has no 'approvals' array.")
        return [Approval.from_json(v) for v in values]

    def state(self, branch: str) -> BranchState:
        """The branch's listing (every page) and approvals, the change token taken first."""
        token = self.changes(branch).token()
        comments: builtins.list[Comment] = []
        cursor: str | None = None
        while True:
            page = self.list(ListQuery(branch=branch, cursor=cursor))
            comments += page.comments
            cursor = page.cursor
            if cursor is None:
                break
        approvals = self.approvals(branch)
        kept = tuple(approvals) if approvals is not None else None
        return BranchState(branch, tuple(comments), kept, None, token)

    def approve(self, approval: NewApproval) -> Approval:
        """Refused: the reviewer approves in the overlay, where the route can name them."""
        raise self._missing("approve", _NO_APPROVE)

    def unapprove(self, approval_id: str) -> None:
        """Refused, for the reason :meth:`approve` is."""
        raise self._missing("unapprove", _NO_UNAPPROVE)

    def _missing(self, operation: str, message: str) -> MissingCapabilityError:
        return MissingCapabilityError(message, store=self.name, operation=operation)

    def changes(self, branch: str) -> RouteChangeSignal:
        """A signal that polls the branch's listing (conditionally, when the route sends ETags)."""
        return RouteChangeSignal(self._http, branch, self._poll_s)


def _claim_result(data: JsonValue) -> ClaimResult:
    """A route's answer about one claim: ``{outcome, claim?, holder?, changed, comment}``."""
    found = data if isinstance(data, dict) else {}
    outcome = found.get("outcome")
    if not isinstance(outcome, str) or outcome not in ClaimOutcome._value2member_map_:
        raise InvalidRecordError("The route's claim answer has no readable 'outcome'.")
    decision = ClaimDecision(
        ClaimOutcome(outcome),
        Claim.read(found.get("claim")),
        Claim.read(found.get("holder")),
        write=found.get("changed") is True,
    )
    return ClaimResult(Comment.from_json(found.get("comment")), decision)


def _generic_not_found(answer: RouteAnswer) -> bool:
    """A 404 for a path the route does not serve (not its answer about one comment)."""
    return isinstance(answer.data, dict) and answer.data.get("error") == "Not found"


def _list_params(query: ListQuery) -> dict[str, str | list[str]]:
    params: dict[str, str | list[str]] = {"branch": query.branch}
    if query.cursor is not None:
        params["cursor"] = query.cursor
    if query.limit is not None:
        params["limit"] = str(query.limit)
    if query.statuses:
        params["status"] = sorted(s.value for s in query.statuses)
    return params


def _draft_json(comment: NewComment) -> JsonObject:
    data = comment.stored("", "", "").to_json()
    for key in ("id", "receivedAt", "resolution"):
        data.pop(key, None)
    if comment.created_at is None:
        data.pop("createdAt", None)
    return data
