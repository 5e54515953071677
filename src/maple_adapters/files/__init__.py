"""The local ``.maple/`` folder: the file comment store, its media, and git discovery.

Names are imported on first use, so the Stop hook loads only git discovery and the records.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
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
    "LocalPlace": "maple_adapters.files.place",
    "find_checkout": "maple_adapters.files.git",
    "resolve_place": "maple_adapters.files.place",
    "slug": "maple_adapters.files.place",
    "url_slug": "maple_adapters.files.place",
}


if not TYPE_CHECKING:  # type checkers see the real imports above

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(__import__(home, fromlist=[name]), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(__all__)
