"""Two ways to reach GitHub's REST and GraphQL APIs: PyGithub (``api``) and ``gh`` (``cli``).

Both answer two calls, :meth:`GitHubTransport.request` (REST) and
:meth:`GitHubTransport.graphql`, with the status, headers and JSON body, so the stores and the
gate publisher are written once. The wrappers in :mod:`maple_adapters.github.wrappers` add what
both need: a timeout on every request, bounded retries of 5xx and network failures,
``Retry-After`` and rate-limit resets honoured, GraphQL's errors raised as errors, and messages
that name the fix and never a token.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, Unpack
from urllib.parse import urlencode, urlsplit

from maple_core.errors import MapleError
from maple_core.json_types import JsonObject, JsonValue

__all__ = [
    "GhCliTransport",
    "GitHubError",
    "GitHubGraphQLError",
    "GitHubResponse",
    "GitHubTransport",
    "GitHubUnavailableError",
    "PyGithubTransport",
    "RequestOptions",
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


class RequestOptions(TypedDict, total=False):
    """What a request may carry besides its method and path."""

    params: Mapping[str, str | int] | None
    """The query string."""
    body: JsonObject | None
    """The JSON body."""
    etag: str | None
    """An ``ETag`` the answer is asked for only if it changed (``If-None-Match``)."""


class GitHubTransport(Protocol):
    """Sends one REST request to GitHub. Implemented by the ``api`` and ``cli`` transports."""

    @property
    def name(self) -> str:
        """``api`` or ``cli``."""
        ...

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
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

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
        """Send the request through PyGithub; network failures raise ``GitHubUnavailableError``."""
        headers = {"Accept": ACCEPT, "X-GitHub-Api-Version": API_VERSION}
        if etag := options.get("etag"):
            headers["If-None-Match"] = etag
        parameters = dict(options.get("params") or {})
        with _reaching(method, path):
            status, answer_headers, text = self._github.requester.requestJson(
                method, path, parameters=parameters, headers=headers, input=options.get("body")
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

    def request(self, method: str, path: str, **options: Unpack[RequestOptions]) -> GitHubResponse:
        """Run ``gh api -i`` and read its status line, headers and body.

        ``gh`` exits non-zero for any status of 300 and above (304 included), so the status
        line, not the exit code, says how the request went.
        """
        params, body = options.get("params"), options.get("body")
        url = path.lstrip("/") + (f"?{urlencode(dict(params))}" if params else "")
        payload = json.dumps(body).encode() if body is not None else None
        with _reaching(method, path, gh=self._executable):
            done = self._runner(
                self._command(method, url, options.get("etag"), payload is not None),
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
