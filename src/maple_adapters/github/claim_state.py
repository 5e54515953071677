"""What one read of a pull request's comments says of its claims: each record, and the notes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from maple_adapters.github.claim_chain import link_of
from maple_adapters.github.claim_notes import Note, claim_records, with_notes
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.trust import Ledgers
from maple_core.claims import Claim, live_claim
from maple_core.comments import Comment
from maple_core.pull_review import review_ref

__all__ = ["ClaimState", "claim_state", "thread_records"]


@dataclass(frozen=True, slots=True)
class ClaimState:
    """Each record a claim may name, by id, with the claim decided; the notes; a ledger at all."""

    records: dict[str, Comment]
    notes: tuple[Note, ...]
    ledger: bool

    def note_of(self, claim: Claim | None) -> Note | None:
        """The note holding ``claim``'s grant, if a note holds it (else a ledger keeps it)."""
        if claim is None:
            return None
        link = link_of(claim, 0)
        return next((n for n in self.notes if link.note and n.id == link.grant), None)

    def dead(self, note: Note, now: datetime) -> bool:
        """Whether no claim in ``note`` stands now: each lapsed, ended, or outranked."""
        for comment_id in note.claims:
            record = self.records.get(comment_id)
            held = live_claim(record, now) if record is not None else None
            if held is not None and link_of(held, 0).grant == note.id:
                return False
        return True


def claim_state(
    found: Ledgers | None,
    notes: tuple[Note, ...],
    threads: Mapping[str, Comment] | None = None,
    branch: str | None = None,
) -> ClaimState:
    """The records of ``found`` (claims decided with the notes), and bare ``threads``.

    A review thread's claim lives in its note alone until the ledger keeps a record of the
    thread; the pull request's branch (``branch``) is its own.
    """
    records: dict[str, Comment] = {}
    if found is not None:
        records.update({m.id: m for m in found.merged.marks})
        records.update({c.id: c for c in found.merged.comments})
    bare: Sequence[Comment] = [t for i, t in (threads or {}).items() if i not in records]
    if bare:
        shown = with_notes(GitHubLedger(bare[0].branch, marks=tuple(bare)), notes)
        records.update({m.id: m for m in shown.marks})
    for record in claim_records(notes, frozenset(records), branch or ""):
        if review_ref(record.id) is not None:
            records[record.id] = record
    return ClaimState(records, notes, found is not None)


def thread_records(notes: Sequence[Note], merged: GitHubLedger) -> list[Comment]:
    """``merged``'s records of review items, and a bare one per thread only a note claims."""
    known = frozenset(m.id for m in merged.marks)
    bare = claim_records(notes, known, merged.branch)
    return [*merged.marks, *(r for r in bare if review_ref(r.id) is not None)]
