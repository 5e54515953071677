"""``claims.json``: the file store's claims, beside its ledger in ``.maple/<slug>/``.

``{"version": 1, "claims": {"<comment id>": {agent, session, since, expires}}}``. Claims change
far more often than comments (every claim, renewal and release), are worth nothing after their
lease, and Maple's own tools rewrite ``comments.json`` whole, so they are kept apart from the
ledger: a claim rewrites this small file (in place, under its own lock, whose shared side its
readers hold; without the ledger's ``fsync``), never the ledger. A crash, or a writer killed
mid-write, loses at most these leases, which lapse anyway: never a comment.
A store lists each comment with its claim from here under the comment's ``claim`` key.

A file that cannot be read holds no claims (it is maple's own and only ever holds leases); an
entry whose shape is wrong is no claim; ended claims are forgotten an hour after their end.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from maple_adapters.files.folders import Folder
from maple_adapters.files.lock import read_shared
from maple_adapters.files.records import (
    CLAIMS,
    CLAIMS_LOCK,
    CLAIMS_READ_TIMEOUT_S,
    parse_claims,
)
from maple_core.claims import CLAIM, Claim
from maple_core.comments import Comment
from maple_core.json_types import JsonObject

__all__ = [
    "CLAIMS",
    "CLAIMS_LOCK",
    "claimed_view",
    "read_claims",
    "read_current_claims",
    "write_claims",
]

_FORGET_AFTER = timedelta(hours=1)


def read_claims(folder: Folder) -> dict[str, JsonObject]:
    """The folder's claims by comment id, read by a writer holding ``CLAIMS_LOCK``.

    None when the file is missing or unreadable.
    """
    try:
        data = folder.read(CLAIMS)
    except FileNotFoundError:
        return {}
    return parse_claims(data)


def read_current_claims(folder: Folder) -> dict[str, JsonObject]:
    """The folder's claims by comment id, read by a reader (the lock's shared side)."""
    data = read_shared(folder, CLAIMS, CLAIMS_LOCK, CLAIMS_READ_TIMEOUT_S)
    return parse_claims(data) if data is not None else {}


def write_claims(folder: Folder, claims: Mapping[str, JsonObject], now: datetime) -> None:
    """Write ``claims`` over the claims file, less those that ended over an hour ago.

    The caller holds ``CLAIMS_LOCK``; the file is written in place (readers share the lock).
    """
    kept: dict[str, JsonObject] = {}
    for comment_id, value in claims.items():
        claim = Claim.read(value)
        ends = claim.ends() if claim is not None else None
        if ends is not None and now - ends <= _FORGET_AFTER:
            kept[comment_id] = value
    data = json.dumps({"version": 1, "claims": kept}, ensure_ascii=False, sort_keys=True)
    folder.overwrite(CLAIMS, data.encode("utf-8") + b"\n")


def claimed_view(
    comments: Sequence[Comment], claims: Mapping[str, JsonObject]
) -> tuple[Comment, ...]:
    """The comments as the store lists them: each one's claim from ``claims``, or none.

    A ``claim`` key a record holds in the ledger itself is not a claim on this store (it keeps
    claims here), so it is left out of the view and kept in the file as written.
    """
    if not claims and not any(CLAIM in c.extra for c in comments):
        return tuple(comments)
    shown: list[Comment] = []
    for comment in comments:
        value = claims.get(comment.id)
        if value is None and CLAIM not in comment.extra:
            shown.append(comment)
            continue
        extra = {k: v for k, v in comment.extra.items() if k != CLAIM}
        if value is not None:
            extra[CLAIM] = value
        shown.append(replace(comment, extra=extra))
    return tuple(shown)
