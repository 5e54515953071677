"""The gate-refresh client: after a resolve, ask the route at ``MAPLE_URL`` to publish the gate."""

from __future__ import annotations

from maple_adapters.route.http import RouteHttp, RouteUnreachableError
from maple_core.errors import MapleError

__all__ = ["GateRefreshError", "RouteGateRefresher"]

_HINTS = {
    401: "GitHub did not accept GITHUB_TOKEN.",
    403: "GITHUB_TOKEN needs push access to the repository.",
    404: "MAPLE_URL must be the route's mount URL, on a deployment whose route has gateRefresh.",
}


class GateRefreshError(MapleError):
    """Raised when the route did not refresh the gate; the message names the likely fix."""


class RouteGateRefresher:
    """``POST {MAPLE_URL}/gate/refresh`` with ``{"branch": ...}`` and ``GITHUB_TOKEN`` as bearer.

    The route checks that the token can push, decides the verdict from its own store and
    publishes it with its own gate credentials, so the agent never holds one.
    """

    def __init__(self, http: RouteHttp) -> None:
        self._http = http

    @property
    def name(self) -> str:
        """``route``."""
        return "route"

    @property
    def endpoint(self) -> str:
        """The URL asked on each refresh."""
        return self._http.endpoint("/gate/refresh")

    def refresh(self, branch: str) -> None:
        """Ask once; the answer's body is not needed.

        Raises:
            GateRefreshError: the route answered non-2xx or could not be reached; the message
                carries the route's error and Maple's hint, never the token.
        """
        try:
            answer = self._http.request("POST", "/gate/refresh", body={"branch": branch})
        except RouteUnreachableError as exc:
            raise GateRefreshError(f"{exc}.") from None
        if answer.ok:
            return
        hint = _HINTS.get(answer.status)
        raise GateRefreshError(f"{answer.describe()} {hint}" if hint else answer.describe())
