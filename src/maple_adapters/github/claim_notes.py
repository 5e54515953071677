"""Claim notes: a claim posted on the pull request as a small comment of its own.

A grant is never an edit (:mod:`.claim_chain`): it is a new issue comment, numbered by GitHub
in the order it arrives. The comment holds only the claims it grants, so it is cheap to post,
to read and to drop; the ledger is left as it is. The note says in words who is on what (the
reviewer's presence on GitHub), and keeps the claims, each with its place in the chain, in a
hidden block maple reads back::

    👀 `claude-code` is on `gh_7_3` until 12:10 UTC (maple claim).
    <!-- maple-claims {"gh_7_3": {"agent": …, "chain": {"depth": 1, "rev": 1, "note": true}}} -->

A note's grant stands only while the note does: releasing it deletes the note, and a copy
of it that a ledger write carried into the ledger (``note: true`` in its chain) counts only
while the note is there. Only notes whose author may write the ledger count
(:class:`~maple_adapters.github.trust.WriterTrust`); anyone else's note-looking text is
ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from maple_adapters.github.claim_chain import CHAIN, current_claim, link_of
from maple_adapters.github.ledger import GitHubLedger
from maple_core.claims import CLAIM, Claim
from maple_core.comments import Comment
from maple_core.cursor import parse_stamp
from maple_core.json_types import JsonObject, JsonValue
from maple_core.text import code_span

__all__ = ["Note", "claim_records", "looks_like_note", "note_body", "notes_in", "with_notes"]

_OPEN = "<!-- maple-claims "
_CLOSE = " -->"
_NOTE = re.compile(r"<!-- maple-claims (\{.*\}) -->\s*\Z", re.DOTALL)
_MAX_NOTE_CHARS = 16_384  # a note holds a few claims; a longer body is not one of maple's
_MAX_SHOWN = 5  # ids named in a note's words; the block holds every claim


@dataclass(frozen=True, slots=True)
class Note:
    """A trusted claim note: its issue comment's id and the claims it holds, by comment id."""

    id: int
    claims: Mapping[str, JsonObject]


def note_body(claims: Mapping[str, Claim]) -> str:
    """A note's body: who is on which comments, in words, then the claims for maple to read.

    The words are inert code spans; the block's JSON cannot close the HTML comment that
    hides it (``<`` and ``>`` are written as escapes).
    """
    agents = sorted({c.agent for c in claims.values()})
    ids = list(claims)
    named = ", ".join(code_span(i, 40) for i in ids[:_MAX_SHOWN])
    more = f" and {len(ids) - _MAX_SHOWN} more" if len(ids) > _MAX_SHOWN else ""
    ends = [e for e in (parse_stamp(c.expires) for c in claims.values()) if e is not None]
    until = f" until {max(ends):%H:%M} UTC" if ends else ""
    who = ", ".join(code_span(a, 40) for a in agents)
    block = json.dumps({i: c.to_json() for i, c in claims.items()}, separators=(",", ":"))
    block = block.replace("<", "\\u003c").replace(">", "\\u003e")
    return f"👀 {who} is on {named}{more}{until} (maple claim).\n{_OPEN}{block}{_CLOSE}"


def looks_like_note(body: str) -> bool:
    """Whether a comment's body reads as a claim note, whoever wrote it (not conversation)."""
    return _OPEN in body


def _claims_in(body: str) -> dict[str, JsonObject] | None:
    """The claims a note's body holds, or ``None`` when it is not a readable note."""
    if _OPEN not in body or len(body) > _MAX_NOTE_CHARS:
        return None
    match = _NOTE.search(body)
    if match is None:
        return None
    try:
        value: JsonValue = json.loads(match.group(1))
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    return {k: v for k, v in value.items() if isinstance(v, dict) and Claim.read(v) is not None}


def notes_in(
    comments: Sequence[JsonObject], trusted: Callable[[JsonObject], bool]
) -> tuple[Note, ...]:
    """The trusted claim notes among a pull request's issue comments, oldest first."""
    found: list[Note] = []
    for comment in comments:
        body, comment_id = comment.get("body"), comment.get("id")
        if not isinstance(body, str) or not isinstance(comment_id, int):
            continue
        if not looks_like_note(body) or not trusted(comment):
            continue  # a stranger's note-looking text is not even parsed
        claims = _claims_in(body)
        if claims is not None:
            found.append(Note(comment_id, claims))
    return tuple(sorted(found, key=lambda n: n.id))


def _standing(value: JsonValue, note_ids: frozenset[int]) -> bool:
    """Whether a ledger's copy of a claim still stands: a note's grant only with its note."""
    claim = Claim.read(value)
    if claim is None:
        return False
    link = link_of(claim, 0)
    return not link.note or link.grant in note_ids


def _decided(record: Comment, notes: Sequence[Note], note_ids: frozenset[int]) -> Comment:
    """``record`` with the claim its ledger copy and the notes decide (or with none)."""
    versions: list[tuple[int, JsonValue]] = []
    held = record.extra.get(CLAIM)
    if held is not None and _standing(held, note_ids):
        claim = Claim.read(held)
        versions.append((link_of(claim, 0).grant if claim is not None else 0, held))
    versions.extend((n.id, n.claims[record.id]) for n in notes if record.id in n.claims)
    current = current_claim(versions) if versions else None
    if current is not None and _grant(current) in note_ids:
        current = _as_note(current)
    if current == held:
        return record
    extra = {k: v for k, v in record.extra.items() if k != CLAIM}
    if current is not None:
        extra[CLAIM] = current
    return replace(record, extra=extra)


def _grant(claim: JsonObject) -> int:
    read = Claim.read(claim)
    return link_of(read, 0).grant if read is not None else 0


def _as_note(claim: JsonObject) -> JsonObject:
    chain = claim.get(CHAIN)
    if not isinstance(chain, dict) or chain.get("note") is True:
        return claim
    return {**claim, CHAIN: {**chain, "note": True}}


def with_notes(ledger: GitHubLedger, notes: Sequence[Note]) -> GitHubLedger:
    """``ledger`` with each record's claim decided by its copy there and by the notes.

    A copy of a note's grant whose note is gone is dropped: the claim was released.
    """
    note_ids = frozenset(n.id for n in notes)
    if not notes and not any(CLAIM in r.extra for r in (*ledger.comments, *ledger.marks)):
        return ledger
    return replace(
        ledger,
        comments=tuple(_decided(c, notes, note_ids) for c in ledger.comments),
        marks=tuple(_decided(m, notes, note_ids) for m in ledger.marks),
    )


def claim_records(notes: Sequence[Note], known: frozenset[str], branch: str) -> tuple[Comment, ...]:
    """Bare records for the ids notes claim that ``known`` (the ledger's records) lacks.

    A review thread's claim lives in a note alone until the ledger keeps a record of the
    thread; its reading shows the claim through such a record.
    """
    ids = sorted({i for n in notes for i in n.claims if i not in known})
    note_ids = frozenset(n.id for n in notes)
    return tuple(_decided(Comment(id=i, branch=branch, body=""), notes, note_ids) for i in ids)
