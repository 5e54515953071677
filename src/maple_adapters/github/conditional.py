"""Conditional requests: every GET asks again with ``If-None-Match``, so no change costs nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Unpack
from urllib.parse import urlencode

from maple_adapters.github.transport import GitHubResponse, GitHubTransport, RequestOptions
from maple_core.json_types import JsonObject

__all__ = ["ConditionalTransport"]


class ConditionalTransport:
    """Remembers each GET's ``ETag`` and asks again with ``If-None-Match``.

    GitHub answers an unchanged resource with ``304``, which does not count against the primary
    rate limit; the remembered answer is returned instead. So a wait that polls, or a listing
    repeated while nothing changed, costs no rate limit after its first request.
    """

    def __init__(self, inner: GitHubTransport, max_entries: int = 256) -> None:
        self.inner = inner
        self._cache: dict[tuple[str, str], tuple[str, GitHubResponse]] = {}
        self._max = max_entries

    @property
    def name(self) -> str:
        """The inner transport's name."""
        return self.inner.name

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
        """Send the request; a GET answered ``304`` returns the remembered answer."""
        if method != "GET":
            return self.inner.request(method, path, **options)
        params = options.get("params")
        key = (path, urlencode(sorted((params or {}).items())))
        cached = self._cache.get(key)
        etag = options.get("etag") or (cached[0] if cached else None)
        response = self.inner.request(method, path, params=params, etag=etag)
        if response.status == 304 and cached is not None:
            # The 304's own headers (a fresh Link, rate-limit counts) win over the remembered ones.
            return replace(cached[1], headers={**cached[1].headers, **response.headers})
        tag = response.headers.get("etag")
        if response.status == 200 and tag:
            if len(self._cache) >= self._max:
                self._cache.clear()
            self._cache[key] = (tag, response)
        return response

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """GraphQL has no ``ETag``: the request goes through as it is."""
        return self.inner.graphql(query, variables)
