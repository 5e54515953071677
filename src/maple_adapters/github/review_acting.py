"""Acting on a pull request's own review: replies, resolves, and the 👀 on a claimed thread.

A reply in a thread is ``POST …/pulls/{n}/comments/{id}/replies``; a resolve is GraphQL's
``resolveReviewThread`` then the reply naming the commit; an answer to a review or a
conversation comment is a conversation comment linking to it. A claimed thread gets the
token's 👀 on its first comment, taken off on release. Every path is maple's own, on the
configured repository; only GitHub's numbers from the item's id go into it.
"""

from __future__ import annotations

from collections.abc import Mapping

from maple_adapters.github.review_graphql import RESOLVE
from maple_adapters.github.review_json import ThreadState
from maple_adapters.github.transport import GitHubError, GitHubTransport
from maple_core.json_types import JsonObject
from maple_core.own_posts import OwnMark, marked, resolve_reply
from maple_core.pull_review import ReviewKind, ReviewRef

__all__ = ["EYES", "ReviewActing"]

EYES: JsonObject = {"content": "eyes"}
"""The reaction a claimed review thread gets (docs/claims.md)."""


class ReviewActing:
    """What :class:`~maple_adapters.github.review_source.ReviewSource` does on GitHub."""

    _transport: GitHubTransport
    _base: str
    _host: str
    _owner: str
    _repo: str

    def thread_states(self, pull: int) -> Mapping[int, ThreadState]:
        """Each thread's state by its first comment's id (the reading side answers it)."""
        raise NotImplementedError

    def forget(self, pull: int) -> None:
        """Drop what was read of ``pull`` (the reading side does)."""
        raise NotImplementedError

    def reply(self, ref: ReviewRef, body: str, *, question: bool = False) -> JsonObject:
        """Answer where the reviewer wrote: in the thread, or in the conversation."""
        mark = OwnMark("question" if question else "reply")
        if ref.kind is ReviewKind.THREAD:
            return self._thread_reply(ref, marked(body, mark))
        what = "review" if ref.kind is ReviewKind.REVIEW else "comment"
        said = f"[In reply to this {what}]({self._link_of(ref)})\n\n{body}"
        created = self._transport.request(
            "POST",
            f"{self._base}/issues/{ref.pull}/comments",
            body={"body": marked(said, OwnMark(mark.kind, target=ref.id))},
        ).data
        return created if isinstance(created, dict) else {}

    def _thread_reply(self, ref: ReviewRef, body: str) -> JsonObject:
        created = self._transport.request(
            "POST",
            f"{self._base}/pulls/{ref.pull}/comments/{ref.number}/replies",
            body={"body": body},
        ).data
        return created if isinstance(created, dict) else {}

    def resolve_thread(self, ref: ReviewRef, sha: str, note: str | None) -> JsonObject:
        """Resolve the thread on GitHub, then reply naming the commit (in that order).

        Resolving first means no read can ever see maple's resolution reply on a thread still
        open, which would read as a reviewer's unresolving it.
        """
        states = self.thread_states(ref.pull)
        state = states.get(ref.number)
        if state is None:
            raise GitHubError(404, f"thread {ref.id}", f"No review thread {ref.id} on GitHub.")
        if not state.resolved:
            self._transport.graphql(RESOLVE, {"id": state.node_id})
        reply = self._thread_reply(ref, resolve_reply(sha, note))
        self.forget(ref.pull)
        return reply

    def react(self, ref: ReviewRef) -> None:
        """Put the token's 👀 on the thread's first comment: someone is on it.

        The path and the reaction are maple's own; only the thread's number (a GitHub id
        read from the id) goes into it. A reaction already there is GitHub's ``200``.
        """
        self._transport.request(
            "POST", f"{self._base}/pulls/comments/{ref.number}/reactions", body=EYES
        )

    def unreact(self, ref: ReviewRef) -> None:
        """Take the token's 👀 off the thread's first comment (none there: nothing to take).

        GitHub answers a reaction the token already made with that reaction, so asking for it
        again names the one to delete.
        """
        path = f"{self._base}/pulls/comments/{ref.number}/reactions"
        mine = self._transport.request("POST", path, body=EYES).data
        reaction = mine.get("id") if isinstance(mine, dict) else None
        if isinstance(reaction, int) and not isinstance(reaction, bool):
            self._transport.request("DELETE", f"{path}/{reaction}")

    def _link_of(self, ref: ReviewRef) -> str:
        web = f"https://{self._host}/{self._owner}/{self._repo}/pull/{ref.pull}"
        anchor = "pullrequestreview-" if ref.kind is ReviewKind.REVIEW else "issuecomment-"
        return f"{web}#{anchor}{ref.number}"
