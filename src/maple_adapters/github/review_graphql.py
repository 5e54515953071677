"""What only GraphQL says about a pull request's review: its queries, and the memo of answers.

REST cannot say whether a thread is resolved or outdated, its node id, or who put 👍 on a
review; :class:`~maple_adapters.github.review_source.ReviewSource` asks GraphQL these queries
only when the REST answers changed since (``basis``), and keeps the last answers as a
:class:`ReviewMemo`, shared with other processes as JSON (:func:`memo_to_json`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from maple_adapters.github.review_json import ThreadState
from maple_core.json_types import JsonObject
from maple_core.trust import Author, Endorsement

__all__ = [
    "RESOLVE",
    "REVIEW_THUMBS_QUERY",
    "ReviewMemo",
    "THREADS_QUERY",
    "memo_from_json",
    "memo_to_json",
    "states_token",
]

_PAGE_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      CONNECTION(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { NODES }
      }
    }
  }
}
"""


def _page_query(connection: str, nodes: str) -> str:
    """The query for a page of 100 of a pull request's ``connection``, asking ``nodes`` of each."""
    return _PAGE_QUERY.replace("CONNECTION", connection).replace("NODES", nodes)


THREADS_QUERY = _page_query(
    "reviewThreads",
    "id isResolved isOutdated resolvedBy { login } comments(first: 1) { nodes { databaseId } }",
)
REVIEW_THUMBS_QUERY = _page_query(
    "reviews",
    "databaseId reactions(content: THUMBS_UP, first: 50) { nodes { createdAt user { login } } }",
)
RESOLVE = (
    "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) "
    "{ thread { id isResolved } } }"
)


@dataclass
class ReviewMemo:
    """GraphQL's last answer for a pull request, and the REST answers it was asked after."""

    basis: str = ""
    checked: float = 0.0
    states: Mapping[int, ThreadState] | None = None
    review_thumbs: Mapping[int, tuple[Endorsement, ...]] | None = None


def states_token(memo: ReviewMemo) -> Hashable:
    """What GraphQL last said of the threads: a wait wakes when it changes."""
    states = memo.states or {}
    return tuple(sorted((k, v.resolved, v.outdated) for k, v in states.items()))


def memo_to_json(memo: ReviewMemo) -> JsonObject:
    """The memo as the shared folder keeps it."""
    states: JsonObject = {
        str(k): {
            "id": s.node_id,
            "resolved": s.resolved,
            "outdated": s.outdated,
            "by": s.resolved_by,
        }
        for k, s in (memo.states or {}).items()
    }
    thumbs: JsonObject = {
        str(k): [{"login": e.by.login, "association": e.by.association, "at": e.at} for e in v]
        for k, v in (memo.review_thumbs or {}).items()
    }
    return {
        "basis": memo.basis,
        "checked": memo.checked,
        "states": states if memo.states is not None else None,
        "thumbs": thumbs,
    }


def memo_from_json(value: JsonObject) -> ReviewMemo:
    """The memo the shared folder kept (what cannot be read is left out)."""
    raw_states = value.get("states")
    states: dict[int, ThreadState] | None = None
    if isinstance(raw_states, dict):
        states = {}
        for key, item in raw_states.items():
            if key.isdigit() and isinstance(item, dict) and isinstance(item.get("id"), str):
                by = item.get("by")
                states[int(key)] = ThreadState(
                    str(item["id"]),
                    item.get("resolved") is True,
                    item.get("outdated") is True,
                    by if isinstance(by, str) else None,
                )
    thumbs: dict[int, tuple[Endorsement, ...]] = {}
    raw_thumbs = value.get("thumbs")
    if isinstance(raw_thumbs, dict):
        for key, items in raw_thumbs.items():
            if key.isdigit() and isinstance(items, list):
                thumbs[int(key)] = tuple(
                    Endorsement(
                        Author(str(i.get("login")), str(i.get("association"))), str(i.get("at"))
                    )
                    for i in items
                    if isinstance(i, dict)
                )
    basis, checked = value.get("basis"), value.get("checked")
    return ReviewMemo(
        basis if isinstance(basis, str) else "",
        float(checked) if isinstance(checked, (int, float)) else 0.0,
        states,
        thumbs,
    )
