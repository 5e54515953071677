"""A deployed Maple route as a store (``MAPLE_STORE=route``) and as the gate's refresher."""

from __future__ import annotations

from maple_adapters.route.http import RouteHttp, RouteUnreachableError
from maple_adapters.route.refresh import GateRefreshError, RouteGateRefresher
from maple_adapters.route.store import RouteChangeSignal, RouteCommentStore

__all__ = [
    "GateRefreshError",
    "RouteChangeSignal",
    "RouteCommentStore",
    "RouteGateRefresher",
    "RouteHttp",
    "RouteUnreachableError",
]
