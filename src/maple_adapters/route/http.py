"""Talking to a deployed Maple route over HTTP: one bounded client, the token kept out of text."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx

from maple_core.json_types import JsonValue
from maple_core.text import capped, one_line, scrub

__all__ = ["RouteAnswer", "RouteHttp", "RouteUnreachableError"]

TIMEOUT_S = 10.0
_RETRY_STATUSES = frozenset({502, 503, 504})
_BACKOFF_S = (0.1, 0.2)
_ERROR_LIMIT = 300


class RouteUnreachableError(Exception):
    """The route could not be reached, or kept failing, within the time allowed."""


@contextmanager
def _reaching(endpoint: str) -> Iterator[None]:
    """The adapter's one translation of httpx's failures: :class:`RouteUnreachableError`.

    It names the endpoint and the failure's kind, not its text. A URL httpx cannot send to
    (a control character, an over-long host that the IDNA codec refuses) fails here too, not
    as httpx's own exception.
    """
    try:
        yield
    except (httpx.HTTPError, httpx.InvalidURL, UnicodeError) as exc:
        raise RouteUnreachableError(
            f"{endpoint} could not be reached: {type(exc).__name__}"
        ) from None


class RouteAnswer:
    """One answer from the route: status, headers and the JSON body (``None`` if not JSON)."""

    def __init__(
        self, endpoint: str, response: httpx.Response, secrets: Sequence[str] = ()
    ) -> None:
        self.endpoint = endpoint
        self._secrets = secrets
        self.status = response.status_code
        self.headers = response.headers
        self.reason = response.reason_phrase
        try:
            self.data: JsonValue = json.loads(response.content) if response.content else None
        except ValueError:
            self.data = None

    @property
    def ok(self) -> bool:
        """True for a 2xx answer."""
        return 200 <= self.status < 300

    @property
    def error(self) -> str:
        """The route's ``error`` string, else the HTTP status text.

        The route's words are another server's: shown as one capped line, never with the token.
        """
        if isinstance(self.data, dict) and isinstance(self.data.get("error"), str):
            said = str(self.data["error"])
        else:
            said = self.reason or f"HTTP {self.status}"
        return capped(one_line(scrub(said, self._secrets)), _ERROR_LIMIT)

    def describe(self) -> str:
        """``<endpoint> answered <status>: <error>.`` (Maple's wording)."""
        return f"{self.endpoint} answered {self.status}: {self.error.rstrip('.')}."


class RouteHttp:
    """Requests to one route mount URL (``MAPLE_URL``), with the caller's bearer token when set.

    Reads and idempotent writes are tried up to three times on network failures and 502/503/504;
    a ``POST`` is sent once, since it is not idempotent.
    """

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = TIMEOUT_S,
        verify: bool | str = True,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base = url.rstrip("/")
        self._token = token
        headers = {"accept": "application/json", "user-agent": "maple-kit"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self._client = httpx.Client(
            headers=headers,
            timeout=timeout,
            verify=verify,
            transport=transport,
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"RouteHttp({self.base!r}, token={'***' if self._token else None})"

    def endpoint(self, path: str) -> str:
        """The absolute URL of ``path`` under the mount."""
        return self.base + path

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: JsonValue = None,
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> RouteAnswer:
        """Send one request; raise :class:`RouteUnreachableError` when no answer came back."""
        endpoint = self.endpoint(path)
        attempts = 1 if method == "POST" else 1 + len(_BACKOFF_S)
        extra = dict(headers or {})
        payload = content
        if body is not None:
            payload = json.dumps(body).encode()  # ASCII: a lone surrogate travels escaped
            extra.setdefault("content-type", "application/json")
        failure = ""
        for attempt in range(attempts):
            if attempt:
                time.sleep(_BACKOFF_S[attempt - 1])
            try:
                with _reaching(endpoint):
                    response = self._client.request(
                        method, endpoint, params=params, content=payload, headers=extra
                    )
            except RouteUnreachableError as exc:
                failure = str(exc)
                continue
            answer = RouteAnswer(endpoint, response, [self._token] if self._token else [])
            if answer.status not in _RETRY_STATUSES or attempt == attempts - 1:
                return answer
            failure = answer.describe()
        raise RouteUnreachableError(scrub(failure, [self._token] if self._token else []))

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()
