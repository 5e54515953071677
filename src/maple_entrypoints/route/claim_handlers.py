"""The route's claims: an agent's claim or release of a comment, and a session's claims at once.

``POST /comments/{id}/claim`` claims, renews or releases one comment (409 names the holder);
``POST /claims`` applies one request to many comments (``ids``) or renews or ends a session's
claims on a branch. A claim that changed is republished: the check run says who is on what.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from maple_core.claims import ClaimOutcome, ClaimRequest
from maple_core.json_types import JsonObject
from maple_core.ports import Capability, CommentClaims, CommentStore
from maple_entrypoints.route.answers import RouteRefusalError, json_answer, read_json
from maple_entrypoints.route.comment_handlers import known_comment
from maple_entrypoints.route.handling import off_loop
from maple_entrypoints.route.params import read_branch
from maple_entrypoints.route.republish import Republishing

__all__ = ["ClaimHandlers"]

_MAX_CLAIMED = 10_000  # comments one POST /claims may claim: a branch's whole listing


class ClaimHandlers(Republishing):
    """Claims on the route's store, for agents (never a reviewer's browser)."""

    def claims_store(self, request: Request) -> tuple[CommentStore, CommentClaims]:
        """The store and its claims; a reviewer's browser never claims.

        On a route serving one person's browser (``client_authors``), every caller is that
        browser: claims are an agent's (or a person's through ``maple comments claim``), so
        the browser only sees them.
        """
        if self.options.client_authors:
            raise RouteRefusalError(
                403,
                "A reviewer's browser cannot claim comments: claims are an agent's (maple-mcp) "
                "or a person's (maple comments claim).",
            )
        store = self.store_for(request)
        if Capability.CLAIM not in store.capabilities or not isinstance(store, CommentClaims):
            raise RouteRefusalError(501, "This store keeps no claims")
        return store, store

    async def claim(self, request: Request) -> Response:
        """``POST /comments/{id}/claim``: claim, renew or release; 409 names the holder."""
        store, claims = self.claims_store(request)
        asked = ClaimRequest.from_json(await read_json(request, self.options.max_json_bytes))
        comment_id = request.path_params["id"]
        with known_comment(comment_id):
            result = await off_loop(claims.claim, comment_id, asked)
        body: JsonObject = {
            **result.to_json(),
            "changed": result.decision.write,
            "comment": result.comment.to_json(),
        }
        held = result.outcome is ClaimOutcome.HELD
        # The check run's summary says who is on each comment, so a claim that changed is
        # published as a status change is.
        after = (
            self.after_write(store, request, result.comment.branch)
            if result.decision.write
            else None
        )
        return json_answer(body, 409 if held else 200, background=after)

    async def sweep_claims(self, request: Request) -> Response:
        """``POST /claims``: many claims at once.

        With ``ids``, the request applies to each of those comments (``{results: [...]}``, a
        result per comment found); with ``branch``, it renews (``claim``) or ends
        (``release``) the session's claims there (``{comments: [...]}``, those that changed).
        """
        store, claims = self.claims_store(request)
        posted = await read_json(request, self.options.max_json_bytes)
        asked = ClaimRequest.from_json(posted)
        ids = posted.get("ids") if isinstance(posted, dict) else None
        if ids is not None:
            if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
                raise RouteRefusalError(400, "'ids' must be a list of comment ids")
            if len(ids) > _MAX_CLAIMED:
                raise RouteRefusalError(400, f"At most {_MAX_CLAIMED} comments at once")
            results = await off_loop(claims.claim_many, [str(i) for i in ids], asked)
            answered: JsonObject = {
                "results": [
                    {**r.to_json(), "changed": r.decision.write, "comment": r.comment.to_json()}
                    for r in results
                ]
            }
            branches = [r.comment.branch for r in results if r.decision.write]
            return json_answer(answered, background=self.after_write(store, request, *branches))
        branch = read_branch(posted)
        changed = await off_loop(claims.sweep_claims, branch, asked)
        body: JsonObject = {"comments": [c.to_json() for c in changed]}
        after = self.after_write(store, request, branch) if changed else None
        return json_answer(body, background=after)
