"""Maple's route as an ASGI app (``create_route_app``), and ``maple route serve``."""

from __future__ import annotations

from maple_entrypoints.route.app import (
    DEFAULT_BASE_PATH,
    IdentityResolver,
    RouteOptions,
    StoreResolver,
    create_route_app,
)
from maple_entrypoints.route.refresh import GateRefreshOptions

__all__ = [
    "DEFAULT_BASE_PATH",
    "GateRefreshOptions",
    "IdentityResolver",
    "RouteOptions",
    "StoreResolver",
    "create_route_app",
]
