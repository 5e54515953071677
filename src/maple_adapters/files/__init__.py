"""The local ``.maple/`` folder: the file comment store, its media, and git discovery."""

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
