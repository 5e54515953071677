"""The local ``.maple/`` folder: the file comment store, its media, and git discovery.

Names are imported on first use, so the Stop hook loads only git discovery and the records.
"""

from __future__ import annotations

from maple_core.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.files.commits import GitCommits
    from maple_adapters.files.git import GitCheckout, find_checkout
    from maple_adapters.files.media import FileMedia
    from maple_adapters.files.place import LocalPlace, resolve_place, slug, url_slug
    from maple_adapters.files.signal import FileChangeSignal
    from maple_adapters.files.store import FileCommentStore

__all__ = [
    "FileChangeSignal",
    "FileCommentStore",
    "FileMedia",
    "GitCheckout",
    "GitCommits",
    "LocalPlace",
    "find_checkout",
    "resolve_place",
    "slug",
    "url_slug",
]

_HOMES = {
    "FileChangeSignal": "maple_adapters.files.signal",
    "FileCommentStore": "maple_adapters.files.store",
    "FileMedia": "maple_adapters.files.media",
    "GitCheckout": "maple_adapters.files.git",
    "GitCommits": "maple_adapters.files.commits",
    "LocalPlace": "maple_adapters.files.place",
    "find_checkout": "maple_adapters.files.git",
    "resolve_place": "maple_adapters.files.place",
    "slug": "maple_adapters.files.place",
    "url_slug": "maple_adapters.files.place",
}


if not TYPE_CHECKING:  # type checkers see the real imports above
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
