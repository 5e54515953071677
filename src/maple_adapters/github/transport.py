"""Two ways to reach GitHub's REST and GraphQL APIs: PyGithub (``api``) and ``gh`` (``cli``).

Both answer two calls, :meth:`GitHubTransport.request` (REST) and
:meth:`GitHubTransport.graphql`, with the status, headers and JSON body, so the stores and the
gate publisher are written once. :class:`ResilientTransport` adds what both need: a timeout on
every request, bounded retries of 5xx and network failures, ``Retry-After`` and rate-limit
resets honoured, GraphQL's errors raised as errors, and messages that name the fix and never a
token.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit

from maple_core.errors import MapleError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.text import capped, one_line, scrub

__all__ = [
    "ConditionalTransport",
    "GhCliTransport",
    "GitHubError",
    "GitHubGraphQLError",
    "GitHubResponse",
    "GitHubTransport",
    "GitHubUnavailableError",
    "PyGithubTransport",
    "ResilientTransport",
    "host_of",
]

ACCEPT = "application/vnd.github+json"
API_VERSION = "2022-11-28"
TIMEOUT_S = 10.0


class GitHubError(MapleError):
    """Raised when GitHub answers with an error status; ``status`` says which."""

    def __init__(
        self, status: int, path: str, message: str, hint: str = "", *, rate_limited: bool = False
    ) -> None:
        text = f"GitHub {status} on {path}: {message}"
        super().__init__(f"{text} {hint}".strip())
        self.status = status
        self.path = path
        self.rate_limited = rate_limited

    @property
    def rejected(self) -> bool:
        """True when asking again will not help: a 4xx that is not a rate limit."""
        return 400 <= self.status < 500 and not self.rate_limited


class GitHubGraphQLError(GitHubError):
    """Raised when a GraphQL answer carries ``errors``; ``kind`` is GitHub's error ``type``.

    GitHub answers such errors with ``200``; ``status`` is the REST status that means the same
    (``NOT_FOUND`` 404, ``FORBIDDEN`` 403, anything else 422), so ``rejected`` reads alike.
    """

    def __init__(self, kind: str, message: str, *, rate_limited: bool = False) -> None:
        status = {"NOT_FOUND": 404, "FORBIDDEN": 403}.get(kind, 429 if rate_limited else 422)
        super().__init__(status, "graphql", f"{kind}: {message}", rate_limited=rate_limited)
        self.kind = kind


class GitHubUnavailableError(MapleError):
    """Raised when GitHub could not be reached, or kept failing, within the time allowed."""


@dataclass(frozen=True, slots=True)
class GitHubResponse:
    """One answer: status, headers (lower-case names) and the parsed JSON body."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    data: JsonValue = None


class GitHubTransport(Protocol):
    """Sends one REST request to GitHub. Implemented by the ``api`` and ``cli`` transports."""

    @property
    def name(self) -> str:
        """``api`` or ``cli``."""
        ...

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        body: JsonObject | None = None,
        etag: str | None = None,
    ) -> GitHubResponse:
        """Send ``method path`` (a path such as ``/repos/o/r/pulls``) and return the answer."""
        ...

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """POST one GraphQL request; the answer's ``data`` is the whole body (data and errors)."""
        ...


def _parse_body(text: str | bytes) -> JsonValue:
    if not text:
        return None
    try:
        value: JsonValue = json.loads(text)
    except ValueError:
        return text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return value


@contextmanager
def _reaching(method: str, path: str, gh: str | None = None) -> Iterator[None]:
    """Turn a library's failure to reach GitHub into :class:`GitHubUnavailableError`, here only.

    PyGithub's requests raise connection errors, timeouts and TLS failures; running ``gh``
    (named by ``gh``) raises ``FileNotFoundError`` when it is not installed and
    ``TimeoutExpired``. Maple's own errors pass through.
    """
    try:
        yield
    except MapleError:
        raise
    except Exception as exc:
        raise GitHubUnavailableError(_unreachable(exc, method, path, gh)) from None


def _unreachable(exc: Exception, method: str, path: str, gh: str | None) -> str:
    if gh is not None and isinstance(exc, FileNotFoundError):
        return (
            f"The gh CLI ({gh}) is not installed. Install it, or set GITHUB_TOKEN and "
            "MAPLE_GITHUB_TRANSPORT=api to use the REST API directly."
        )
    if isinstance(exc, subprocess.TimeoutExpired):
        return f"gh api {method} {path} did not answer within {TIMEOUT_S:.0f} s."
    return f"GitHub could not be reached for {method} {path}: {type(exc).__name__}."


def host_of(api_url: str | None) -> str | None:
    """The ``gh`` host for an API root: ``https://ghe.example/api/v3`` → ``ghe.example``."""
    if not api_url:
        return None
    parts = urlsplit(api_url)
    return parts.netloc or None


class PyGithubTransport:
    """The REST API through PyGithub's requester (``MAPLE_GITHUB_TRANSPORT=api``).

    Args:
        token: the token to send; kept only inside PyGithub's authentication.
        base_url: the API root (``MAPLE_GITHUB_API``), default ``https://api.github.com``.
        verify: TLS verification, or the path of a CA bundle.
    """

    def __init__(
        self,
        token: str | None,
        base_url: str | None = None,
        verify: bool | str = True,
        *,
        auth: Any = None,
    ) -> None:
        from github import Auth, Github

        self._github = Github(
            auth=auth if auth is not None else Auth.Token(token or ""),
            base_url=base_url or "https://api.github.com",
            timeout=int(TIMEOUT_S),
            retry=None,
            verify=verify,
            user_agent="maple-kit",
            # PyGithub spaces requests 0.25 s apart (writes 1 s) by default; maple makes a few
            # requests per action and meets secondary limits through ResilientTransport instead.
            seconds_between_requests=None,
            seconds_between_writes=None,
        )

    @classmethod
    def for_github_app(
        cls,
        app_id: str,
        private_key: str,
        installation_id: int,
        base_url: str | None = None,
        verify: bool | str = True,
    ) -> PyGithubTransport:
        """A transport acting as a GitHub App installation.

        PyGithub signs the App's JWT with ``private_key`` (PEM text), exchanges it for an
        installation token, and mints a new one shortly before each expires.
        """
        from github import Auth

        app = Auth.AppAuth(app_id, private_key)
        return cls(None, base_url, verify, auth=app.get_installation_auth(installation_id))

    @property
    def name(self) -> str:
        """``api``."""
        return "api"

    def __repr__(self) -> str:
        return "PyGithubTransport(token=***)"

    def close(self) -> None:
        """Close its pooled connections; a later request opens new ones."""
        self._github.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        body: JsonObject | None = None,
        etag: str | None = None,
    ) -> GitHubResponse:
        """Send the request through PyGithub; network failures raise ``GitHubUnavailableError``."""
        headers = {"Accept": ACCEPT, "X-GitHub-Api-Version": API_VERSION}
        if etag:
            headers["If-None-Match"] = etag
        with _reaching(method, path):
            status, answer_headers, text = self._github.requester.requestJson(
                method, path, parameters=dict(params or {}), headers=headers, input=body
            )
        lowered = {k.lower(): v for k, v in answer_headers.items()}
        return GitHubResponse(status, lowered, _parse_body(text))

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """POST to the GraphQL endpoint beside the REST root (``/api/graphql`` on Enterprise)."""
        requester = self._github.requester
        body: JsonObject = {"query": query, "variables": variables or {}}
        headers = {"Accept": "application/json"}
        with _reaching("POST", "graphql"):
            status, answer_headers, text = requester.requestJson(
                "POST", requester.graphql_url, headers=headers, input=body
            )
        lowered = {k.lower(): v for k, v in answer_headers.items()}
        return GitHubResponse(status, lowered, _parse_body(text))


Runner = Callable[..., "subprocess.CompletedProcess[bytes]"]


class GhCliTransport:
    """The REST API through ``gh api`` (``MAPLE_GITHUB_TRANSPORT=cli``): gh's own sign-in.

    Args:
        host: the GitHub host (from ``MAPLE_GITHUB_API``); ``None`` for github.com.
        env: extra environment for ``gh`` (tests give a private ``GH_CONFIG_DIR``).
        executable: the ``gh`` binary.
    """

    def __init__(
        self,
        host: str | None = None,
        env: Mapping[str, str] | None = None,
        executable: str = "gh",
        runner: Runner = subprocess.run,
    ) -> None:
        self._env = {**os.environ, **(env or {}), "GH_PROMPT_DISABLED": "1", "NO_COLOR": "1"}
        if host:
            # GH_HOST, not --hostname: gh's flag refuses a host with a port (GHE on :8443).
            self._env["GH_HOST"] = host
        self._executable = executable
        self._runner = runner

    @property
    def name(self) -> str:
        """``cli``."""
        return "cli"

    def _command(self, method: str, url: str, etag: str | None, has_body: bool) -> list[str]:
        command = [self._executable, "api", "-i", "--method", method, url]
        command += ["-H", f"Accept: {ACCEPT}", "-H", f"X-GitHub-Api-Version: {API_VERSION}"]
        if etag:
            command += ["-H", f"If-None-Match: {etag}"]
        if has_body:
            command += ["--input", "-"]
        return command

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        body: JsonObject | None = None,
        etag: str | None = None,
    ) -> GitHubResponse:
        """Run ``gh api -i`` and read its status line, headers and body.

        ``gh`` exits non-zero for any status of 300 and above (304 included), so the status
        line, not the exit code, says how the request went.
        """
        url = path.lstrip("/") + (f"?{urlencode(dict(params))}" if params else "")
        payload = json.dumps(body).encode() if body is not None else None
        with _reaching(method, path, gh=self._executable):
            done = self._runner(
                self._command(method, url, etag, payload is not None),
                input=payload,
                capture_output=True,
                env=self._env,
                timeout=TIMEOUT_S,
                check=False,
            )
        return _parse_gh_output(done.stdout, done.stderr, method, path)

    def graphql(self, query: str, variables: JsonObject | None = None) -> GitHubResponse:
        """Run ``gh api graphql -i`` with the request as its body.

        The body goes on stdin as JSON (``--input -``), so a variable's value is never read as a
        ``gh`` flag or a file name (``-F key=@file`` would read one).
        """
        payload = json.dumps({"query": query, "variables": variables or {}}).encode()
        command = [self._executable, "api", "-i", "graphql", "--input", "-"]
        with _reaching("POST", "graphql", gh=self._executable):
            done = self._runner(
                command,
                input=payload,
                capture_output=True,
                env=self._env,
                timeout=TIMEOUT_S,
                check=False,
            )
        return _parse_gh_output(done.stdout, done.stderr, "POST", "graphql")


def _parse_gh_output(stdout: bytes, stderr: bytes, method: str, path: str) -> GitHubResponse:
    head, _, rest = stdout.partition(b"\r\n\r\n")
    if not rest and b"\n\n" in stdout:
        head, _, rest = stdout.partition(b"\n\n")
    lines = head.decode("latin-1").splitlines()
    if not lines or not lines[0].startswith("HTTP/"):
        reason = stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitHubUnavailableError(
            f"gh api {method} {path} gave no HTTP answer: {reason[0] if reason else 'no output'}"
        )
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return GitHubResponse(status, headers, _parse_body(rest))


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

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        body: JsonObject | None = None,
        etag: str | None = None,
    ) -> GitHubResponse:
        """Send the request, retrying what is worth retrying; raise on what is not.

        Raises:
            GitHubError: GitHub refused the request (4xx), or kept failing (5xx).
            GitHubUnavailableError: GitHub could not be reached.
        """
        return self._send(
            method,
            path,
            lambda: self.inner.request(method, path, params=params, body=body, etag=etag),
        )

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

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int] | None = None,
        body: JsonObject | None = None,
        etag: str | None = None,
    ) -> GitHubResponse:
        """Send the request; a GET answered ``304`` returns the remembered answer."""
        if method != "GET":
            return self.inner.request(method, path, params=params, body=body, etag=etag)
        key = (path, urlencode(sorted((params or {}).items())))
        cached = self._cache.get(key)
        response = self.inner.request(
            method, path, params=params, etag=etag or (cached[0] if cached else None)
        )
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
