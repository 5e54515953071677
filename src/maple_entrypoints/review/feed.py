"""What ``maple review`` prints while it serves: one line for each comment the reviewer sends.

A thread watches the branch's comments through the store's change signal and writes a line for
each comment it has not seen, so the person (or agent) running ``maple review`` sees comments
arrive without opening the browser or ``.maple/``. Comments already there at the start are not
repeated; an edit, a resolve or a delete prints nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from maple_core.comments import Comment
from maple_core.errors import MapleError
from maple_core.ports import CommentStore
from maple_core.services import list_all
from maple_core.text import capped, one_line

__all__ = ["CommentFeed", "comment_line"]

_BODY_CHARS = 100
_NAME_CHARS = 60
_PATH_CHARS = 120
_ID_CHARS = 60
_WAIT_S = 1.0


def comment_line(comment: Comment) -> str:
    """``comment <id> by <name> on <path>: <body on one line, cut at 100 characters>``.

    An address that does not parse (``http://[oops/cart``) is shown as written, inert.
    """
    author = comment.extra.get("author")
    name = author.get("name") if isinstance(author, dict) else None
    url = comment.context.url if comment.context is not None else None
    where = capped(one_line(_path_of(url)), _PATH_CHARS) if url else None
    body = one_line(comment.body)  # reviewer text: nothing in it may act on the terminal
    if len(body) > _BODY_CHARS:
        body = body[: _BODY_CHARS - 1] + "…"
    shown_name = capped(one_line(name), _NAME_CHARS) if isinstance(name, str) else ""
    by = f" by {shown_name}" if shown_name else ""
    on = f" on {where}" if where else ""
    return f"comment {capped(one_line(comment.id), _ID_CHARS)}{by}{on}: {body}"


def _path_of(url: str) -> str:
    try:
        return urlsplit(url).path or "/"
    except ValueError:  # a bracket that never closes, a port out of range…
        return url


def _shown(comment: Comment) -> str:
    """:func:`comment_line`, or a line saying the comment could not be shown: never a raise."""
    try:
        return comment_line(comment)
    except Exception:  # a record of any shape must never end the feed
        return f"comment {capped(one_line(str(comment.id)), _ID_CHARS)}: (could not be shown)"


class CommentFeed:
    """Writes :func:`comment_line` for each new comment on ``branch`` until :meth:`stop`."""

    def __init__(self, store: CommentStore, branch: str, write: Callable[[str], None]) -> None:
        self._store = store
        self._branch = branch
        self._write = write
        self._stopped = threading.Event()

    def start(self) -> None:
        """Start watching on a daemon thread; the comments there now count as seen."""
        threading.Thread(target=self._run, name="maple-review-feed", daemon=True).start()

    def stop(self) -> None:
        """Stop watching (within a second)."""
        self._stopped.set()

    def _run(self) -> None:
        signal = self._store.changes(self._branch)
        seen: set[str] | None = None
        while not self._stopped.is_set():
            token = signal.token()  # before the read, so a comment landing during it wakes the wait
            try:
                comments = list_all(self._store, self._branch)
            except MapleError:  # a ledger being rewritten or unreadable for now: the next look
                comments = None
            if comments is not None:
                fresh = [c for c in reversed(comments) if seen is not None and c.id not in seen]
                for comment in fresh:
                    self._write(_shown(comment))
                seen = (seen or set()) | {c.id for c in comments}
            signal.wait(token, _WAIT_S)
