"""The ``file`` store: comments in ``.maple/<slug>/comments.json`` at the main checkout."""

from __future__ import annotations

import builtins
import dataclasses
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from maple_adapters.files.claims import (
    CLAIMS,
    CLAIMS_LOCK,
    claimed_view,
    read_claims,
    read_current_claims,
    write_claims,
)
from maple_adapters.files.folders import MAPLE, Folder, make_folder, open_folder
from maple_adapters.files.ledger import (
    LEDGER,
    LOCK,
    SEAL,
    SEAL_RECORDS,
    Ledger,
    Seal,
    forget_seal,
    read_ledger,
    render_comments,
    render_ledger,
)
from maple_adapters.files.lock import LockTimeoutError, exclusive
from maple_adapters.files.place import LocalPlace, resolve_place
from maple_adapters.files.signal import FileChangeSignal
from maple_core.approvals import Approval, NewApproval
from maple_core.authors import guest_author
from maple_core.claims import (
    Claim,
    ClaimRequest,
    ClaimResult,
    apply_claim,
    apply_sweep,
    claim_of,
    with_claim,
)
from maple_core.comments import Comment, NewComment, Resolution
from maple_core.cursor import format_js_timestamp, format_stamp, latest_stamp, next_arrival_stamp
from maple_core.errors import NotFoundError, StoreUnavailableError
from maple_core.paging import CommentPage, ListQuery, page_of
from maple_core.ports import BranchState, Capability, Clock
from maple_core.statuses import CommentStatus
from maple_core.thread_events import EntryNote, ThreadEvent, apply_event
from maple_core.threads import activity_stamps

__all__ = ["FileCommentStore"]

_CAPABILITIES = frozenset(Capability) - {Capability.HEAD}
_GUEST = guest_author()
_LOCK_TIMEOUT_S = 30.0


def _random_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:12]


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

    def __init__(
        self,
        clock: Clock,
        cwd: Path | None = None,
        *,
        root: Path | None = None,
        url: str | None = None,
        name: str = "file",
    ) -> None:
        self._clock = clock
        self._cwd = cwd
        self._root = root
        self._url = url
        self._name = name
        # The ledger a claim last checked its comment in: (folder, file identity, comments).
        self._parsed: tuple[str, tuple[int, int, int], tuple[Comment, ...]] | None = None
        self._parsing = threading.Lock()

    @property
    def name(self) -> str:
        """``file`` unless named otherwise."""
        return self._name

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Everything but ``head``: a laptop cannot name the commit a preview serves."""
        return _CAPABILITIES

    def place(self) -> LocalPlace:
        """The folder this store reads and writes now."""
        return resolve_place(self._cwd or Path.cwd(), root=self._root, url=self._url)

    def _ledger_path(self) -> Path:
        return Path(self.place().ledger)

    # -- reads ---------------------------------------------------------------------------------

    @contextmanager
    def _translated(self, operation: str) -> Iterator[None]:
        """The store's one boundary for the system's errors: each becomes maple's, named.

        A lock held too long, or a folder or file the system will not read or write
        (permissions, a full disk), is :class:`StoreUnavailableError` naming the ledger.
        """
        try:
            yield
        except LockTimeoutError:
            raise StoreUnavailableError(
                f"{self._ledger_path()} stayed locked by another maple process for "
                f"{_LOCK_TIMEOUT_S:.0f} s. Try again; if it persists, find the process "
                "holding the lock.",
                store=self._name,
                operation=operation,
            ) from None
        except OSError as exc:
            raise StoreUnavailableError(
                f"{self._ledger_path()} could not be used ({exc.strerror or exc}); check the "
                "folder's permissions and free space.",
                store=self._name,
                operation=operation,
            ) from None

    def _read(self, operation: str = "list") -> Ledger:
        """The ledger as listed: each comment with its claim from the claims file."""
        with self._translated(operation):
            place = self.place()
            parts = (MAPLE, place.key)
            folder = open_folder(place.root, parts, store=self._name, operation=operation)
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
                make_folder(place.root, parts, store=self._name, operation=operation) as folder,
                exclusive(folder, LOCK, _LOCK_TIMEOUT_S),
            ):
                # Every write path reads the ledger first, refusing a link there; the seal may
                # be written without being read.
                folder.refuse_link(SEAL)
                yield folder

    def _commit(self, folder: Folder, ledger: Ledger) -> None:
        # Every write leaves each record readable by Maple's writers (an author and a context).
        repaired = tuple(c.for_maple(_GUEST) for c in ledger.comments)
        ledger = Ledger(repaired, ledger.approvals, ledger.top)
        data, close = render_ledger(ledger)
        written = folder.replace(LEDGER, data)
        if close < 0:
            forget_seal(folder)
            return
        last = latest_stamp(activity_stamps(ledger.comments))
        self._seal(folder, written, close, Seal.tail_hash(data, close), last)

    @staticmethod
    def _seal(
        folder: Folder, written: os.stat_result, close: int, tail: str, last_stamp: str | None
    ) -> None:
        seal = Seal(
            written.st_ino,
            written.st_size,
            written.st_mtime_ns,
            close,
            tail,
            last_stamp,
            SEAL_RECORDS,
        )
        seal.write(folder)

    def append(self, comment: NewComment) -> Comment:
        """Store one comment with a ``loc_`` id."""
        return self.append_many([comment])[0]

    def append_many(self, comments: Sequence[NewComment]) -> builtins.list[Comment]:
        """Store comments in one write, in order, each with a strictly later arrival stamp."""
        if not comments:
            return []
        with self._locked("append") as folder:
            seal = self._admitted_seal(folder)
            if seal is not None:
                sealed, old = seal
                stored = self._stamp(comments, [sealed.last_stamp])
                self._splice(folder, sealed, old, stored)
            else:
                ledger = read_ledger(folder, "append")
                stored = self._stamp(comments, list(activity_stamps(ledger.comments)))
                self._commit(
                    folder, Ledger(ledger.comments + tuple(stored), ledger.approvals, ledger.top)
                )
            return stored

    def _stamp(
        self, comments: Sequence[NewComment], stamps: builtins.list[str | None]
    ) -> builtins.list[Comment]:
        stored: builtins.list[Comment] = []
        for new in comments:
            instant = next_arrival_stamp(self._clock.now(), stamps)
            stamp = format_stamp(instant)
            stamps = [stamp]
            stored.append(new.stored(_random_id("loc_"), stamp, format_js_timestamp(instant)))
        return stored

    @staticmethod
    def _admitted_seal(folder: Folder) -> tuple[Seal, memoryview] | None:
        """The seal and the file's bytes, when the file is exactly what the seal describes."""
        seal = Seal.read(folder)
        if seal is None:
            return None
        try:
            with open(folder.open(LEDGER, os.O_RDONLY), "rb") as handle:
                if not seal.matches(os.fstat(handle.fileno())):
                    return None
                data = memoryview(handle.read())
        except OSError:
            return None
        return (seal, data) if seal.admits(data) else None

    def _splice(
        self, folder: Folder, seal: Seal, old: memoryview, stored: Sequence[Comment]
    ) -> None:
        insert = b",\n    " + render_comments([c.to_json() for c in stored])
        written = folder.replace(LEDGER, old[: seal.close], insert, old[seal.close :])
        # The bytes after the splice point are unchanged, so the tail's hash still holds.
        self._seal(
            folder, written, seal.close + len(insert), seal.tail_sha256, stored[-1].received_at
        )

    def _rewrite(self, operation: str, change: Callable[[Ledger], Ledger]) -> None:
        with self._locked(operation) as folder:
            self._commit(folder, change(read_ledger(folder, operation)))

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
            instant = next_arrival_stamp(self._clock.now(), activity_stamps(comments))
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
        raise NotFoundError(
            f"No comment with id {comment_id} in {self._ledger_path()}. "
            "List the branch's comments for the ids there are.",
            store=self._name,
            operation=operation,
        )

    # -- claims ------------------------------------------------------------------------------

    @contextmanager
    def _claims_locked(self, operation: str) -> Iterator[Folder | None]:
        """The folder, holding the claims file's own lock (never the ledger's).

        ``None`` when there is no folder, and so no comment.
        """
        with self._translated(operation):
            place = self.place()
            parts = (MAPLE, place.key)
            folder = open_folder(place.root, parts, store=self._name, operation=operation)
            if folder is None:
                yield None
                return
            with folder, exclusive(folder, CLAIMS_LOCK, _LOCK_TIMEOUT_S):
                yield folder

    def _comments_of(self, folder: Folder, operation: str) -> tuple[Comment, ...]:
        """The ledger's comments, parsed again only when the file changed since the last claim.

        The file is replaced atomically on every write, so its identity (inode, size, times)
        names its content; reading it once per change keeps a claim far cheaper than a write.
        """
        found = folder.stat(LEDGER)
        if found is None:
            return ()
        identity = (found.st_ino, found.st_size, found.st_mtime_ns)
        with self._parsing:
            parsed = self._parsed
        if parsed is not None and parsed[:2] == (folder.path, identity):
            return parsed[2]
        comments = read_ledger(folder, operation).comments
        with self._parsing:
            self._parsed = (folder.path, identity, comments)
        return comments

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request under the claims file's lock, at the clock's ``now``."""
        found = self.claim_many([comment_id], request)
        if not found:
            self._index_of((), comment_id, "claim")  # raises NotFoundError
        return found[0]

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment in one write of the claims file."""
        with self._claims_locked("claim") as folder:
            if folder is None:
                return []
            by_id = {c.id: c for c in self._comments_of(folder, "claim")}
            claims = read_claims(folder)
            now = self._clock.now()
            results: builtins.list[ClaimResult] = []
            for comment_id in comment_ids:
                comment = by_id.get(comment_id)
                if comment is None:
                    continue
                stored = claims.get(comment_id)
                current = with_claim(comment, Claim.read(stored) if stored is not None else None)
                updated, decision = apply_claim(current, request, now)
                if decision.write and decision.claim is not None:
                    claims[comment_id] = decision.claim.to_json()
                results.append(ClaimResult(updated, decision))
            if any(r.decision.write for r in results):
                write_claims(folder, claims, now)
            return results

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one write of the claims."""
        with self._claims_locked("claim") as folder:
            if folder is None:
                return []
            claims = read_claims(folder)
            mine = [
                c
                for c in claimed_view(self._comments_of(folder, "claim"), claims)
                if c.branch == branch and c.id in claims
            ]
            now = self._clock.now()
            changed = apply_sweep(mine, request, now)
            for comment in changed.values():
                claim = claim_of(comment)
                if claim is not None:
                    claims[comment.id] = claim.to_json()
            if changed:
                write_claims(folder, claims, now)
            return list(changed.values())

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
                    f"No approval with id {approval_id}.", store=self._name, operation="unapprove"
                )
            return Ledger(ledger.comments, kept, ledger.top)

        self._rewrite("unapprove", change)


def _newest_first(approvals: Sequence[Approval], branch: str) -> builtins.list[Approval]:
    return sorted((a for a in approvals if a.branch == branch), key=lambda a: a.at, reverse=True)
