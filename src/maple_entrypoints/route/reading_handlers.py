"""What the route does with a trusted reviewer's reply: read it (``MAPLE_CLASSIFIER``), or undo.

A reply on a resolved comment is read into an outcome that confirms, reopens or leaves it,
after the answer is sent, and the gate is republished; ``POST
/comments/{id}/classification/undo`` undoes what maple understood (see ``route.feedback``).
"""

from __future__ import annotations

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response

from maple_core.classifier_ports import FeedbackClassifier
from maple_core.classifying import classify_reply, undo_reading
from maple_core.comments import Comment
from maple_core.feedback_policy import refusal
from maple_core.listing import list_all
from maple_core.ports import CommentStore
from maple_core.thread_events import ThreadEvent
from maple_entrypoints.route.answers import RouteRefusalError, json_answer, read_json
from maple_entrypoints.route.authorship import author_of_post
from maple_entrypoints.route.comment_handlers import known_comment
from maple_entrypoints.route.failures import described
from maple_entrypoints.route.feedback import new_entry, read_undo, undoer
from maple_entrypoints.route.handling import off_loop
from maple_entrypoints.route.params import read_branch
from maple_entrypoints.route.republish import Republishing

__all__ = ["ReadingHandlers"]


class ReadingHandlers(Republishing):
    """Reading a reviewer's reply after a thread event, and undoing a reading."""

    def after_reply(
        self, store: CommentStore, request: Request, changed: Comment, event: ThreadEvent
    ) -> BackgroundTask | None:
        """What runs once a thread event's answer is sent: reading a reply, then the gate."""
        entry = new_entry(changed, event)
        classifier = self.options.classifier
        if classifier is None or entry is None or refusal(changed, entry) is not None:
            return self.after_write(store, request, changed.branch)
        return BackgroundTask(self.read_and_report, store, request, changed, entry.id, classifier)

    async def read_and_report(
        self,
        store: CommentStore,
        request: Request,
        comment: Comment,
        entry_id: str,
        classifier: FeedbackClassifier,
    ) -> None:
        """Read a reviewer's reply into an outcome (bounded by the classifier), then the gate."""
        log = self.options.log
        try:
            await off_loop(
                lambda: classify_reply(
                    store, comment, entry_id, classifier, self.options.clock, report=log.warn
                )
            )
        except Exception as exc:
            log.error(
                "Maple could not read a reviewer's reply; it waits for Confirm or Reopen.",
                failure=described(exc, request),
            )
        await self.report_gates(store, request, [comment.branch])

    async def undo(self, request: Request) -> Response:
        """``POST /comments/{id}/classification/undo {entry, branch}``: undo maple's reading."""
        posted = await read_json(request, self.options.max_json_bytes)
        entry_id, branch = read_undo(posted), read_branch(posted)
        store = self.store_for(request)
        comment_id = request.path_params["id"]
        listed = await off_loop(list_all, store, branch)
        comment = next((c for c in listed if c.id == comment_id), None)
        if comment is None:
            raise RouteRefusalError(
                404,
                f"No comment with id {comment_id[:80]} on {branch[:200]}; list the branch's "
                "comments for the ids there are.",
            )
        reviewer = self.reviewer(request)
        undoer(comment, entry_id, reviewer, paired=self.options.paired)
        by = author_of_post(posted, reviewer, client_authors=self.options.client_authors)
        with known_comment(comment_id):
            changed = await off_loop(
                undo_reading, store, comment_id, entry_id, by, self.options.clock
            )
        return json_answer(
            changed.to_json(), background=self.after_write(store, request, changed.branch)
        )
