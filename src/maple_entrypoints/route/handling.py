"""What every handler of the route shares: the options, a request's store and reviewer, the time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread
from starlette.requests import Request

from maple_core.authors import Reviewer
from maple_core.cursor import format_js_timestamp
from maple_core.ports import CommentStore
from maple_entrypoints.route.answers import (
    RouteRefusalError,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.route.app import RouteOptions

__all__ = [
    "RouteHandlers",
    "off_loop",
]


T = TypeVar("T")


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking store or gate call on a worker thread."""
    return await anyio.to_thread.run_sync(fn, *args)


class RouteHandlers:
    """The route's handlers, holding its options."""

    def __init__(self, options: RouteOptions) -> None:
        self.options = options

    def store_for(self, request: Request) -> CommentStore:
        """The store for the request (401 when a per-caller store has none for it)."""
        chosen = self.options.store
        store = chosen(request) if callable(chosen) else chosen
        if store is None:
            raise RouteRefusalError(401, "This reviewer has no store to write to")
        return store

    def reviewer(self, request: Request) -> Reviewer | None:
        """The reviewer behind the request, or ``None`` for a guest."""
        identify = self.options.identity
        return identify(request) if identify is not None else None

    def now(self) -> str:
        """The time now, as Maple stamps it."""
        return format_js_timestamp(self.options.clock.now())
