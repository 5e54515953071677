"""The GitHub store's claims: each grant a small note of its own, the ledger left as it is.

A new claim (or a take-over) posts a claim note (:mod:`.claim_notes`) holding it, reads the pull
request's comments back, and has won when the chain (:mod:`.claim_chain`) names its note; a
claimant that lost deletes its note and is answered ``held``, naming the winner. The holder's
renewal edits its note; its release deletes the note (or, when the note holds other live
claims too, edits it). Notes that no longer hold a standing live claim (lapsed, taken over)
are deleted by the next grant that reads them.

Claims an earlier maple kept in the ledger itself (``note`` absent from their chain) are read
as before and revised through the ledger's checked write.

The comments a claim read (or read back), or a listing read, stand in for a fresh read for 2 s,
so a claim just after a listing costs a post and a read, and its release a delete.
"""

from __future__ import annotations

import builtins
import contextlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from maple_adapters.github.claim_chain import Link, chained, link_of
from maple_adapters.github.claim_notes import Note, note_body
from maple_adapters.github.claim_state import ClaimState, claim_state
from maple_adapters.github.edits import comment_in
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.transport import GitHubError
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
_GRANTED = (ClaimOutcome.CLAIMED, ClaimOutcome.TAKEN_OVER)
_Asked = tuple[Comment, Comment, ClaimDecision]


@dataclass(frozen=True, slots=True)
class _Read:
    """A pull request's issue comments as a claim last read them, and when."""

    pull: int
    at: float
    comments: tuple[JsonObject, ...]


class LedgerClaims:
    """Claims on one GitHub store's pull requests (see the module docstring)."""

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
        and a refusal is read again fresh.
        """
        self._recent = _Read(pull, self._store._clock.monotonic(), tuple(comments))

    def _remember(self, pull: int, comments: Sequence[JsonObject]) -> None:
        self._recent = _Read(pull, self._store._clock.monotonic(), tuple(comments))
        self._store._forget_read_back()  # the store's own remembered read predates this one

    def _state(
        self,
        pull: int,
        comments: Sequence[JsonObject],
        threads: Mapping[str, Comment] | None = None,
        branch: str | None = None,
    ) -> ClaimState:
        """Every record a claim may name, with the claim the ledgers and notes decide."""
        found = self._store._ledgers_in(pull, comments, branch, "claim")
        notes = found.notes if found is not None else self._store._notes_in(comments)
        return claim_state(found, notes, threads, branch)

    def claim(
        self,
        pull: int,
        comment_ids: Sequence[str],
        request: ClaimRequest,
        threads: Mapping[str, Comment] | None = None,
    ) -> builtins.list[ClaimResult]:
        """Apply ``request`` to each of ``comment_ids`` on pull request ``pull``.

        ``threads`` are the pull request's own review threads among them, each as a bare
        record. An id the ledgers do not hold (nor ``threads``) has no result.
        """
        store = self._store
        with store._failing("claim"), self._lock:
            fresh = False
            for _ in range(_ATTEMPTS):
                comments, remembered = self._read(pull, fresh)
                state = self._state(pull, comments, threads)
                if not state.ledger and not threads:
                    return []
                now = store._clock.now()
                asked = [
                    (state.records[i], *apply_claim(state.records[i], request, now))
                    for i in comment_ids
                    if i in state.records
                ]
                if not any(decision.write for _, _, decision in asked):
                    refused = any(d.outcome is not ClaimOutcome.RENEWED for _, _, d in asked)
                    if remembered and refused:
                        fresh = True  # a refusal is never made on a remembered read
                        continue
                    return [ClaimResult(updated, d) for _, updated, d in asked]
                results = self._write(pull, state, asked, request, threads)
                if results is not None:
                    return results
                fresh = True  # a note or ledger moved under us: decide again on a fresh read
        raise StoreUnavailableError(
            f"Other writers kept changing pull request #{pull}'s claims, so the claims on "
            f"{', '.join(comment_ids[:5])} did not land. Try again.",
            store=store.name,
            operation="claim",
        )

    def holder(self, pull: int, comment_id: str, claimant: Claimant) -> Claim | None:
        """The live claim another session holds on ``comment_id`` (``None``: nobody else).

        What a resolve asks instead of claiming first: the resolve's own write ends the claim
        (:func:`~maple_adapters.github.claim_chain.ended_by_resolve`), and its note goes after
        it (:meth:`tidy`). A holder is never named on a remembered read alone.
        """
        store = self._store
        with store._failing("claim"), self._lock:
            for fresh in (False, True):
                comments, remembered = self._read(pull, fresh)
                state = self._state(pull, comments)
                comment = state.records.get(comment_id)
                if comment is None and review_ref(comment_id) is None:
                    comment_in(GitHubLedger(""), comment_id, store.name, "claim")  # NotFound
                if comment is None:  # a review thread only a note may claim
                    bare = Comment(id=comment_id, branch="", body="")
                    comment = self._state(pull, comments, {comment_id: bare}).records[comment_id]
                held = live_claim(comment, store._clock.now())
                if held is None or held.session == claimant.session:
                    return None
                if not remembered:
                    return held
        return None  # pragma: no cover - the fresh read above always answers

    def _write(
        self,
        pull: int,
        state: ClaimState,
        asked: Sequence[_Asked],
        request: ClaimRequest,
        threads: Mapping[str, Comment] | None,
    ) -> builtins.list[ClaimResult] | None:
        """Write every change asked: revisions first, then one note for the new grants."""
        written: dict[str, Claim] = {}
        grants: dict[str, Claim] = {}
        for before, _, decision in asked:
            if not decision.write or decision.claim is None:
                continue
            held = claim_of(before)
            if decision.outcome in _GRANTED:
                depth = link_of(held, 0).depth + 1 if held is not None else 1
                grants[before.id] = chained(decision.claim, Link(0, depth, 1, note=True))
            elif held is not None:
                link = link_of(held, 0)
                written[before.id] = chained(decision.claim, replace(link, rev=link.rev + 1))
        after: dict[str, Claim | None] = {}
        if written:
            revised = self._revise(pull, state, asked, written)
            if revised is None:
                return None
            after = revised
        if grants:
            return self._grant(pull, asked, after, grants, request, threads)
        return [_result(b, u, d, after) for b, u, d in asked]

    def _revise(
        self,
        pull: int,
        state: ClaimState,
        asked: Sequence[_Asked],
        written: Mapping[str, Claim],
    ) -> dict[str, Claim | None] | None:
        """Write the holder's revisions: in each note holding them, else in the ledger.

        Returns the claim each revised comment holds now (``None``: its note no longer holds
        one); ``None`` when a note or the ledger was gone or changed and the claims must be
        read again.
        """
        by_note: dict[int, dict[str, Claim]] = {}
        in_ledger: dict[str, Claim] = {}
        for before, _, _ in asked:
            if before.id not in written:
                continue
            note = state.note_of(claim_of(before))
            if note is None:
                in_ledger[before.id] = written[before.id]
            else:
                by_note.setdefault(note.id, {})[before.id] = written[before.id]
        now = self._store._clock.now()
        after: dict[str, Claim | None] = dict(in_ledger)
        for note in state.notes:
            if note.id not in by_note:
                continue
            if not self._rewrite(pull, note, by_note[note.id], now):
                return None
            after.update({i: c if c.live_at(now) else None for i, c in by_note[note.id].items()})
        if in_ledger and not self._revise_ledger(pull, in_ledger):
            return None
        return after

    def _rewrite(self, pull: int, note: Note, revised: Mapping[str, Claim], now: datetime) -> bool:
        """Edit ``note`` with ``revised`` claims, or delete it once none of its claims is live."""
        store = self._store
        kept: dict[str, Claim] = {}
        for comment_id, value in note.claims.items():
            claim = revised.get(comment_id) or Claim.read(value)
            if claim is not None and claim.live_at(now):
                kept[comment_id] = claim
        path = f"{store._base}/issues/comments/{note.id}"
        try:
            if kept:
                store._transport.request("PATCH", path, body={"body": note_body(kept)})
            else:
                store._transport.request("DELETE", path)
        except GitHubError as exc:
            if exc.status != 404:
                raise
            self.forget()
            return not kept  # a release whose note is gone is done; a renewal is read again
        self._forget_note(pull, note.id, gone=not kept)
        return True

    def _forget_note(self, pull: int, note_id: int, *, gone: bool) -> None:
        """The remembered read, without a note deleted (or, edited, no longer remembered)."""
        recent = self._recent
        if recent is None or recent.pull != pull:
            return
        if not gone:
            self.forget()
            return
        self._recent = replace(
            recent, comments=tuple(c for c in recent.comments if c.get("id") != note_id)
        )

    def _revise_ledger(self, pull: int, revised: Mapping[str, Claim]) -> bool:
        """Write revisions of claims an earlier maple kept in the ledger, as a checked edit."""
        store = self._store

        def change(current: GitHubLedger) -> GitHubLedger:
            return replace(
                current,
                comments=tuple(_revised(c, revised) for c in current.comments),
                marks=tuple(_revised(m, revised) for m in current.marks),
            )

        def landed(merged: GitHubLedger) -> bool | None:
            records = {r.id: r for r in (*merged.comments, *merged.marks)}
            ok = all(i in records and claim_of(records[i]) == c for i, c in revised.items())
            return True if ok else None

        self.forget()
        return store._write(pull, None, "claim", change, landed, repost=False)

    def _grant(
        self,
        pull: int,
        asked: Sequence[_Asked],
        written: Mapping[str, Claim | None],
        grants: Mapping[str, Claim],
        request: ClaimRequest,
        threads: Mapping[str, Comment] | None,
    ) -> builtins.list[ClaimResult]:
        """Post the grants as one note, read back, and keep each grant the chain names.

        A grant another claimant's won is answered as :meth:`claim` answers a refusal.
        """
        store = self._store
        created = store._transport.request(
            "POST", f"{store._base}/issues/{pull}/comments", body={"body": note_body(grants)}
        ).data
        store._learn_writer(created)
        note_id = created.get("id") if isinstance(created, dict) else None
        after = tuple(store.issue_comments(pull))
        state = self._state(pull, after, threads)
        now = store._clock.now()
        results: builtins.list[ClaimResult] = []
        won: dict[str, Claim] = {}
        for before, updated, decision in asked:
            current = state.records.get(before.id, updated)
            held = claim_of(current)
            if before.id in written:
                results.append(_result(before, updated, decision, written))
            elif before.id not in grants:
                results.append(ClaimResult(updated, decision))
            elif held is not None and link_of(held, 0).grant == note_id:
                won[before.id] = held
                results.append(ClaimResult(current, replace(decision, claim=held)))
            else:
                again, refusal = apply_claim(current, request, now)
                results.append(ClaimResult(again, refusal))
        gone = self._settle(pull, note_id, grants, won, state, now)
        self._remember(pull, [c for c in after if c.get("id") not in gone])
        return results

    def _settle(
        self,
        pull: int,
        note_id: object,
        grants: Mapping[str, Claim],
        won: Mapping[str, Claim],
        state: ClaimState,
        now: datetime,
    ) -> set[object]:
        """Drop what the grant left behind: its own lost grants, and notes no longer standing."""
        store = self._store
        gone: set[object] = set()
        with contextlib.suppress(MapleError):
            if not won:
                store._transport.request("DELETE", f"{store._base}/issues/comments/{note_id}")
                gone.add(note_id)
            elif len(won) < len(grants):
                store._transport.request(
                    "PATCH",
                    f"{store._base}/issues/comments/{note_id}",
                    body={"body": note_body(won)},
                )
        for note in state.notes:
            if note.id != note_id and state.dead(note, now):
                with contextlib.suppress(MapleError):
                    store._transport.request("DELETE", f"{store._base}/issues/comments/{note.id}")
                    gone.add(note.id)
        return gone

    def notes_on(self, pull: int, comment_id: str) -> tuple[Note, ...]:
        """The notes the remembered read shows holding a claim on ``comment_id``.

        A resolve asks this before its write (which forgets the read), and :meth:`drop` after.
        """
        recent = self._recent
        if recent is None or recent.pull != pull:
            return ()
        notes = self._store._notes_in(recent.comments)
        return tuple(n for n in notes if comment_id in n.claims)

    def drop(self, pull: int, comment_id: str, notes: Sequence[Note]) -> None:
        """After a resolve ended ``comment_id``'s claim in the ledger: its notes go too.

        Best effort: a note left behind holds a claim the ledger's ended copy outranks, and the
        next grant that reads it deletes it.
        """
        now = self._store._clock.now()
        with contextlib.suppress(MapleError), self._lock:
            for note in notes:
                rest = {i: v for i, v in note.claims.items() if i != comment_id}
                self._rewrite(pull, Note(note.id, rest), {}, now)

    def sweep(self, pull: int, branch: str, request: ClaimRequest) -> builtins.list[Comment]:
        """Renew or end the session's live claims on ``branch``: each note edited once."""
        store = self._store
        with store._failing("claim"), self._lock:
            self.forget()
            comments, _ = self._read(pull, True)
            state = self._state(pull, comments, branch=branch)
            held = [c for c in state.records.values() if c.branch == branch]
            now = store._clock.now()
            revised = apply_sweep(held, request, now)
            if not revised:
                return []  # nothing of this session's to renew or end: nothing is written
            written: dict[str, Claim] = {}
            for index, updated in revised.items():
                before, ended = claim_of(held[index]), claim_of(updated)
                if before is not None and ended is not None:
                    link = link_of(before, 0)
                    written[updated.id] = chained(ended, replace(link, rev=link.rev + 1))
            asked = [
                (held[i], revised[i], ClaimDecision(ClaimOutcome.RENEWED, None)) for i in revised
            ]
            after = self._revise(pull, state, asked, written)
            if after is None:
                raise StoreUnavailableError(
                    f"A claim note on pull request #{pull} changed while the session's claims "
                    "were renewed. Try again.",
                    store=store.name,
                    operation="claim",
                )
            return [with_claim(held[i], after.get(held[i].id)) for i in revised]


def _result(
    before: Comment, updated: Comment, decision: ClaimDecision, after: Mapping[str, Claim | None]
) -> ClaimResult:
    """The answer for one comment: as revised (``after``), else as decided."""
    if before.id not in after:
        return ClaimResult(updated, decision)
    claim = after[before.id]
    return ClaimResult(with_claim(before, claim), replace(decision, claim=claim))


def _revised(record: Comment, revised: Mapping[str, Claim]) -> Comment:
    claim = revised.get(record.id)
    return with_claim(record, claim) if claim is not None else record
