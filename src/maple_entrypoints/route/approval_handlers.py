"""The route's approvals: listed, given by a signed-in reviewer, withdrawn by its giver."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from maple_core.approvals import NewApproval
from maple_core.ports import Capability, CommentStore
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    json_answer,
    read_json,
)
from maple_entrypoints.route.handling import off_loop
from maple_entrypoints.route.params import read_branch, read_note
from maple_entrypoints.route.republish import Republishing

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

__all__ = [
    "ApprovalHandlers",
]


class ApprovalHandlers(Republishing):
    """``/approvals`` and ``DELETE /approvals/{id}``."""

    def approvals_store(self, request: Request) -> CommentStore:
        """The request's store, which must keep approvals (else 501)."""
        store = self.store_for(request)
        if not {Capability.APPROVALS, Capability.APPROVE} <= store.capabilities:
            raise RouteRefusalError(501, "This store keeps no approvals")
        return store

    async def approvals(self, request: Request) -> Response:
        """``GET /approvals?branch=B`` lists them; ``POST`` approves the branch's head commit."""
        if request.method == "GET":
            branch = request.query_params.get("branch")
            if not branch:
                raise RouteRefusalError(400, "A branch is required")
            kept = await off_loop(self.approvals_store(request).approvals, branch)
            return json_answer({"approvals": [a.to_json() for a in kept or []]})
        if request.method != "POST":
            raise RouteRefusalError(405, "Method not allowed")
        store = self.approvals_store(request)
        reviewer = self.reviewer(request)
        if reviewer is None:
            raise RouteRefusalError(401, "Sign in before you can approve this preview")
        body = await read_json(request, self.options.max_json_bytes)
        branch = read_branch(body)
        commit = await off_loop(store.head, branch)
        if commit is None:
            raise RouteRefusalError(409, "Nothing here can name the commit this preview is serving")
        approval = NewApproval(branch, commit, self.now(), reviewer.author(), read_note(body))
        recorded = await off_loop(store.approve, approval)
        return json_answer(
            recorded.to_json(), 201, background=self.after_write(store, request, branch)
        )

    async def withdraw(self, request: Request) -> Response:
        """``DELETE /approvals/{id}?branch=B``: a reviewer withdraws an approval of their own."""
        store = self.approvals_store(request)
        reviewer = self.reviewer(request)
        if reviewer is None:
            raise RouteRefusalError(401, "Sign in before you can withdraw an approval")
        if Capability.UNAPPROVE not in store.capabilities:
            raise RouteRefusalError(501, "This store cannot withdraw an approval")
        branch = request.query_params.get("branch")
        if not branch:
            raise RouteRefusalError(400, "A branch is required")
        approval_id = request.path_params["id"]
        kept = await off_loop(store.approvals, branch) or []
        if not any(a.id == approval_id and a.author.get("id") == reviewer.id for a in kept):
            raise RouteRefusalError(404, "No approval of yours with that id")
        await off_loop(store.unapprove, approval_id)
        return json_answer({"branch": branch}, background=self.after_write(store, request, branch))
