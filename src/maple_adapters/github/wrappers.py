"""Every GitHub transport is used through this wrapper: bounded retries and clear errors.

``ResilientTransport`` bounds retries, waits out a short rate limit and names the fix in every
error, scrubbed of the tokens it was given (under it, every GET is conditional:
:class:`~maple_adapters.github.conditional.ConditionalTransport`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Unpack

from maple_adapters.github.transport import (
    GitHubError,
    GitHubGraphQLError,
    GitHubResponse,
    GitHubTransport,
    GitHubUnavailableError,
    RequestOptions,
)
from maple_core.json_types import JsonObject
from maple_core.text import capped, one_line, scrub

__all__ = [
    "ResilientTransport",
]


_RATE_KINDS = frozenset({"RATE_LIMIT", "RATE_LIMITED"})


def _graphql_error(response: GitHubResponse) -> tuple[str | None, str]:
    """A ``200`` GraphQL answer's first error: its ``type`` (``ERROR`` when untyped), message."""
    data = response.data
    errors = data.get("errors") if isinstance(data, dict) and response.status == 200 else None
    if not isinstance(errors, list) or not errors:
        return None, ""
    first = errors[0] if isinstance(errors[0], dict) else {}
    kind, message = first.get("type"), first.get("message")
    return (
        kind if isinstance(kind, str) and kind else "ERROR",
        message if isinstance(message, str) else "no message",
    )


def _message(response: GitHubResponse) -> str:
    """GitHub's (or a proxy's) message as it came; show it through :func:`_shown`."""
    data = response.data
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    kind, message = _graphql_error(response)
    if kind is not None:
        return f"{kind}: {message}"
    if isinstance(data, str) and data.strip():
        return data
    return "no message"


def _shown(text: str) -> str:
    """Another server's words as one capped line (scrub secrets first: a cut can split one)."""
    return capped(one_line(text), 300)


_HINTS = {
    401: "GitHub did not accept the credentials: check GITHUB_TOKEN, or run `gh auth login`.",
    404: "Check MAPLE_GITHUB_OWNER, MAPLE_GITHUB_REPO and that the token can see the repository.",
}


class ResilientTransport:
    """Wraps a transport with bounded retries, rate-limit handling and clear errors.

    5xx answers and network failures are retried (3 attempts in all, backoff 0.25 s then
    0.5 s, jittered). A 403 or 429 rate limit waits out ``Retry-After`` or the reset time when
    that is at most ``max_wait_s`` away, once; otherwise it fails naming the reset time. Other
    4xx answers fail at once with GitHub's message and a hint.
    """

    def __init__(
        self,
        inner: GitHubTransport,
        *,
        attempts: int = 3,
        max_wait_s: float = 10.0,
        secrets: Sequence[str] = (),
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.inner = inner
        self._attempts = attempts
        self._max_wait_s = max_wait_s
        self._secrets = [s for s in secrets if s]
        self._sleep = sleep
        self._now = now

    @property
    def name(self) -> str:
        """The inner transport's name."""
        return self.inner.name

    def _scrub(self, text: str) -> str:
        return scrub(text, self._secrets)

    def _rate_wait(self, response: GitHubResponse) -> float | None:
        """Seconds to wait for a rate limit, or ``None`` when this is not one.

        A 403 or 429 with ``Retry-After`` (a secondary limit) waits that long; one with no
        requests remaining waits until the reset; a secondary limit without either waits a
        minute, as GitHub asks. A GraphQL ``RATE_LIMIT`` error (answered ``200``) waits until the
        reset too.
        """
        headers = response.headers
        if response.status not in (403, 429) and _graphql_error(response)[0] not in _RATE_KINDS:
            return None
        if "retry-after" in headers:
            try:
                return max(float(headers["retry-after"]), 0.0)
            except ValueError:
                return 60.0
        if headers.get("x-ratelimit-remaining") == "0" or response.status == 200:
            try:
                return max(float(headers.get("x-ratelimit-reset", "0")) - self._now(), 0.0)
            except ValueError:
                return 3600.0
        if "secondary rate limit" in _message(response).lower():
            return 60.0
        return None

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
        """Send the request, retrying what is worth retrying; raise on what is not.

        Raises:
            GitHubError: GitHub refused the request (4xx), or kept failing (5xx).
            GitHubUnavailableError: GitHub could not be reached.
        """
        return self._send(method, path, lambda: self.inner.request(method, path, **options))

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """Send a GraphQL request as :meth:`request` sends a REST one; its ``errors`` raise.

        Raises:
            GitHubGraphQLError: the answer carries errors (``NOT_FOUND``, ``FORBIDDEN``...).
            GitHubError: GitHub refused the request, or its rate limit is spent for longer than
                this transport waits.
            GitHubUnavailableError: GitHub could not be reached.
        """
        response = self._send("POST", "graphql", lambda: self.inner.graphql(query, variables))
        kind, message = _graphql_error(response)
        if kind is not None:
            raise GitHubGraphQLError(kind, _shown(self._scrub(message)))
        return response

    def _send(self, method: str, path: str, send: Callable[[], GitHubResponse]) -> GitHubResponse:
        waited = False
        for attempt in range(1, self._attempts + 1):
            try:
                response = send()
            except GitHubUnavailableError as exc:
                if attempt == self._attempts:
                    raise GitHubUnavailableError(self._scrub(str(exc))) from None
                self._backoff(attempt)
                continue
            wait = self._rate_wait(response)
            if response.status < 400 and wait is None:
                return response
            if wait is not None:
                if waited or wait > self._max_wait_s or attempt == self._attempts:
                    reset = time.strftime("%H:%M:%S UTC", time.gmtime(self._now() + wait))
                    raise GitHubError(
                        response.status,
                        path,
                        _shown(self._scrub(_message(response))),
                        f"GitHub's rate limit resets at {reset}; try again then.",
                        rate_limited=True,
                    )
                waited = True
                self._sleep(wait)
                continue
            if response.status >= 500 and attempt < self._attempts:
                self._backoff(attempt)
                continue
            raise GitHubError(
                response.status,
                path,
                _shown(self._scrub(_message(response))),
                _HINTS.get(response.status, ""),
            )
        raise GitHubUnavailableError(f"GitHub kept failing on {method} {path}.")

    def _backoff(self, attempt: int) -> None:
        self._sleep(0.25 * 2 ** (attempt - 1) * (0.5 + random.random()))
