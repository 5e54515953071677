"""A comment's status and thread on the route: Maple's ``PATCH``, and ``POST …/thread``."""

from __future__ import annotations

import dataclasses

from starlette.requests import Request
from starlette.responses import Response

from maple_core.comments import Comment
from maple_core.conversation import ConversationError, Role
from maple_core.json_types import JsonValue
from maple_core.ports import Capability, CommentConversation, CommentStore
from maple_core.resolving import resolve_comment, stamped_resolution
from maple_core.statuses import CommentStatus
from maple_core.submissions import read_status_change
from maple_core.thread_events import ThreadEvent
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    json_answer,
    read_json,
)
from maple_entrypoints.route.authorship import (
    author_of_post,
)
from maple_entrypoints.route.comment_handlers import known_comment
from maple_entrypoints.route.feedback import marked, trust_of
from maple_entrypoints.route.handling import off_loop
from maple_entrypoints.route.reading_handlers import ReadingHandlers

__all__ = [
    "StatusHandlers",
]


_REOPENED_BY_STATUS = "Reopened (status set to open, without a reason)."
"""The reason a reopening through Maple's ``PATCH {status: "open"}`` records."""


class StatusHandlers(ReadingHandlers):
    """A status change (Maple's ``PATCH``) and a thread event."""

    async def set_status(self, request: Request, posted: JsonValue) -> Response:
        """``PATCH /comments/{id}`` with a status (and a resolution's sha and note)."""
        comment_id = request.path_params["id"]
        change = read_status_change(posted)
        store = self.store_for(request)
        if Capability.SET_STATUS not in store.capabilities:
            raise RouteRefusalError(501, "This store cannot change a status")
        resolution = None
        with known_comment(comment_id):
            if change.status is CommentStatus.RESOLVED and change.sha is not None:
                # On a store that keeps threads, resolving a resolved comment keeps its first
                # evidence and records this one in the thread (``resolving.resolve_comment``).
                reviewer = self.reviewer(request)
                updated = await off_loop(
                    lambda: resolve_comment(
                        store,
                        comment_id,
                        change.sha or "",
                        change.note,
                        self.options.clock,
                        author=reviewer.author() if reviewer is not None else None,
                    )
                )
            elif (
                change.status is CommentStatus.OPEN
                and Capability.CONVERSE in store.capabilities
                and isinstance(store, CommentConversation)
            ):
                updated = await off_loop(self.reopened, store, store, comment_id, request)
            else:
                if change.sha is not None:
                    resolution = stamped_resolution(change.sha, change.note, self.options.clock)
                updated = await off_loop(store.set_status, comment_id, change.status, resolution)
        return json_answer(
            updated.to_json(), background=self.after_write(store, request, updated.branch)
        )

    def reopened(
        self,
        store: CommentStore,
        conversing: CommentConversation,
        comment_id: str,
        request: Request,
    ) -> Comment:
        """Maple's ``PATCH {status: "open"}`` on a store that keeps threads.

        A resolved comment is reopened as the overlay reopens one (a thread entry, which wakes a
        waiting agent); any other is set open as Maple does.
        """
        reviewer = self.reviewer(request)
        author = reviewer.author() if reviewer is not None else None
        try:
            return conversing.converse(comment_id, ThreadEvent.reopen(_REOPENED_BY_STATUS, author))
        except ConversationError:
            return store.set_status(comment_id, CommentStatus.OPEN)

    async def thread(self, request: Request) -> Response:
        """``POST /comments/{id}/thread``: a reply, a reopening or a confirmation.

        The author is the caller (as for a new comment). On a ``client_authors`` route the
        caller is a reviewer's browser, which never speaks as the agent nor asks a question.
        """
        posted = await read_json(request, self.options.max_json_bytes)
        client = self.options.client_authors
        if client and isinstance(posted, dict):
            posted = {k: v for k, v in posted.items() if k not in ("role", "question")}
        event = ThreadEvent.from_json(posted, role=Role.REVIEWER if client else None)
        reviewer = self.reviewer(request)
        author = author_of_post(posted, reviewer, client_authors=client)
        trust = trust_of(reviewer, paired=self.options.paired)
        event = marked(dataclasses.replace(event, author=author), trust)
        store = self.store_for(request)
        if Capability.CONVERSE not in store.capabilities or not isinstance(
            store, CommentConversation
        ):
            raise RouteRefusalError(501, "This store keeps no replies")
        comment_id = request.path_params["id"]
        with known_comment(comment_id):
            changed = await off_loop(store.converse, comment_id, event)
        # A reopening blocks the gate again, a confirmation may clear it, a question is listed;
        # a trusted reviewer's reply on a resolved comment is read first, when a classifier is.
        return json_answer(
            changed.to_json(), background=self.after_reply(store, request, changed, event)
        )
