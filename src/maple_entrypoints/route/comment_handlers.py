"""The route's comments: listed (with an ``ETag``), posted, edited and deleted."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.requests import Request
from starlette.responses import Response

from maple_core.comments import Comment
from maple_core.errors import NotFoundError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.ports import Capability, CommentAmending, CommentStore
from maple_core.submissions import MAX_BODY_CHARS, read_drafts
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    json_answer,
    read_json,
)
from maple_entrypoints.route.authorship import (
    AUTHOR_HEADER,
    author_of_post,
    caller_id,
    own_open_comment,
)
from maple_entrypoints.route.handling import off_loop
from maple_entrypoints.route.params import read_list_query
from maple_entrypoints.route.republish import Republishing

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

__all__ = [
    "CommentHandlers",
    "known_comment",
]


class CommentHandlers(Republishing):
    """``/comments`` and ``/comments/{id}`` (an edit or a delete)."""

    async def comments(self, request: Request) -> Response:
        """``GET /comments`` lists a branch's comments; ``POST`` appends one or many."""
        if request.method == "GET":
            return await self.list_comments(request)
        if request.method == "POST":
            return await self.append_comments(request)
        raise RouteRefusalError(405, "Method not allowed")

    async def list_comments(self, request: Request) -> Response:
        """One page of a branch's comments, with an ``ETag`` (304 when it did not change)."""
        query = read_list_query({k: request.query_params.getlist(k) for k in request.query_params})
        store = self.store_for(request)
        page = await off_loop(store.list, query)
        body: JsonObject = {"comments": [c.to_json() for c in page.comments]}
        if page.cursor is not None:
            body["cursor"] = page.cursor
        answer = json_answer(body)
        etag = '"' + hashlib.sha256(answer.body).hexdigest()[:32] + '"'
        if etag in _etags(request.headers.get("if-none-match")):
            return Response(status_code=304, headers={"etag": etag, "cache-control": "no-store"})
        answer.headers["etag"] = etag
        return answer

    async def append_comments(self, request: Request) -> Response:
        """One comment (201 with it), or ``{comments: [...]}`` (201 with all of them)."""
        posted = await read_json(request, self.options.max_json_bytes)
        store = self.store_for(request)
        author = author_of_post(
            posted, self.reviewer(request), client_authors=self.options.client_authors
        )
        drafts, many = read_drafts(posted, author)
        if not many:
            stored = [await off_loop(store.append, drafts[0])]
        elif not drafts:
            stored = []
        elif Capability.APPEND_MANY in store.capabilities:
            stored = await off_loop(store.append_many, drafts)
        else:  # as Maple's store wrapper: one append per comment, in order
            stored = [await off_loop(store.append, draft) for draft in drafts]
        # A new open comment can turn a clear gate blocked, so it is published as a resolve is.
        published = self.after_write(store, request, *(c.branch for c in stored))
        if many:
            body: JsonObject = {"comments": [c.to_json() for c in stored]}
            return json_answer(body, 201, background=published)
        return json_answer(stored[0].to_json(), 201, background=published)

    def amending_store(self, request: Request) -> tuple[CommentStore, CommentAmending, str]:
        """The store, its edits and deletes, and the caller's author id."""
        caller = caller_id(
            request.headers.get(AUTHOR_HEADER),
            self.reviewer(request),
            client_authors=self.options.client_authors,
        )
        store = self.store_for(request)
        if Capability.AMEND not in store.capabilities or not isinstance(store, CommentAmending):
            raise RouteRefusalError(501, "This store cannot edit or delete a comment")
        return store, store, caller

    async def edit_comment(self, request: Request, body: JsonValue) -> Response:
        """A comment's new body, by its own author while it is open."""
        if not isinstance(body, str) or not body.strip() or len(body) > MAX_BODY_CHARS:
            raise RouteRefusalError(
                400, f"'body' must be a string of 1 to {MAX_BODY_CHARS:,} characters"
            )
        store, amending, caller = self.amending_store(request)
        comment_id = request.path_params["id"]
        with known_comment(comment_id):
            edited = await off_loop(amending.edit, comment_id, body, own_open_comment(caller))
        return json_answer(  # the check run's summary quotes the body: it follows the edit
            edited.to_json(), background=self.after_write(store, request, edited.branch)
        )

    async def delete_comment(self, request: Request) -> Response:
        """``DELETE /comments/{id}``, by the comment's own author while it is open."""
        store, amending, caller = self.amending_store(request)
        comment_id = request.path_params["id"]
        deleted: list[str] = []  # the branch, learnt from the comment the check is shown

        def check(comment: Comment) -> None:
            own_open_comment(caller)(comment)
            deleted.append(comment.branch)

        with known_comment(comment_id):
            await off_loop(amending.delete, comment_id, check)
        return json_answer(
            {"id": comment_id}, background=self.after_write(store, request, *deleted)
        )


@contextmanager
def known_comment(comment_id: str) -> Iterator[None]:
    """A store's ``NotFoundError`` as a 404 in the route's own words (the store's names a path)."""
    try:
        yield
    except NotFoundError:
        raise RouteRefusalError(
            404,
            f"No comment with id {comment_id}; list the branch's comments for the ids there are.",
        ) from None


def _etags(header: str | None) -> set[str]:
    if not header:
        return set()
    return {tag.strip().removeprefix("W/") for tag in header.split(",")}
