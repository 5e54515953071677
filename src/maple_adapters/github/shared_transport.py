"""GitHub's answers shared by every process watching with one token: one refresh per interval.

A GET answered less than the poll interval ago is served from the shared folder
(:class:`~maple_adapters.github.shared.SharedCache`) with no request; whoever asks first after
that refreshes it under the folder's lock, with the kept ``ETag`` (a ``304`` is free against the
rate limit). While the budget says pause, a kept answer stands. A write marks every answer stale.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Unpack
from urllib.parse import urlencode

from maple_adapters.github.shared import KEPT_HEADERS, KeptAnswer, SharedCache
from maple_adapters.github.transport import GitHubResponse, GitHubTransport, RequestOptions
from maple_core.json_types import JsonObject
from maple_core.rate_budget import PollVerdict

__all__ = ["SharedTransport", "answer_key"]


def answer_key(path: str, params: Mapping[str, str | int] | None = None) -> str:
    """The name a GET's answer is kept under: a hash of its path and parameters."""
    text = path + "?" + urlencode(sorted((params or {}).items()))
    return hashlib.sha256(text.encode()).hexdigest()[:40]


class SharedTransport:
    """GETs answered from the shared folder while fresh; one refresh per interval for all.

    Args:
        inner: the transport to send through (resilient, over a :class:`BudgetRecorder`).
        cache: the shared folder.
        max_age: how long an answer stands without asking again: the poll interval.
    """

    def __init__(self, inner: GitHubTransport, cache: SharedCache, max_age: float = 2.0) -> None:
        self.inner = inner
        self.cache = cache
        self._max_age = max_age

    @property
    def name(self) -> str:
        """The inner transport's name."""
        return self.inner.name

    def _fresh(self, answer: KeptAnswer, now: float) -> bool:
        return (
            answer.checked > self.cache.invalidated_at()
            and 0 <= now - answer.checked < self._max_age
        )

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
        """Send a write and mark the answers stale; answer a GET from the folder when fresh."""
        if method != "GET":
            try:
                return self.inner.request(method, path, **options)
            finally:
                self.cache.invalidate()  # even a write that failed may have landed
        params, etag = options.get("params"), options.get("etag")
        key = answer_key(path, params)
        kept = self.cache.answer(key)
        if kept is not None and (self._fresh(kept, time.time()) or self._paused(kept)):
            return kept.response
        with self.cache.locked(f"a-{key}"):
            kept = self.cache.answer(key)
            sent = time.time()
            if kept is not None and self._fresh(kept, sent):
                return kept.response  # another process refreshed it meanwhile
            asked = etag or (kept.etag if kept is not None else None)
            response = self.inner.request("GET", path, params=params, etag=asked)
            if response.status == 304 and kept is not None:
                merged = replace(
                    kept.response, headers={**kept.response.headers, **response.headers}
                )
                if any(merged.headers.get(k) != kept.response.headers.get(k) for k in KEPT_HEADERS):
                    self.cache.keep(
                        key, replace(merged, headers={**merged.headers, "etag": kept.etag}), sent
                    )
                else:  # the same page: only its check time moves
                    self.cache.checked(key, kept.etag, sent)
                return merged
            if response.status == 200 and response.headers.get("etag"):
                self.cache.keep(key, response, sent)
            return response

    def _paused(self, kept: KeptAnswer) -> bool:
        """Polling pauses (the kept answer stands) unless a write made it stale."""
        return kept.checked > self.cache.invalidated_at() and not self.cache.verdict().poll

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """GraphQL goes through; a mutation marks the answers stale."""
        try:
            return self.inner.graphql(query, variables)
        finally:
            if _is_mutation(query):
                self.cache.invalidate()

    def verdict(self, resource: str = "core") -> PollVerdict:
        """Whether polling may go on now, and if not until when and why."""
        return self.cache.verdict(resource)


def _is_mutation(query: str) -> bool:
    return query.lstrip().startswith("mutation")
