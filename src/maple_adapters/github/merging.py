"""Merging ledgers two writers raced to write: every record once, its newest version kept."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import TypeVar

from maple_adapters.github.claim_chain import current_claim
from maple_adapters.github.ledger import (
    GitHubLedger,
    canonical_stamp,
    comment_identity,
    record_number,
    stable_json,
)
from maple_core.approvals import Approval
from maple_core.claims import CLAIM
from maple_core.comments import Comment
from maple_core.conversation import CLASSIFICATION, REPLIES
from maple_core.json_types import JsonObject, JsonValue

__all__ = [
    "merge_ledgers",
]

_R = TypeVar("_R", Comment, Approval)


def merge_ledgers(
    ledgers: Sequence[GitHubLedger],
    ceilings: Sequence[str] | None = None,
    ids: Sequence[int] | None = None,
) -> GitHubLedger:
    """Union of ledgers given oldest write first: every comment once, its newest version kept.

    Two writers racing on one pull request each repost a ledger; reading merges them, so
    neither loses a comment. A comment is known by what never changes about it (arrival stamp,
    creation time, body); of its versions, the one with the latest ``updatedAt`` (maple stamps
    every change) wins, the newer ledger breaking ties. Its id is the one the newest ledger
    holding it gives; two racers that gave different comments one number keep both, the older
    one under the next free number (the same on every read). Approvals merge the same way, and
    an approval withdrawn in any ledger stays withdrawn.

    ``ceilings`` are the times GitHub last saw each ledger change: a version stamped later
    than its ledger's ceiling counts as stamped at the ceiling, so no stamp written into a
    ledger can outrank a change made after it.

    A comment's thread is the union of every version's (see :func:`_union_threads`): two
    racing repliers each write a version with their own reply, and both replies stay. Its claim
    is the one GitHub's numbering of the ledger comments (``ids``, the ledgers' issue comment
    ids) decides from every version's (see :mod:`~maple_adapters.github.claim_chain`).
    """
    if not ledgers:
        raise ValueError("merge_ledgers needs at least one ledger")
    caps = [canonical_stamp(c) if c else "" for c in ceilings or [""] * len(ledgers)]
    comments = _merge_records(
        [(order, c) for order, ledger in enumerate(ledgers) for c in ledger.comments],
        identity=comment_identity,
        version=_version,
        ceiling=lambda order: caps[order],
    )
    comments = _union_threads(comments, [c for ledger in ledgers for c in ledger.comments])
    numbers = list(ids) if ids is not None else list(range(1, len(ledgers) + 1))
    comments = _union_claims(
        comments,
        [(n, c) for n, ledger in zip(numbers, ledgers, strict=True) for c in ledger.comments],
    )
    withdrawn = tuple(dict.fromkeys(w for ledger in ledgers for w in ledger.withdrawn))
    approvals = _merge_records(
        [(order, a) for order, ledger in enumerate(ledgers) for a in ledger.approvals],
        identity=lambda a: (a.branch, a.commit, a.at, a.author_name),
        version=lambda a: a.at,
    )
    kept = tuple(a for a in approvals if a.id not in withdrawn)
    every_mark = [m for ledger in ledgers for m in ledger.marks]
    marks = _merge_records(
        [(order, m) for order, ledger in enumerate(ledgers) for m in ledger.marks],
        identity=lambda m: m.id,
        version=_version,
        ceiling=lambda order: caps[order],
    )
    marks = _union_threads(marks, every_mark, identity=lambda m: m.id)
    marks = _union_claims(
        marks,
        [(n, m) for n, ledger in zip(numbers, ledgers, strict=True) for m in ledger.marks],
        identity=lambda m: m.id,
    )
    return GitHubLedger(ledgers[-1].branch, tuple(comments), kept, withdrawn, tuple(marks))


def _merge_records(
    records: Sequence[tuple[int, _R]],
    *,
    identity: Callable[[_R], Hashable],
    version: Callable[[_R], str],
    ceiling: Callable[[int], str] = lambda order: "",
) -> list[_R]:
    best: dict[Hashable, tuple[str, int, _R]] = {}
    newest_id: dict[Hashable, tuple[int, str]] = {}
    for order, record in records:
        key = identity(record)
        stamp, cap = version(record), ceiling(order)
        candidate = (min(stamp, cap) if cap else stamp, order, record)
        if key not in best or candidate[:2] >= best[key][:2]:
            best[key] = candidate
        newest_id[key] = (order, record.id)
    next_free = max((record_number(i) for _, i in newest_id.values()), default=0) + 1
    taken: set[str] = set()
    merged: list[_R] = []
    for key in sorted(newest_id, key=lambda k: -newest_id[k][0]):
        record_id = newest_id[key][1]
        if record_id and record_id in taken:  # an unreadable id ("") is kept as written
            record_id = f"{record_id.rsplit('_', 1)[0]}_{next_free}"
            next_free += 1
        taken.add(record_id)
        merged.append(replace(best[key][2], id=record_id))
    merged.sort(key=lambda r: (record_number(r.id), version(r)))
    return merged


def _reply_key(entry: JsonObject) -> str:
    """A thread entry's identity: its id, or (no id, as a hand edit may leave it) its JSON."""
    reply_id = entry.get("id")
    return reply_id if isinstance(reply_id, str) and reply_id else stable_json(entry)


def _reply_order(entry: JsonObject) -> tuple[str, str]:
    received = entry.get("receivedAt")
    reply_id = entry.get("id")
    return (
        canonical_stamp(received) if isinstance(received, str) else "",
        reply_id if isinstance(reply_id, str) else "",
    )


def _union_threads(
    merged: Sequence[Comment],
    versions: Sequence[Comment],
    identity: Callable[[Comment], Hashable] | None = None,
) -> list[Comment]:
    """Each merged comment with every reply any of its versions holds, once each.

    The winning version's entries are kept as written; entries only other versions hold are
    added, and then the thread is ordered by ``receivedAt`` (then id). A comment whose winning
    version already holds every entry is left byte for byte as it is.
    """
    key_of = identity or comment_identity
    extra: dict[Hashable, dict[str, JsonObject]] = {}
    for version in versions:
        raw = version.extra.get(REPLIES)
        if isinstance(raw, list):
            found = extra.setdefault(key_of(version), {})
            for entry in raw:
                if isinstance(entry, dict):
                    key = _reply_key(entry)
                    found[key] = _later_reading(found.get(key), entry)
    out: list[Comment] = []
    for comment in merged:
        every = extra.get(key_of(comment)) or {}
        raw = comment.extra.get(REPLIES)
        own = raw if isinstance(raw, list) else []
        held = {_reply_key(e) for e in own if isinstance(e, dict)}
        missing = [e for key, e in every.items() if key not in held]
        read = [_later_reading(e, every.get(_reply_key(e))) for e in own if isinstance(e, dict)]
        if not missing and all(
            a is b for a, b in zip(read, (e for e in own if isinstance(e, dict)), strict=True)
        ):
            out.append(comment)
            continue
        entries = read + missing
        entries.sort(key=_reply_order)
        others: list[JsonValue] = [e for e in own if not isinstance(e, dict)]
        out.append(replace(comment, extra={**comment.extra, REPLIES: [*others, *entries]}))
    return out


def _union_claims(
    merged: Sequence[Comment],
    versions: Sequence[tuple[int, Comment]],
    identity: Callable[[Comment], Hashable] = comment_identity,
) -> list[Comment]:
    """Each merged comment (or record of a review item) with the claim its versions decide."""
    found: dict[Hashable, list[tuple[int, JsonValue]]] = {}
    for ledger_id, version in versions:
        if CLAIM in version.extra:
            found.setdefault(identity(version), []).append((ledger_id, version.extra[CLAIM]))
    if not found:
        return list(merged)
    out: list[Comment] = []
    for comment in merged:
        claimed = found.get(identity(comment))
        current = current_claim(claimed) if claimed else None
        if current is None:
            out.append(comment)
        else:
            out.append(replace(comment, extra={**comment.extra, CLAIM: current}))
    return out


def _later_reading(kept: JsonObject | None, other: JsonObject | None) -> JsonObject:
    """Of two versions of one thread entry, the one whose reading of it is the later.

    A reading (``classification``) is noted on an entry already there, without stamping the
    comment, so a racing writer's version of the entry may lack it: the version holding a reading
    wins over one without, and of two readings the undone one, else the later one. Otherwise the
    first version stays.
    """
    if kept is None:
        assert other is not None
        return other
    if other is None or other is kept:
        return kept

    def rank(entry: JsonObject) -> tuple[int, int, str]:
        reading = entry.get(CLASSIFICATION)
        if not isinstance(reading, dict):
            return (0, 0, "")
        at = reading.get("at")
        return (1, int(reading.get("undone") is not None), at if isinstance(at, str) else "")

    return other if rank(other) > rank(kept) else kept


def _version(comment: Comment) -> str:
    """How new a comment's version is, as a canonical stamp that sorts as text.

    ``updatedAt`` is written only by a store's own status change (stamped by its clock, never
    taken from a client: see ``NewComment.stored``), and only trusted writers' ledgers are
    merged, so the latest change wins. A stamp that does not parse counts as no change.
    """
    for stamp in (comment.extra.get("updatedAt"), comment.arrival):
        canonical = canonical_stamp(stamp) if isinstance(stamp, str) else ""
        if canonical:
            return canonical
    return ""
