"""``POST /gate/refresh``: republish the merge gate for a branch, for a caller who can push.

An agent resolving comments away from a browser moves the check this way without ever holding
a gate credential: it names a branch and proves push access with its own GitHub token; the
verdict is decided here, from the store, and published with the route's own gate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from maple_core.branch_gate import publish_gate
from maple_core.errors import InvalidRecordError
from maple_core.gate_ports import GatePublisher, PushAccess, PushAnswer
from maple_core.gate_rules import GateRules
from maple_core.ports import CommentStore
from maple_core.targets import NotPublished
from maple_entrypoints.route.answers import RouteRefusalError, bearer_token, json_answer, read_json
from maple_entrypoints.route.params import read_branch

__all__ = ["GateRefreshOptions", "refresh_gate"]


@dataclass(frozen=True)
class GateRefreshOptions:
    """Turns ``/gate/refresh`` on for one repository.

    Attributes:
        push_access: says whether a token can push to the repository (cached by the caller).
        store_for_token: builds the store the verdict is read from, acting with the caller's
            token; without it the route's own store is used.
    """

    push_access: PushAccess
    store_for_token: Callable[[str], CommentStore] | None = None


async def refresh_gate(
    options: GateRefreshOptions,
    request: Request,
    *,
    gate: GatePublisher | None,
    fallback_store: Callable[[Request], CommentStore],
    rules: GateRules,
    limit: int,
    now: datetime | None = None,
) -> Response:
    """Check the caller, then decide and publish the gate; Maple's checks in Maple's order.

    The check run links to the rules' review URL (configured), never to the request's origin.
    """
    token = bearer_token(request)
    if token is None:
        raise RouteRefusalError(401, "A GitHub token is required")
    try:
        branch = read_branch(await read_json(request, limit))
    except (RouteRefusalError, InvalidRecordError) as exc:
        if isinstance(exc, RouteRefusalError) and exc.status == 413:
            raise
        raise RouteRefusalError(400, "A branch is required") from None
    answer = await anyio.to_thread.run_sync(options.push_access, token)
    if answer is PushAnswer.BAD_TOKEN:
        raise RouteRefusalError(401, "GitHub did not accept this token")
    if answer is PushAnswer.DENIED:
        raise RouteRefusalError(403, "This token cannot push to the repository")
    if gate is None:
        raise RouteRefusalError(404, "This deployment publishes no gate")
    build = options.store_for_token
    try:
        store = build(token) if build is not None else fallback_store(request)
    except RouteRefusalError:
        raise RouteRefusalError(401, "There is no store to read the verdict from") from None
    outcome = await anyio.to_thread.run_sync(publish_gate, store, gate, branch, rules, now)
    if isinstance(outcome, NotPublished):
        raise RouteRefusalError(409, f'No head commit for "{branch}"')
    verdict = outcome.report.verdict
    return json_answer(
        {
            "branch": branch,
            "sha": outcome.report.sha,
            "verdict": {
                "conclusion": verdict.conclusion.value,
                "reason": verdict.reason.value,
                "open": verdict.open,
                "total": verdict.total,
            },
        }
    )
