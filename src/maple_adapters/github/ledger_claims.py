"""The GitHub store's claims: a grant posted as a new ledger, its revisions edited in place.

A new claim (or a take-over) posts the ledger with the claim as a new issue comment, reads the
pull request's comments back, and has won when the chain (:mod:`.claim_chain`) names its
comment; the ledgers it consolidated are then deleted, each only if nobody changed it since it
was read. A claimant that lost deletes its own ledger (unless somebody changed it) and is
answered ``held``, naming the winner. The holder's renewal or release is a revision of its
grant, one edit of the newest ledger: cheap, and if a racing edit ever overwrote it the claim
would only keep its earlier expiry.

The comments a claim read (or read back), or a listing read, stand in for a fresh read for 2 s,
so a claim just after a listing, and a release, cost a post, a read, a delete and an edit.
"""

from __future__ import annotations

import builtins
import contextlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from maple_adapters.github.claim_chain import Link, chained, link_of
from maple_adapters.github.edits import comment_in
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.transport import GitHubError
from maple_adapters.github.trust import Ledgers as _Ledgers
from maple_core.authors import guest_author
from maple_core.claims import (
    Claim,
    Claimant,
    ClaimDecision,
    ClaimOutcome,
    ClaimRequest,
    ClaimResult,
    apply_claim,
    apply_sweep,
    claim_of,
    live_claim,
    with_claim,
)
from maple_core.comments import Comment
from maple_core.errors import MapleError, StoreUnavailableError
from maple_core.json_types import JsonObject
from maple_core.pull_review import review_ref

if TYPE_CHECKING:
    from maple_adapters.github.store import GitHubLedgerStore

__all__ = ["LedgerClaims"]

_ATTEMPTS = 5
_REUSE_S = 2.0
_GUEST = guest_author()


@dataclass(frozen=True, slots=True)
class _Read:
    """A pull request's issue comments as a claim last read them, and when."""

    pull: int
    at: float
    comments: tuple[JsonObject, ...]


def _branch_of(threads: Mapping[str, Comment] | None) -> str:
    """The branch the claimed review threads are on."""
    return next(iter((threads or {}).values())).branch


def _records(
    ledger: GitHubLedger, threads: Mapping[str, Comment] | None = None
) -> dict[str, Comment]:
    """The ledger's comments and its records of review items by id, ``threads`` for the rest."""
    found = {m.id: m for m in ledger.marks}
    found.update({c.id: c for c in ledger.comments})
    for thread_id, thread in (threads or {}).items():
        found.setdefault(thread_id, thread)
    return found


class LedgerClaims:
    """Claims on one GitHub store's ledgers (see the module docstring)."""

    def __init__(self, store: GitHubLedgerStore) -> None:
        self._store = store
        self._recent: _Read | None = None
        self._lock = threading.Lock()

    def forget(self) -> None:
        """Drop the remembered read: the store wrote the ledger some other way."""
        self._recent = None

    def _read(self, pull: int, fresh: bool) -> tuple[tuple[JsonObject, ...], bool]:
        """The pull request's comments: remembered (and ``True``) when young enough."""
        store = self._store
        recent = self._recent
        young = recent is not None and store._clock.monotonic() - recent.at <= _REUSE_S
        if not fresh and recent is not None and recent.pull == pull and young:
            return recent.comments, True
        comments = tuple(store.issue_comments(pull))
        self._remember(pull, comments)
        return comments, False

    def seen(self, pull: int, comments: Sequence[JsonObject]) -> None:
        """A listing's fresh read: a claim just after it decides on it, with no read of its own.

        Deciding on it is safe as on any remembered read: a grant's read-back decides the race,
        a refusal is read again fresh, and a stale ledger it replaces is deleted only unchanged.
        """
        self._recent = _Read(pull, self._store._clock.monotonic(), tuple(comments))

    def _remember(self, pull: int, comments: Sequence[JsonObject]) -> None:
        self._recent = _Read(pull, self._store._clock.monotonic(), tuple(comments))
        self._store._forget_read_back()  # the store's own remembered read predates this one

    def claim(
        self,
        pull: int,
        comment_ids: Sequence[str],
        request: ClaimRequest,
        threads: Mapping[str, Comment] | None = None,
    ) -> builtins.list[ClaimResult]:
        """Apply ``request`` to each of ``comment_ids`` on pull request ``pull``, in one write.

        ``threads`` are the pull request's own review threads among them, each as the ledger's
        record of it starts (its claim is kept in that record, ``reviewMarks``). An id the
        ledgers do not hold (nor ``threads``) has no result.
        """
        store = self._store
        with store._failing("claim"), self._lock:
            fresh = False
            for _ in range(_ATTEMPTS):
                comments, remembered = self._read(pull, fresh)
                found = store._ledgers_in(pull, comments, None, "claim")
                if found is None and not threads:
                    return []
                if found is None:  # a review thread's claim starts the pull request's ledger
                    found = _Ledgers(pull, (), GitHubLedger(_branch_of(threads)), ())
                by_id = _records(found.merged, threads)
                now = store._clock.now()
                asked = [
                    (by_id[i], *apply_claim(by_id[i], request, now))
                    for i in comment_ids
                    if i in by_id
                ]
                if not any(decision.write for _, _, decision in asked):
                    refused = any(d.outcome is not ClaimOutcome.RENEWED for _, _, d in asked)
                    if remembered and refused:
                        fresh = True  # a refusal is never made on a remembered read
                        continue
                    return [ClaimResult(updated, d) for _, updated, d in asked]
                results = self._write(pull, found, asked, request, threads)
                if results is not None:
                    return results
                fresh = False  # the ledger moved: decide again on what was read back
        raise StoreUnavailableError(
            f"Other writers kept changing pull request #{pull}'s ledger, so the claims on "
            f"{', '.join(comment_ids[:5])} did not land. Try again.",
            store=store.name,
            operation="claim",
        )

    def holder(self, pull: int, comment_id: str, claimant: Claimant) -> Claim | None:
        """The live claim another session holds on ``comment_id`` (``None``: nobody else).

        What a resolve asks instead of claiming first: the resolve's own write ends the claim
        (:func:`~maple_adapters.github.claim_chain.ended_by_resolve`), so a grant posted just
        to be ended would cost three requests and say nothing. A holder is never named on a
        remembered read alone.
        """
        store = self._store
        with store._failing("claim"), self._lock:
            for fresh in (False, True):
                comments, remembered = self._read(pull, fresh)
                found = store._ledgers_in(pull, comments, None, "claim")
                comment = _records(found.merged).get(comment_id) if found else None
                if comment is None and review_ref(comment_id) is None:
                    comment_in(GitHubLedger(""), comment_id, store.name, "claim")  # NotFoundError
                held = live_claim(comment, store._clock.now()) if comment is not None else None
                if held is None or held.session == claimant.session:
                    return None
                if not remembered:
                    return held
        return None  # pragma: no cover - the fresh read above always answers

    def _body(
        self,
        found: _Ledgers,
        claims: dict[str, Claim],
        threads: Mapping[str, Comment] | None = None,
    ) -> str:
        """The merged ledger with ``claims`` on their comments, as every write leaves it.

        A claimed review thread the ledger keeps no record of yet gets one (``threads``).
        """
        merged = found.merged
        comments = tuple(
            (with_claim(c, claims[c.id]) if c.id in claims else c).for_maple(_GUEST)
            for c in merged.comments
        )
        kept = {m.id for m in merged.marks}
        marks = (
            *(with_claim(m, claims[m.id]) if m.id in claims else m for m in merged.marks),
            *(
                with_claim(t, claims[i])
                for i, t in (threads or {}).items()
                if i in claims and i not in kept
            ),
        )
        return self._store._body(
            replace(merged, comments=comments, marks=marks), "claim", adds_words=False
        )

    def _write(
        self,
        pull: int,
        found: _Ledgers,
        asked: Sequence[tuple[Comment, Comment, ClaimDecision]],
        request: ClaimRequest,
        threads: Mapping[str, Comment] | None,
    ) -> builtins.list[ClaimResult] | None:
        """Write every change asked: a post when one is a new grant, else one edit."""
        written: dict[str, Claim] = {}
        grants: set[str] = set()
        for before, _, decision in asked:
            if not decision.write or decision.claim is None:
                continue
            held = claim_of(before)
            if decision.outcome in (ClaimOutcome.CLAIMED, ClaimOutcome.TAKEN_OVER):
                depth = link_of(held, 0).depth + 1 if held is not None else 1
                written[before.id] = chained(decision.claim, Link(0, depth, 1))
                grants.add(before.id)
            elif held is not None:
                link = link_of(held, found.ids[-1])
                written[before.id] = chained(
                    decision.claim, Link(link.grant, link.depth, link.rev + 1)
                )
        if grants:
            return self._grant(pull, found, asked, written, grants, request, threads)
        return self._revise(pull, found, asked, written)

    def _grant(
        self,
        pull: int,
        found: _Ledgers,
        asked: Sequence[tuple[Comment, Comment, ClaimDecision]],
        written: dict[str, Claim],
        grants: set[str],
        request: ClaimRequest,
        threads: Mapping[str, Comment] | None,
    ) -> builtins.list[ClaimResult]:
        """Post the changes as a new ledger, read back, and keep each grant the chain names.

        A grant another claimant's won is answered as :meth:`claim` answers a refusal.
        """
        store = self._store
        created = store._transport.request(
            "POST",
            f"{store._base}/issues/{pull}/comments",
            body={"body": self._body(found, written, threads)},
        ).data
        store._learn_writer(created)
        grant_id = created.get("id") if isinstance(created, dict) else None
        after = tuple(store.issue_comments(pull))
        merged = store._ledgers_in(pull, after, None, "claim")
        now_by_id = _records(merged.merged) if merged is not None else {}
        now = store._clock.now()
        results: builtins.list[ClaimResult] = []
        kept = False
        for before, updated, decision in asked:
            current = now_by_id.get(before.id, updated)
            held = claim_of(current)
            if before.id not in grants:
                kept = kept or before.id in written
                results.append(ClaimResult(current if before.id in written else updated, decision))
                continue
            won = (
                held is not None
                and isinstance(grant_id, int)
                and link_of(held, 0).grant == grant_id
            )
            if won:
                kept = True
                results.append(ClaimResult(current, replace(decision, claim=held)))
            else:
                again, refusal = apply_claim(current, request, now)
                results.append(ClaimResult(again, refusal))
        if kept:
            stale = [i for i in found.ids if i != grant_id]
            gone = self._delete_unchanged(pull, stale, found, after)
        else:
            ours = [(grant_id, created.get("updated_at"))] if isinstance(created, dict) else []
            gone = self._delete_own(pull, ours, after)
        self._remember(pull, [c for c in after if c.get("id") not in gone])
        return results

    def _revise(
        self,
        pull: int,
        found: _Ledgers,
        asked: Sequence[tuple[Comment, Comment, ClaimDecision]],
        written: dict[str, Claim],
    ) -> builtins.list[ClaimResult] | None:
        """Edit the newest ledger with the holder's revisions (``None``: that ledger is gone)."""
        store = self._store
        try:
            edited = store._transport.request(
                "PATCH",
                f"{store._base}/issues/comments/{found.ids[-1]}",
                body={"body": self._body(found, written)},
            ).data
        except GitHubError as exc:
            if exc.status != 404:
                raise
            self.forget()
            return None
        recent = self._recent
        if recent is not None and isinstance(edited, dict):
            kept = [edited if c.get("id") == edited.get("id") else c for c in recent.comments]
            self._remember(pull, kept)
        results: builtins.list[ClaimResult] = []
        for before, updated, decision in asked:
            claim = written.get(before.id)
            if claim is None:
                results.append(ClaimResult(updated, decision))
            else:
                results.append(
                    ClaimResult(with_claim(before, claim), replace(decision, claim=claim))
                )
        return results

    def _delete_unchanged(
        self,
        pull: int,
        ids: Sequence[int],
        found: _Ledgers,
        after: Sequence[JsonObject],
    ) -> set[int]:
        """Delete the ledgers ``ids`` read in ``found`` that ``after`` shows nobody changed."""
        updated = dict(zip(found.ids, found.updated, strict=True))
        return self._delete_own(pull, [(i, updated.get(i)) for i in ids], after)

    def _delete_own(
        self, pull: int, ledgers: Sequence[tuple[object, object]], after: Sequence[JsonObject]
    ) -> set[int]:
        store = self._store
        now = {c.get("id"): c.get("updated_at") for c in after}
        gone: set[int] = set()
        for ledger_id, seen in ledgers:
            if not isinstance(ledger_id, int) or seen is None or now.get(ledger_id) != seen:
                continue
            with contextlib.suppress(MapleError):
                store._transport.request("DELETE", f"{store._base}/issues/comments/{ledger_id}")
                gone.add(ledger_id)
        return gone

    def sweep(self, pull: int, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch``, as one checked edit."""
        store = self._store
        changed: builtins.list[Comment] = []

        def change(current: GitHubLedger) -> GitHubLedger:
            mine = [c for c in (*current.comments, *current.marks) if c.branch == branch]
            revised = apply_sweep(mine, request, store._clock.now())
            by_id: dict[str, Comment] = {}
            for updated in revised.values():
                before = claim_of(next(c for c in mine if c.id == updated.id))
                after = claim_of(updated)
                if before is None or after is None:
                    continue
                link = link_of(before, 0)
                by_id[updated.id] = with_claim(
                    updated, chained(after, Link(link.grant, link.depth, link.rev + 1))
                )
            changed[:] = list(by_id.values())
            return replace(
                current,
                comments=tuple(by_id.get(c.id, c) for c in current.comments),
                marks=tuple(by_id.get(m.id, m) for m in current.marks),
            )

        def landed(merged: GitHubLedger) -> builtins.list[Comment] | None:
            wanted = {c.id: claim_of(c) for c in changed}
            records = _records(merged)
            now = {i: claim_of(records[i]) for i in wanted if i in records}
            ok = all(
                now.get(i) is not None and w is not None and now[i] == w for i, w in wanted.items()
            )
            return [records[i] for i in wanted] if ok else None

        with self._lock:
            self.forget()
            now = store._clock.now()
            found = store._ledgers_in(pull, store.issue_comments(pull), branch, "claim")
            ledger = found.merged if found is not None else GitHubLedger(branch)
            held = [c for c in (*ledger.comments, *ledger.marks) if c.branch == branch]
            if not apply_sweep(held, request, now):
                return []  # nothing of this session's to renew or end: nothing is written
            return store._write(pull, branch, "claim", change, landed, repost=False)
