"""GitHub's review JSON (REST and GraphQL) read into the core's values, and nothing else.

Pure functions over what the API answered: every field is type-checked, anything missing or
mistyped reads as absent, and a link is kept only when it is the pull request's own page on the
expected host (``https://<host>/<owner>/<repo>/pull/<n>#…``), so nothing a comment carries can
point maple, the gate's summary or the agent elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from maple_adapters.github.claim_notes import looks_like_note
from maple_core.json_types import JsonObject, JsonValue
from maple_core.own_posts import own_mark
from maple_core.pull_review import Note, Review, ReviewState, Thread
from maple_core.trust import Author, Endorsement

__all__ = [
    "PullWhere",
    "ThreadState",
    "author_of",
    "conversation_of",
    "reviews_of",
    "thread_states_of",
    "threads_of",
    "web_host",
]

_FRAGMENT = re.compile(r"(discussion_r|pullrequestreview-|issuecomment-)[0-9]{1,20}")
_LEDGER_FENCE = "```maple"


def web_host(api_url: str | None) -> str:
    """Where people see the repository: ``api.github.com`` → ``github.com``, GHES as it is."""
    host = urlsplit(api_url).netloc if api_url else ""
    return "github.com" if host in ("", "api.github.com") else host


@dataclass(frozen=True, slots=True)
class ThreadState:
    """What only GraphQL says of a thread: its id, resolution and whether it is outdated."""

    node_id: str
    resolved: bool
    outdated: bool
    resolved_by: str | None


def _str(obj: Mapping[str, JsonValue], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def _int(obj: Mapping[str, JsonValue], key: str) -> int | None:
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def author_of(obj: Mapping[str, JsonValue]) -> Author:
    """A REST object's author (``user`` and ``author_association``)."""
    user = obj.get("user")
    user = user if isinstance(user, dict) else {}
    return Author.of(
        _str(user, "login") or "ghost", _str(obj, "author_association"), _str(user, "type")
    )


def _link(value: str | None, host: str, owner: str, repo: str, pull: int) -> str | None:
    """``value`` when it is the pull request's own page on ``host`` with a known anchor."""
    if value is None:
        return None
    parts = urlsplit(value)
    expected = f"/{owner}/{repo}/pull/{pull}".lower()
    if (
        parts.scheme != "https"
        or parts.netloc.lower() != host.lower()
        or parts.path.lower() != expected
        or parts.query
        or not _FRAGMENT.fullmatch(parts.fragment)
    ):
        return None
    return value


@dataclass(frozen=True, slots=True)
class PullWhere:
    """The pull request a listing belongs to, and maple's own logins (lowercased)."""

    host: str
    owner: str
    repo: str
    pull: int
    own: frozenset[str] = frozenset()


def _note(
    obj: Mapping[str, JsonValue],
    where: PullWhere,
    thumbs: Mapping[int, tuple[Endorsement, ...]],
    at_key: str = "created_at",
) -> Note | None:
    number = _int(obj, "id")
    created = _str(obj, at_key)
    if number is None or created is None:
        return None
    author = author_of(obj)
    body = _str(obj, "body") or ""
    own = own_mark(body) if author.login.lower() in where.own else None
    return Note(
        id=number,
        author=author,
        body=body,
        created_at=created,
        updated_at=_str(obj, "updated_at") or created,
        url=_link(_str(obj, "html_url"), where.host, where.owner, where.repo, where.pull),
        endorsements=thumbs.get(number, ()),
        own=own,
    )


def threads_of(
    comments: Iterable[JsonValue],
    states: Mapping[int, ThreadState],
    where: PullWhere,
    *,
    thumbs: Mapping[int, tuple[Endorsement, ...]] | None = None,
) -> tuple[Thread, ...]:
    """The threads in a pull request's REST review comments, with GraphQL's states.

    A reply belongs to the thread of its ``in_reply_to_id`` (GitHub does not nest replies); a
    thread GraphQL did not describe reads as unresolved, with no GraphQL id.
    """
    roots: dict[int, JsonObject] = {}
    notes: dict[int, list[Note]] = {}
    for raw in comments:
        if not isinstance(raw, dict):
            continue
        note = _note(raw, where, thumbs or {})
        if note is None:
            continue
        root = _int(raw, "in_reply_to_id")
        key = root if root is not None else note.id
        if root is None or key not in roots:  # a reply stands in for a deleted first comment
            roots[key] = raw
        notes.setdefault(key, []).append(note)
    threads = []
    for key, listed in notes.items():
        first = roots.get(key, {})
        state = states.get(key)
        line, original = _int(first, "line"), _int(first, "original_line")
        listed.sort(key=lambda n: (n.id != key, n.created_at, n.id))
        threads.append(
            Thread(
                root=key,
                notes=tuple(listed),
                path=_str(first, "path") or "",
                line=line,
                original_line=original,
                diff_hunk=_str(first, "diff_hunk") or "",
                node_id=state.node_id if state else None,
                resolved=state.resolved if state else False,
                resolved_by=state.resolved_by if state else None,
                outdated=state.outdated if state else line is None,
            )
        )
    threads.sort(key=lambda t: t.root)
    return tuple(threads)


def _noted(
    items: Iterable[JsonValue],
    where: PullWhere,
    thumbs: Mapping[int, tuple[Endorsement, ...]] | None,
    keep: Callable[[Mapping[str, JsonValue]], bool],
    at_key: str = "created_at",
) -> Iterator[tuple[Mapping[str, JsonValue], Note]]:
    """Each item ``keep`` takes, with the note it reads as (one that reads as none left out)."""
    for raw in items:
        if isinstance(raw, dict) and keep(raw):
            note = _note(raw, where, thumbs or {}, at_key=at_key)
            if note is not None:
                yield raw, note


def _submitted(raw: Mapping[str, JsonValue]) -> bool:
    state = _str(raw, "state")
    return state is not None and state in ReviewState.__members__


def _conversational(raw: Mapping[str, JsonValue]) -> bool:
    body = _str(raw, "body") or ""
    return _LEDGER_FENCE not in body and not looks_like_note(body)


def reviews_of(
    reviews: Iterable[JsonValue],
    where: PullWhere,
    *,
    thumbs: Mapping[int, tuple[Endorsement, ...]] | None = None,
) -> tuple[Review, ...]:
    """The submitted reviews (a ``PENDING`` one, maple's own draft even, is never read)."""
    return tuple(
        Review(note, ReviewState(str(raw["state"])), _str(raw, "commit_id"))
        for raw, note in _noted(reviews, where, thumbs, _submitted, at_key="submitted_at")
    )


def conversation_of(
    comments: Iterable[JsonValue],
    where: PullWhere,
    *,
    thumbs: Mapping[int, tuple[Endorsement, ...]] | None = None,
) -> tuple[Note, ...]:
    """The conversation's comments, ledgers (anyone's ``maple`` block) and claim notes left out."""
    return tuple(note for _, note in _noted(comments, where, thumbs, _conversational))


def thread_states_of(nodes: Sequence[JsonValue]) -> dict[int, ThreadState]:
    """GraphQL ``reviewThreads`` nodes, by their first comment's ``databaseId``."""
    states: dict[int, ThreadState] = {}
    for node in nodes:
        if not isinstance(node, dict):
            continue
        comments = node.get("comments")
        first = comments.get("nodes") if isinstance(comments, dict) else None
        root = first[0] if isinstance(first, list) and first else None
        number = _int(root, "databaseId") if isinstance(root, dict) else None
        node_id = _str(node, "id")
        if number is None or node_id is None:
            continue
        by = node.get("resolvedBy")
        states[number] = ThreadState(
            node_id,
            node.get("isResolved") is True,
            node.get("isOutdated") is True,
            _str(by, "login") if isinstance(by, dict) else None,
        )
    return states
