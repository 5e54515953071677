"""One GitHub store per caller token: the route server acts with each reviewer's own token."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

from maple_core.ports import CommentStore

__all__ = ["TokenStores"]


class TokenStores:
    """One store per caller token, kept for the next request (at most ``size``).

    Keyed by the token's SHA-256, so the token itself is held only inside its store's transport.

    Args:
        build: makes the store acting with a token.
    """

    def __init__(self, build: Callable[[str], CommentStore], size: int = 128) -> None:
        self._build = build
        self._size = size
        self._stores: OrderedDict[str, CommentStore] = OrderedDict()
        self._lock = threading.Lock()

    def for_token(self, token: str) -> CommentStore:
        """The store acting with ``token``."""
        key = hashlib.sha256(token.encode()).hexdigest()
        with self._lock:
            store = self._stores.get(key)
            if store is None:
                store = self._stores[key] = self._build(token)
            self._stores.move_to_end(key)
            while len(self._stores) > self._size:
                self._stores.popitem(last=False)
        return store
