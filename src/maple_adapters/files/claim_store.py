"""Claims on the file store's comments, kept in the folder's claims file under its own lock.

A claim never takes the ledger's lock: it reads the ledger (parsed again only when the file
changed) and writes the claims file beside it, so a claim costs far less than a write and never
waits behind one.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from maple_adapters.files.boundary import LOCK_TIMEOUT_S, not_found, translated
from maple_adapters.files.claims import CLAIMS_LOCK, claimed_view, read_claims, write_claims
from maple_adapters.files.folders import MAPLE, Folder, open_folder
from maple_adapters.files.ledger import LEDGER, read_ledger
from maple_adapters.files.lock import exclusive
from maple_adapters.files.place import LocalPlace
from maple_core.claims import (
    Claim,
    ClaimRequest,
    ClaimResult,
    apply_claims,
    apply_sweep,
    claim_of,
    with_claim,
)
from maple_core.comments import Comment
from maple_core.ports import Clock

__all__ = ["FileClaims"]


class FileClaims:
    """The claims of the folder ``place`` names now (the file store's ``CommentClaims``).

    Args:
        place: the folder the store reads and writes now.
        clock: the claims' ``now``.
        store: the store's name, for errors.
    """

    def __init__(self, place: Callable[[], LocalPlace], clock: Clock, store: str) -> None:
        self._place = place
        self._clock = clock
        self._store = store
        # The ledger a claim last checked its comment in: (folder, file identity, comments).
        self._parsed: tuple[str, tuple[int, int, int], tuple[Comment, ...]] | None = None
        self._parsing = threading.Lock()

    def claim(self, comment_id: str, request: ClaimRequest) -> ClaimResult:
        """Apply a claim request under the claims file's lock, at the clock's ``now``."""
        found = self.claim_many([comment_id], request)
        if not found:
            raise not_found(comment_id, Path(self._place().ledger), self._store, "claim")
        return found[0]

    def claim_many(
        self, comment_ids: Sequence[str], request: ClaimRequest
    ) -> builtins.list[ClaimResult]:
        """Apply a claim request to each comment in one write of the claims file."""
        with self._locked("claim") as folder:
            if folder is None:
                return []
            claims = read_claims(folder)
            by_id = {c.id: c for c in self._comments_of(folder, "claim")}
            current = {
                i: with_claim(by_id[i], Claim.read(claims[i]) if i in claims else None)
                for i in comment_ids
                if i in by_id
            }
            now = self._clock.now()
            results = apply_claims(current, comment_ids, request, now)
            for result in results:
                if result.decision.write and result.decision.claim is not None:
                    claims[result.comment.id] = result.decision.claim.to_json()
            if any(r.decision.write for r in results):
                write_claims(folder, claims, now)
            return results

    def sweep_claims(self, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch`` in one write of the claims."""
        with self._locked("claim") as folder:
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

    @contextmanager
    def _locked(self, operation: str) -> Iterator[Folder | None]:
        """The folder, holding the claims file's own lock (never the ledger's).

        ``None`` when there is no folder, and so no comment.
        """
        with translated(lambda: Path(self._place().ledger), self._store, operation):
            place = self._place()
            parts = (MAPLE, place.key)
            folder = open_folder(place.root, parts, store=self._store, operation=operation)
            if folder is None:
                yield None
                return
            with folder, exclusive(folder, CLAIMS_LOCK, LOCK_TIMEOUT_S):
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
