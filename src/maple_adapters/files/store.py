"""The ``file`` store: comments in ``.maple/<slug>/comments.json`` at the main checkout.

The store reads and rewrites the ledger under its lock; how the file is written (whole, or
spliced before its seal) is ``sealed_writes.py``, claims on its comments ``claim_store.py``,
and its errors ``boundary.py``.
"""

from __future__ import annotations

import builtins
import dataclasses
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from maple_adapters.files.boundary import LOCK_TIMEOUT_S, not_found, translated
from maple_adapters.files.claim_store import FileClaims
from maple_adapters.files.claims import (
    CLAIMS,
    claimed_view,
    read_current_claims,
)
from maple_adapters.files.folders import MAPLE, Folder, make_folder, open_folder
from maple_adapters.files.ledger import (
    LOCK,
    SEAL,
    Ledger,
    read_ledger,
)
from maple_adapters.files.lock import exclusive
from maple_adapters.files.place import LocalPlace, resolve_place
from maple_adapters.files.sealed_writes import admitted_seal, commit, splice
from maple_adapters.files.signal import FileChangeSignal
from maple_core.approvals import Approval, NewApproval
from maple_core.claims import (
    ClaimRequest,
    ClaimResult,
)
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.cursor import format_js_timestamp, format_stamp, next_arrival_stamp
from maple_core.errors import NotFoundError
from maple_core.paging import CommentPage, ListQuery, page_of
from maple_core.ports import BranchState, Capability, Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event
from maple_core.threads import activity_stamps

__all__ = ["FileCommentStore"]

_CAPABILITIES = frozenset(Capability) - {Capability.HEAD}


def _random_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:12]


@dataclasses.dataclass(eq=False)
class FileCommentStore:
    """Comments on this machine, in the main checkout's ``.maple/`` folder (Maple's ``fileStore``).

    The folder is resolved on every call from the branch checked out in ``cwd``, so switching
    branches switches folders without a restart and every worktree shares the main checkout's
    folder. Writers in any number of processes take a lock on the ledger, so they all land.
    Nothing under ``.maple/`` is opened through a symbolic link: a link there raises
    :class:`~maple_core.errors.UnsafePathError` and is left untouched.

    Args:
        clock: stamps arrivals.
        cwd: the working directory whose checkout names the folder.
        root: put ``.maple/`` here instead of at the main checkout.
        url: names the folder when no branch is checked out (``localhost-3000`` for
            ``http://localhost:3000``).
        name: the store's name.
    """

    clock: Clock
    cwd: Path | None = None
    _: dataclasses.KW_ONLY
    root: Path | None = None
    url: str | None = None
    name: str = "file"
    _claims: FileClaims = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._claims = FileClaims(self.place, self.clock, self.name)

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Everything but ``head``: a laptop cannot name the commit a preview serves."""
        return _CAPABILITIES

    def place(self) -> LocalPlace:
        """The folder this store reads and writes now."""
        return resolve_place(self.cwd or Path.cwd(), root=self.root, url=self.url)

    def _ledger_path(self) -> Path:
        return Path(self.place().ledger)

    # -- reads ---------------------------------------------------------------------------------

    def _translated(self, operation: str) -> AbstractContextManager[None]:
        return translated(self._ledger_path, self.name, operation)

    def _read(self, operation: str = "list") -> Ledger:
        """The ledger as listed: each comment with its claim from the claims file."""
        with self._translated(operation):
            place = self.place()
            parts = (MAPLE, place.key)
            folder = open_folder(place.root, parts, store=self.name, operation=operation)
            if folder is None:
                return Ledger()
            with folder:
                ledger = read_ledger(folder, operation)
                if not ledger.comments:
                    return ledger
                shown = claimed_view(ledger.comments, read_current_claims(folder))
                return Ledger(shown, ledger.approvals, ledger.top)

    def list(self, query: ListQuery) -> CommentPage:
        """One page of the branch's comments in append order; the file is re-read every call."""
        return page_of(self._read().comments, query)

    def head(self, branch: str) -> str | None:
        """Always ``None``: the file store has no ``head``."""
        return None

    def approvals(self, branch: str) -> builtins.list[Approval] | None:
        """The branch's approvals, newest first."""
        return _newest_first(self._read("approvals").approvals, branch)

    def state(self, branch: str) -> BranchState:
        """The branch as one read of the ledger file finds it (the token is taken first)."""
        token = self.changes(branch).token()
        ledger = self._read("state")
        comments = page_of(ledger.comments, ListQuery(branch=branch)).comments
        approvals = tuple(_newest_first(ledger.approvals, branch))
        return BranchState(branch, comments, approvals, None, token)

    def changes(self, branch: str) -> FileChangeSignal:
        """A signal that wakes when this folder's ledger file (or its claims) is replaced."""
        ledger = self._ledger_path()
        return FileChangeSignal(ledger, ledger.with_name(CLAIMS))

    # -- writes --------------------------------------------------------------------------------

    @contextmanager
    def _locked(self, operation: str) -> Iterator[Folder]:
        with self._translated(operation):
            place = self.place()
            parts = (MAPLE, place.key)
            with (
                make_folder(place.root, parts, store=self.name, operation=operation) as folder,
                exclusive(folder, LOCK, LOCK_TIMEOUT_S),
            ):
                # Every write path reads the ledger first, refusing a link there; the seal may
                # be written without being read.
                folder.refuse_link(SEAL)
                yield folder

    def append(self, comment: NewComment) -> Comment:
        """Store one comment with a ``loc_`` id."""
        return self.append_many([comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in one write, in order, each with a strictly later arrival stamp."""
        if not comments:
            return []
        with self._locked("append") as folder:
            seal = admitted_seal(folder)
            if seal is not None:
                sealed, old = seal
                stored = self._stamp(comments, [sealed.last_stamp])
                splice(folder, sealed, old, stored)
            else:
                ledger = read_ledger(folder, "append")
                stored = self._stamp(comments, list(activity_stamps(ledger.comments)))
                commit(
                    folder, Ledger(ledger.comments + tuple(stored), ledger.approvals, ledger.top)
                )
            return stored

    def _stamp(
        self, comments: Sequence[NewComment], stamps: builtins.list[str | None]
    ) -> builtins.list[Comment]:
        stored: builtins.list[Comment] = []
        for new in comments:
            instant = next_arrival_stamp(self.clock.now(), stamps)
            stamp = format_stamp(instant)
            stamps = [stamp]
            stored.append(new.stored(_random_id("loc_"), stamp, format_js_timestamp(instant)))
        return stored

    def _rewrite(self, operation: str, change: Callable[[Ledger], Ledger]) -> None:
        with self._locked(operation) as folder:
            commit(folder, change(read_ledger(folder, operation)))

    def set_status(
        self, comment_id: str, status: CommentStatus, resolution: Resolution | None = None
    ) -> Comment:
        """Change a comment's status; an unknown id raises ``NotFoundError`` at once."""
        updated: builtins.list[Comment] = []

        def change(ledger: Ledger) -> Ledger:
            comments = list(ledger.comments)
            index = self._index_of(comments, comment_id, "set_status")
            comments[index] = comments[index].with_status(status, resolution)
            updated.append(comments[index])
            return Ledger(tuple(comments), ledger.approvals, ledger.top)

        self._rewrite("set_status", change)
        return updated[0]

    def converse(self, comment_id: str, event: ThreadEvent | EntryNote) -> Comment:
        """Apply a thread event under the ledger's lock; the entry gets a ``rep_`` id."""
        updated: builtins.list[Comment] = []

        def change(ledger: Ledger) -> Ledger:
            comments = list(ledger.comments)
            index = self._index_of(comments, comment_id, "converse")
            instant = next_arrival_stamp(self.clock.now(), activity_stamps(comments))
            comments[index] = apply_event(
                comments[index],
                event,
                _random_id("rep_"),
                format_stamp(instant),
                format_js_timestamp(instant),
            )
            updated.append(comments[index])
            return Ledger(tuple(comments), ledger.approvals, ledger.top)

        self._rewrite("converse", change)
        return updated[0]

    def edit(self, comment_id: str, body: str, check: Callable[[Comment], None]) -> Comment:
        """Replace a comment's body once ``check`` accepts it (unknown id: ``NotFoundError``)."""
        updated: builtins.list[Comment] = []

        def change(ledger: Ledger) -> Ledger:
            comments = list(ledger.comments)
            index = self._index_of(comments, comment_id, "edit")
            check(comments[index])
            comments[index] = dataclasses.replace(comments[index], body=body)
            updated.append(comments[index])
            return Ledger(tuple(comments), ledger.approvals, ledger.top)

        self._rewrite("edit", change)
        return updated[0]

    def delete(self, comment_id: str, check: Callable[[Comment], None]) -> None:
        """Remove a comment once ``check`` accepts it; an unknown id is ``NotFoundError``."""

        def change(ledger: Ledger) -> Ledger:
            comments = list(ledger.comments)
            index = self._index_of(comments, comment_id, "delete")
            check(comments.pop(index))
            return Ledger(tuple(comments), ledger.approvals, ledger.top)

        self._rewrite("delete", change)

    def _index_of(self, comments: Sequence[Comment], comment_id: str, operation: str) -> int:
        for index, comment in enumerate(comments):
            if comment.id == comment_id:
                return index
        raise not_found(comment_id, self._ledger_path(), self.name, operation)

    # -- claims ------------------------------------------------------------------------------

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request under the claims file's lock, at the clock's ``now``."""
        return self._claims.claim(comment_id, request)

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment in one write of the claims file."""
        return self._claims.claim_many(comment_ids, request)

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one write of the claims."""
        return self._claims.sweep_claims(branch, request)

    # -- approvals ---------------------------------------------------------------------------

    def approve(self, approval: NewApproval) -> Approval:
        """Store an approval with an ``app_`` id."""
        stored = approval.stored(_random_id("app_"))
        self._rewrite(
            "approve",
            lambda ledger: Ledger(ledger.comments, (*ledger.approvals, stored), ledger.top),
        )
        return stored

    def unapprove(self, approval_id: str) -> None:
        """Withdraw an approval; an unknown id raises ``NotFoundError``."""

        def change(ledger: Ledger) -> Ledger:
            kept = tuple(a for a in ledger.approvals if a.id != approval_id)
            if len(kept) == len(ledger.approvals):
                raise NotFoundError(
                    f"No approval with id {approval_id}.", store=self.name, operation="unapprove"
                )
            return Ledger(ledger.comments, kept, ledger.top)

        self._rewrite("unapprove", change)


def _newest_first(approvals: Sequence[Approval], branch: str) -> builtins.list[Approval]:
    return sorted((a for a in approvals if a.branch == branch), key=lambda a: a.at, reverse=True)
