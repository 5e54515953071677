"""Which open comments another live agent session claimed, read by the Stop hook.

A claim is live while ``now < expires <= horizon``: the times are JavaScript timestamps, so the
check is one of text and the hook needs no date library. A comment another session holds never
holds this one; the worklist names who is on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_core.json_types import JsonObject

__all__ = ["live_claim_record", "split_by_claims"]


def _is_js_stamp(text: object) -> bool:
    """A stamp in JavaScript's ``toISOString`` shape (``2026-01-01T12:00:00.000Z``)."""
    return isinstance(text, str) and len(text) == 24 and text[10] == "T" and text[-1] == "Z"


def live_claim_record(
    record: Mapping[str, object], now: str, horizon: str
) -> Mapping[str, object] | None:
    """The record's claim while it is live: ``now < expires <= horizon``.

    ``now`` and ``horizon`` (``now`` plus the longest lease) are JavaScript timestamps, so the
    comparison is one of text and the hook needs no date library; a claim whose expiry is in
    another shape, or past the horizon, is no claim (see ``maple_core.claims``).
    """
    claim = record.get("claim")
    if not isinstance(claim, dict):
        return None
    expires, session = claim.get("expires"), claim.get("session")
    if not _is_js_stamp(expires) or not isinstance(session, str) or not session:
        return None
    return claim if now < str(expires) <= horizon else None


def split_by_claims(
    records: Sequence[JsonObject],
    own: Callable[[str], bool],
    now: str,
    horizon: str,
) -> tuple[list[JsonObject], list[JsonObject]]:
    """The records that may hold this session, and those another live session claimed.

    ``own`` says whether a session id is this session's; a record whose live claim is not its
    own goes to the second list.
    """
    mine: list[JsonObject] = []
    others: list[JsonObject] = []
    for record in records:
        claim = live_claim_record(record, now, horizon)
        if claim is not None and not own(str(claim["session"])):
            others.append(record)
        else:
            mine.append(record)
    return mine, others
