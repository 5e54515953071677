"""The route's republish policy: after a write, the gate is published for the branches it touched.

After the answer is sent, so a slow or failing GitHub never delays or fails the write; only for
a caller who can push when each caller writes with a store of their own.
"""

from __future__ import annotations

from starlette.background import BackgroundTask
from starlette.requests import Request

from maple_core.errors import MapleError
from maple_core.gate_ports import PushAnswer
from maple_core.ports import CommentStore
from maple_core.reporting import report_to_gate
from maple_core.targets import GateTarget
from maple_entrypoints.route.answers import (
    bearer_token,
)
from maple_entrypoints.route.handling import RouteHandlers, off_loop

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

__all__ = [
    "Republishing",
]


class Republishing(RouteHandlers):
    """Handlers whose writes republish the gate."""

    def after_write(
        self, store: CommentStore, request: Request, *branches: str
    ) -> BackgroundTask | None:
        """The gate publishes to run once a write's answer is sent, or ``None`` without a gate.

        One publish per branch the write touched, in order. After the answer, so a slow or
        failing GitHub never delays or fails the write itself.
        """
        if self.options.gate is None or not branches:
            return None
        return BackgroundTask(self.report_gates, store, request, list(dict.fromkeys(branches)))

    async def report_gates(
        self, store: CommentStore, request: Request, branches: list[str]
    ) -> None:
        """Publish each branch's verdict after a write; a failure is logged, never answered."""
        for branch in branches:
            await self.report_gate(store, request, branch)

    async def may_publish(self, request: Request) -> bool:
        """Whether this caller's write may republish the gate.

        A per-caller store trusts the ledger its caller wrote, so only a caller who can push
        (as ``/gate/refresh`` asks) decides the published verdict; anyone else's write waits for
        the next push or refresh. A route with one store of its own publishes for every write.
        """
        if not callable(self.options.store):
            return True
        refresh, token = self.options.refresh, bearer_token(request)
        if refresh is None or token is None:
            return False
        try:
            answer = await off_loop(refresh.push_access, token)
        except MapleError:
            return False
        return answer is PushAnswer.PUSH

    async def report_gate(self, store: CommentStore, request: Request, branch: str) -> None:
        """Publish one branch's verdict after a write; a failure is logged, never answered."""
        gate = self.options.gate
        if gate is None:
            return
        if not await self.may_publish(request):
            self.options.log.warn(
                "A caller without push access changed comments, so the gate was not published; "
                "the next push or gate refresh publishes it."
            )
            return
        token = bearer_token(request)
        log = self.options.log.scrubbing(token) if token else self.options.log
        target = GateTarget(log, gate, self.options.rules)
        await off_loop(report_to_gate, store, branch, target, self.options.clock.now())
