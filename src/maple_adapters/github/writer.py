"""Writing a pull request's ledger: one change at a time, read back until it landed.

GitHub cannot make an edit conditional on the version read, so another writer may overwrite
ours; reading back catches that (an edit in place is read back a moment later), and the change
(:mod:`~maple_adapters.github.edits`) is made again on what is there. The ledgers a write
replaces are deleted only once it landed, and only if nobody changed them since.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from maple_adapters.github.edits import LedgerEdit
from maple_adapters.github.ledger import BODY_LIMIT, GitHubLedger
from maple_adapters.github.pulls import PullRequests
from maple_adapters.github.rendering import LedgerTooLargeError, render_ledger_body
from maple_adapters.github.repository import Repository
from maple_adapters.github.transport import GitHubError
from maple_adapters.github.trust import Ledgers, WriterTrust
from maple_core.authors import guest_author
from maple_core.errors import LedgerFullError, MapleError, StoreUnavailableError
from maple_core.json_types import JsonObject
from maple_core.ports import Clock

__all__ = ["LedgerWriter"]

T = TypeVar("T")

_GUEST = guest_author()
_WRITE_ATTEMPTS = 5
_RETRY_PAUSE_S = 0.2  # scaled by the attempt and jittered, so racing writers fall out of step
_SETTLE_S = 0.25
_MAX_SETTLE_S = 3.0
_REUSE_S = 2.0  # how long a write's read-back stands in for a fresh read (see ``read_back``)
_STATUS_ROOM = 4_096  # of GitHub's body limit, kept for status changes by writes that add words


@dataclass(frozen=True, slots=True)
class _ReadBack:
    """The issue comments a write was read back from, and when (on the store's clock)."""

    pull: int
    at: float
    comments: tuple[JsonObject, ...]


@dataclass(eq=False)
class LedgerWriter:
    """Writes ``owner/repo``'s ledgers for one store; its writes take turns.

    Args:
        pulls: reads the pull requests' comments.
        trust: says which ledgers count, and learns the identity the store posts as.
    """

    repo: Repository
    clock: Clock
    pulls: PullRequests
    trust: WriterTrust
    # Told before each write: the claims' read goes stale.
    before_write: Callable[[], None] | None = field(init=False, default=None)
    # One write at a time from this store.
    _writing: threading.Lock = field(init=False, default_factory=threading.Lock)
    _read_back: _ReadBack | None = field(init=False, default=None)

    def forget_read_back(self) -> None:
        """Drop the remembered read-back: a newer read of the ledger was made elsewhere."""
        self._read_back = None

    def read_back(self, pull: int) -> tuple[JsonObject, ...] | None:
        """The comments the last write to ``pull`` was read back from, within 2 s, once.

        A read for the gate just after this store's own write needs no fresh listing.
        """
        kept, self._read_back = self._read_back, None
        if kept is None or kept.pull != pull or self.clock.monotonic() - kept.at > _REUSE_S:
            return None
        return kept.comments

    def write(self, pull: int, edit: LedgerEdit[T]) -> T:
        """Read, change, write, then read again to check the change landed; retry if it did not.

        Raises:
            NotFoundError: what ``edit`` changes is not there.
            LedgerFullError: the ledger would pass GitHub's limit.
            StoreUnavailableError: other writers kept changing the ledger.
        """
        with self._writing:
            if self.before_write is not None:
                self.before_write()
            return self._until_landed(pull, edit)

    def _ledgers(self, pull: int, edit: LedgerEdit[T]) -> Ledgers | None:
        comments = self.pulls.issue_comments(pull)
        return self.trust.ledgers_in(pull, comments, edit.branch, edit.operation)

    def _until_landed(self, pull: int, edit: LedgerEdit[T]) -> T:
        for attempt in range(_WRITE_ATTEMPTS):
            if attempt:
                self.clock.sleep(_RETRY_PAUSE_S * attempt * random.uniform(0.5, 1.5))
            began = self.clock.monotonic()
            found = self._ledgers(pull, edit)
            current = found.merged if found else GitHubLedger(edit.branch or "")
            changed = edit.change(current)
            # Every write leaves each record readable by Maple's writers (an author, a context).
            updated = replace(
                changed, comments=tuple(c.for_maple(_GUEST) for c in changed.comments)
            )
            body = self._body(updated, edit)
            if found is None or edit.repost:
                self._post(pull, body)
                stale = range(len(found.ids)) if found is not None else range(0)
            else:
                try:
                    self._edit(found, body)
                except GitHubError as exc:
                    if exc.status != 404:
                        raise
                    # A racing writer's repost replaced the ledger we read and deleted it once
                    # its own landed: read again and make the change on what is there now.
                    continue
                stale = range(len(found.ids) - 1)
                # An edit in place can be overwritten by a writer whose read came before it and
                # whose edit lands just after ours: read back a moment later, not at once. That
                # writer's read-and-edit takes about as long as ours did (gh on a busy machine:
                # seconds), so wait at least that long.
                cycle = self.clock.monotonic() - began
                self.clock.sleep(min(max(_SETTLE_S, cycle), _MAX_SETTLE_S))
            comments = tuple(self.pulls.issue_comments(pull))
            after = self.trust.ledgers_in(pull, comments, edit.branch, edit.operation)
            result = edit.landed(after.merged) if after else None
            if result is not None:
                # Only now that the new ledger is read back are the old ones it replaces deleted.
                if found is not None:
                    self._delete_unchanged(found, stale)
                self._read_back = _ReadBack(pull, self.clock.monotonic(), comments)
                return result
        raise StoreUnavailableError(
            f"Other writers kept changing pull request #{pull}'s ledger, so {edit.operation} did "
            "not land. Try again.",
            store=self.repo.store,
            operation=edit.operation,
        )

    def _body(self, ledger: GitHubLedger, edit: LedgerEdit[T]) -> str:
        return self.body(ledger, edit.operation, adds_words=edit.adds_words)

    def body(self, ledger: GitHubLedger, operation: str, *, adds_words: bool) -> str:
        """The ledger's body, within GitHub's limit; ``LedgerFullError`` when it cannot be.

        A write that adds words (a comment, a reply, an approval) leaves room under the limit
        for status changes, so every comment already in the ledger can still be resolved. The
        table says who is on each comment now.
        """
        limit = BODY_LIMIT - _STATUS_ROOM if adds_words else BODY_LIMIT
        try:
            return render_ledger_body(ledger, limit=limit, now=self.clock.now())
        except LedgerTooLargeError as exc:
            raise LedgerFullError(str(exc), store=self.repo.store, operation=operation) from None

    def _post(self, pull: int, body: str) -> None:
        """Create a new ledger (the old ones go once it is read back)."""
        created = self.repo.transport.request(
            "POST", f"{self.repo.base}/issues/{pull}/comments", body={"body": body}
        )
        self.trust.learn(created.data)

    def _edit(self, found: Ledgers, body: str) -> None:
        """Write the merged ledger over the newest one (the others go once it is read back)."""
        self.repo.transport.request(
            "PATCH", f"{self.repo.base}/issues/comments/{found.ids[-1]}", body={"body": body}
        )

    def _delete_unchanged(self, found: Ledgers, indexes: Sequence[int] | range) -> None:
        """Delete stale ledgers, but only those nobody changed since we read them."""
        for index in indexes:
            comment_id = found.ids[index]
            path = f"{self.repo.base}/issues/comments/{comment_id}"
            with contextlib.suppress(MapleError):
                now = self.repo.transport.request("GET", path).data
                if isinstance(now, dict) and now.get("updated_at") == found.updated[index]:
                    self.repo.transport.request("DELETE", path)
