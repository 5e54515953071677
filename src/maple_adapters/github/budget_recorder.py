"""The rate budget noted from every GitHub answer into the shared folder, for every process.

Each answer's ``X-RateLimit-*`` headers become a reading per resource, and GitHub's requests to
wait (``Retry-After``, a secondary limit, a spent budget) a backoff; polling then pauses for every
process that shares the folder (:func:`~maple_core.rate_budget.poll_verdict`).
"""

from __future__ import annotations

import time
from typing import Any, Unpack

from maple_adapters.github.shared import SharedCache
from maple_adapters.github.transport import GitHubResponse, GitHubTransport, RequestOptions
from maple_core.json_types import JsonObject
from maple_core.rate_budget import Backoff, RateReading

__all__ = ["BudgetRecorder"]

_RATE_KINDS = ("RATE_LIMIT", "RATE_LIMITED")


class BudgetRecorder:
    """Notes every answer's rate-limit headers, and GitHub's requests to wait, in the cache.

    It sits under :class:`~maple_adapters.github.transport.ResilientTransport`, so it sees the
    answers that transport turns into errors too.
    """

    def __init__(self, inner: GitHubTransport, cache: SharedCache) -> None:
        self.inner = inner
        self._cache = cache

    @property
    def name(self) -> str:
        """The inner transport's name."""
        return self.inner.name

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
        """Send the request and note what its answer says of the budget."""
        response = self.inner.request(method, path, **options)
        self._note(response)
        return response

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """Send the GraphQL request and note what its answer says of the budget."""
        response = self.inner.graphql(query, variables)
        self._note(response)
        return response

    def _note(self, response: GitHubResponse) -> None:
        now = time.time()
        reading = RateReading.from_headers(response.headers, now)
        if reading is not None:
            self._cache.note_reading(reading)
        backoff = _backoff_of(response, reading, now)
        if backoff is not None:
            self._cache.note_backoff(backoff)


def _backoff_of(
    response: GitHubResponse, reading: RateReading | None, now: float
) -> Backoff | None:
    headers = response.headers
    limited = response.status in (403, 429)
    data: Any = response.data
    errors = data.get("errors") if isinstance(data, dict) else None
    spent_graphql = isinstance(errors, list) and any(
        isinstance(e, dict) and e.get("type") in _RATE_KINDS for e in errors
    )
    if limited and "retry-after" in headers:
        try:
            wait = max(float(headers["retry-after"]), 1.0)
        except ValueError:
            wait = 60.0
        return Backoff(now + wait, "a secondary rate limit")
    if (limited or spent_graphql) and reading is not None and reading.remaining == 0:
        return Backoff(reading.reset, f"the {reading.resource} rate limit is spent")
    message = data.get("message") if isinstance(data, dict) else None
    if limited and isinstance(message, str) and "secondary rate limit" in message.lower():
        return Backoff(now + 60.0, "a secondary rate limit")
    return None
