"""A fake GitHub REST and GraphQL API on 127.0.0.1 that behaves as GitHub documents.

It serves the endpoints maple uses under ``/api/v3`` and GraphQL at ``/api/graphql`` (as GitHub
Enterprise Server does, so the real ``gh`` reaches it with ``GH_HOST``), over HTTPS with a
throwaway CA. It checks the token, pages with ``Link`` headers, answers ``If-None-Match`` with
``304`` (which does not count against the rate limit), keeps the REST and GraphQL rate limits
apart and sends their headers, answers a spent limit with GitHub's 403 (REST) or ``RATE_LIMIT``
error (GraphQL), and can be told to fail. Pull-request reviews are in ``fake_reviews`` (REST) and
``fake_graphql``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import trustme
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.github.fake_graphql import execute as execute_graphql
from tests.github.fake_reviews import PullReviews, Thread
from tests.loopback import serve_asgi

PREFIX = "/api/v3"
RATE_LIMIT = 5000
BODY_LIMIT = 65536
"""The longest issue comment body GitHub takes, counted after JSON escaping."""


def too_long(body: str) -> bool:
    """Whether GitHub refuses ``body``: its length once JSON-escaped (a quote or a line break
    costs two characters, a control character six) is over :data:`BODY_LIMIT`."""
    return len(json.dumps(body, ensure_ascii=False)) - 2 > BODY_LIMIT


DEFAULT_LOGIN = "maple-bot"
"""The user behind every token the fake was not told a login for (a MEMBER of acme/web)."""


@dataclass
class Pull:
    number: int
    head_ref: str
    head_sha: str
    state: str = "open"
    updated_at: str = "2026-01-01T00:00:00Z"
    commits: list[str] = field(default_factory=list)  # oldest first; the head is the last
    author: str = "dana"
    author_type: str = "User"  # "Bot" for a pull request a bot opened
    head_repo: str = "acme/web"  # another for a fork's pull request


@dataclass
class Fault:
    """Answer ``status`` to requests whose method and path match, ``times`` times."""

    method: str
    path_contains: str
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    exact: bool = False  # match the whole path, not a part of it

    def matches(self, method: str, path: str) -> bool:
        if self.times <= 0 or method != self.method:
            return False
        return path.endswith(self.path_contains) if self.exact else self.path_contains in path


@dataclass
class RateWindow:
    """One rate-limit resource: its hourly limit, what is used, and when it resets."""

    limit: int = RATE_LIMIT
    used: int = 0
    reset: float = field(default_factory=lambda: time.time() + 3600)

    def roll(self) -> None:
        """Start a new window once the reset time has passed, as GitHub does."""
        now = time.time()
        if now >= self.reset:
            self.used = 0
            self.reset = now + 3600

    def headers(self, resource: str) -> dict[str, str]:
        self.roll()
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(max(self.limit - self.used, 0)),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-reset": str(int(self.reset)),
            "x-ratelimit-resource": resource,
        }


@dataclass
class Repo:
    pulls: list[Pull] = field(default_factory=list)
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    review_comments: list[dict[str, Any]] = field(
        default_factory=list
    )  # every pull's, oldest first
    reviews: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    threads: list[Thread] = field(default_factory=list)
    # ("issue" | "pull" | "review", id) -> reactions, oldest first
    reactions: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    check_runs: list[dict[str, Any]] = field(default_factory=list)
    commit_pulls: dict[str, list[int]] = field(default_factory=dict)
    # login -> author_association on this repository's comments; anyone else is NONE
    associations: dict[str, str] = field(default_factory=lambda: {DEFAULT_LOGIN: "MEMBER"})
    # login -> permission on the repository (admin, write, read); else by association
    permissions: dict[str, str] = field(default_factory=dict)

    def permission_of(self, login: str) -> str:
        """What GitHub's permission endpoint says: set, else implied by the association."""
        if login in self.permissions:
            return self.permissions[login]
        association = self.associations.get(login, "NONE")
        return {"OWNER": "admin", "MEMBER": "write", "COLLABORATOR": "write"}.get(
            association, "read"
        )


class FakeGitHub(PullReviews):
    """The fake's state and its ASGI app; ``serve()`` runs it on a free loopback port."""

    def __init__(
        self, tokens: dict[str, int] | None = None, logins: dict[str, str] | None = None
    ) -> None:
        self.tokens = tokens or {"ghp_fake_token": 1}  # token -> app id (for check runs)
        self.logins = dict(logins or {})  # token -> the user it acts as (else DEFAULT_LOGIN)
        self.app_slugs: dict[int, str] = {}  # GitHub App id -> slug (its bot is <slug>[bot])
        self.installation_tokens: set[str] = set()
        self.repos: dict[tuple[str, str], Repo] = {}
        self.faults: list[Fault] = []
        self.requests: list[tuple[str, str, int]] = []  # method, path, status
        self.counted = 0  # REST requests that count against the primary rate limit
        self.counted_by_token: dict[str, int] = {}
        self.requests_by_token: dict[str, int] = {}
        self.core_window = RateWindow()  # the REST limit ("core"); one for every token here
        self.graphql_window = RateWindow()  # GraphQL's points, a limit of its own
        self.graphql_requests: list[tuple[str, int]] = []  # each query's first word, its cost
        self.lock = threading.Lock()
        self.access: dict[str, str] = {}  # token -> "push" (default), "read" or "none"
        self.apps: dict[int, str] = {}  # GitHub App id -> its public key (PEM)
        self.installations: dict[int, int] = {}  # installation id -> App id
        self.token_lifetime_s = 3600
        self.mints = 0
        self.skew_s = 0.0
        self._next_id = 1000
        self.base_url = ""
        self.ca_file = ""
        self.app = Starlette(routes=self._routes())

    # -- state -----------------------------------------------------------------------------

    def reset(self) -> None:
        """Forget every repository, fault and recorded request."""
        with self.lock:
            self.repos.clear()
            self.faults.clear()
            self.requests.clear()
            self.counted = 0
            self.counted_by_token.clear()
            self.requests_by_token.clear()
            self.core_window = RateWindow()
            self.graphql_window = RateWindow()
            self.graphql_requests.clear()
            self.access.clear()
            self.mints = 0
            self.token_lifetime_s = 3600
            self.skew_s = 0.0

    def repo(self, owner: str = "acme", name: str = "web") -> Repo:
        return self.repos.setdefault((owner, name), Repo())

    def open_pull(self, head_ref: str, head_sha: str = "9ab1c2d" * 5 + "abcde", **kw: Any) -> Pull:
        repo = self.repo(kw.pop("owner", "acme"), kw.pop("name", "web"))
        pull = Pull(number=len(repo.pulls) + 1, head_ref=head_ref, head_sha=head_sha, **kw)
        pull.commits = pull.commits or [head_sha]
        repo.pulls.append(pull)
        repo.comments.setdefault(pull.number, [])
        repo.commit_pulls.setdefault(head_sha, []).append(pull.number)
        return pull

    def push(self, number: int, *shas: str, owner: str = "acme", name: str = "web") -> Pull:
        """Push ``shas`` (oldest first) to pull request ``number``'s head branch."""
        repo = self.repo(owner, name)
        with self.lock:
            pull = next(p for p in repo.pulls if p.number == number)
            for sha in shas:
                pull.commits.append(sha)
                repo.commit_pulls.setdefault(sha, []).append(number)
            pull.head_sha = pull.commits[-1]
        return pull

    def issue_comments(
        self, number: int, owner: str = "acme", name: str = "web"
    ) -> list[dict[str, Any]]:
        return self.repo(owner, name).comments.setdefault(number, [])

    def add_comment(
        self, number: int, body: str, login: str = "someone", app_id: int | None = None
    ) -> dict[str, Any]:
        """Post an issue comment as ``login`` (through App ``app_id``, for a bot)."""
        with self.lock:
            return self._create_comment(self.repo(), number, body, login, app_id)

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def _now(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + self.skew_s))

    def advance(self, seconds: float) -> None:
        """Move the fake's clock (the ``created_at``/``updated_at`` it stamps) forward."""
        self.skew_s += seconds

    def _create_comment(
        self, repo: Repo, number: int, body: str, login: str, app_id: int | None = None
    ) -> dict[str, Any]:
        comment_id = self._id()
        stamp = self._now()
        bot = app_id is not None
        comment = {
            "id": comment_id,
            "node_id": f"IC_{comment_id}",
            "body": body,
            "user": {"login": login, "id": 1, "type": "Bot" if bot else "User"},
            "created_at": stamp,
            "updated_at": stamp,
            "url": f"{self.base_url}/repos/acme/web/issues/comments/{comment_id}",
            "html_url": f"{self.web_root}/acme/web/pull/{number}#issuecomment-{comment_id}",
            "issue_url": f"{self.base_url}/repos/acme/web/issues/{number}",
            "author_association": repo.associations.get(login, "NONE"),
            "performed_via_github_app": (
                {"id": app_id, "slug": self.app_slugs.get(app_id, f"app-{app_id}")} if bot else None
            ),
        }
        repo.comments.setdefault(number, []).append(comment)
        return comment

    def login_of(self, token: str) -> str:
        """The user a token acts as: an installation token is its App's bot."""
        if token in self.installation_tokens:
            app_id = self.tokens[token]
            return f"{self.app_slugs.get(app_id, f'app-{app_id}')}[bot]"
        return self.logins.get(token, DEFAULT_LOGIN)

    @staticmethod
    def _token(request: Request) -> str:
        auth = request.headers.get("authorization", "")
        return auth.split(" ", 1)[1].strip() if " " in auth else ""

    # -- HTTP ------------------------------------------------------------------------------

    def install_app(
        self, app_id: int, public_key_pem: str, installation_id: int, slug: str = "maple-gate"
    ) -> None:
        """Register a GitHub App and one installation of it."""
        self.apps[app_id] = public_key_pem
        self.installations[installation_id] = app_id
        self.app_slugs[app_id] = slug

    def _routes(self) -> list[Route]:
        r = "/api/v3/repos/{owner}/{repo}"
        return [
            Route(
                "/api/v3/app/installations/{installation:int}/access_tokens",
                self.mint_installation_token,
                methods=["POST"],
            ),
            Route("/api/v3/user", self.get_user),
            Route(r + "", self.get_repo),
            Route(r + "/collaborators/{login}/permission", self.collaborator_permission),
            Route(r + "/commits/{sha}/pulls", self.commit_pulls),
            Route(r + "/pulls", self.list_pulls),
            Route(r + "/pulls/{number:int}", self.get_pull),
            Route(r + "/pulls/{number:int}/commits", self.pull_commits),
            Route(
                r + "/issues/{number:int}/comments",
                self.issue_comments_endpoint,
                methods=["GET", "POST"],
            ),
            Route(
                r + "/issues/comments/{comment_id:int}",
                self.one_comment,
                methods=["GET", "PATCH", "DELETE"],
            ),
            *self.review_routes(),
            Route("/api/graphql", self.graphql, methods=["POST"]),
            Route(r + "/commits/{sha}/check-runs", self.list_check_runs),
            Route(r + "/check-runs", self.create_check_run, methods=["POST"]),
            Route(r + "/check-runs/{run_id:int}", self.update_check_run, methods=["PATCH"]),
        ]

    def _rate_headers(self, resource: str = "core") -> dict[str, str]:
        window = self.graphql_window if resource == "graphql" else self.core_window
        return {**window.headers(resource), "x-github-api-version-selected": "2022-11-28"}

    def _answer(
        self,
        request: Request,
        status: int,
        data: Any,
        headers: dict[str, str] | None = None,
        resource: str = "core",
    ) -> Response:
        auth = request.headers.get("authorization", "")
        token = auth.split(" ", 1)[1].strip() if " " in auth else ""
        self.requests_by_token[token] = self.requests_by_token.get(token, 0) + 1
        if status != 304 and resource == "core":
            self.counted += 1
            self.counted_by_token[token] = self.counted_by_token.get(token, 0) + 1
            self.core_window.roll()
            self.core_window.used += 1
        self.requests.append((request.method, request.url.path, status))
        all_headers = {**self._rate_headers(resource), **(headers or {})}
        if status in (204, 304):
            return Response(status_code=status, headers=all_headers)
        return JSONResponse(data, status_code=status, headers=all_headers)

    def _guard(self, request: Request) -> Response | int:
        """The app id of the caller, or the answer refusing it."""
        auth = request.headers.get("authorization", "")
        token = auth.split(" ", 1)[1].strip() if " " in auth else ""
        for fault in self.faults:
            if fault.matches(request.method, request.url.path):
                fault.times -= 1
                return self._answer(request, fault.status, fault.body, fault.headers)
        if token not in self.tokens:
            return self._answer(
                request,
                401,
                {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"},
            )
        window = self.core_window
        window.roll()
        if request.url.path != "/api/graphql" and window.used >= window.limit:
            # GitHub's primary limit spent: 403 with remaining 0 until the reset (not counted).
            self.requests.append((request.method, request.url.path, 403))
            return JSONResponse(
                {
                    "message": "API rate limit exceeded for user ID 1. If you reach out to "
                    "GitHub Support for help, please include the request ID.",
                    "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                },
                status_code=403,
                headers=self._rate_headers(),
            )
        return self.tokens[token]

    async def graphql(self, request: Request) -> Response:
        """``POST /api/graphql``: see ``fake_graphql``; points are charged by the query's cost."""
        for fault in self.faults:
            if fault.matches(request.method, request.url.path):
                fault.times -= 1
                return self._answer(request, fault.status, fault.body, fault.headers, "graphql")
        token = self._token(request)
        if token not in self.tokens:
            return self._answer(
                request,
                401,
                {
                    "message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/graphql",
                },
                resource="graphql",
            )
        try:
            body = await request.json()
        except ValueError:
            return self._answer(
                request, 400, {"message": "Problems parsing JSON"}, resource="graphql"
            )
        answer, cost = execute_graphql(
            self, self.login_of(token), self.access.get(token, "push"), body
        )
        query = body.get("query", "") if isinstance(body, dict) else ""
        self.graphql_requests.append((query.split("{", 1)[0].split("(", 1)[0].strip(), cost))
        return self._answer(request, 200, answer, resource="graphql")

    def _repo_of(self, request: Request) -> Repo | None:
        return self.repos.get((request.path_params["owner"], request.path_params["repo"]))

    def _not_found(self, request: Request) -> Response:
        return self._answer(
            request,
            404,
            {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
        )

    def _pull_json(self, pull: Pull) -> dict[str, Any]:
        return {
            "number": pull.number,
            "state": pull.state,
            "head": {
                "ref": pull.head_ref,
                "sha": pull.head_sha,
                "label": f"{pull.head_repo.split('/')[0]}:{pull.head_ref}",
                "repo": {"full_name": pull.head_repo},
            },
            "base": {"ref": "main", "repo": {"full_name": "acme/web"}},
            "user": {"login": pull.author, "type": pull.author_type},
            "updated_at": pull.updated_at,
            "url": f"{self.base_url}/repos/acme/web/pulls/{pull.number}",
        }

    def _paged(self, request: Request, items: list[Any]) -> Response:
        per_page = min(int(request.query_params.get("per_page", "30")), 100)
        page = max(int(request.query_params.get("page", "1")), 1)
        start = (page - 1) * per_page
        chunk = items[start : start + per_page]
        body = json.dumps(chunk).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {"etag": etag}
        last = max((len(items) + per_page - 1) // per_page, 1)
        links = []
        base = f"https://{request.url.netloc}{request.url.path}"
        query = dict(request.query_params)
        if page > 1:  # as GitHub does, the first and previous pages are named after page 1
            links.append(f'<{base}?{urlencode({**query, "page": page - 1})}>; rel="prev"')
            links.append(f'<{base}?{urlencode({**query, "page": 1})}>; rel="first"')
        if page < last:
            links.append(f'<{base}?{urlencode({**query, "page": page + 1})}>; rel="next"')
            links.append(f'<{base}?{urlencode({**query, "page": last})}>; rel="last"')
        if links:
            headers["link"] = ", ".join(links)
        if request.headers.get("if-none-match") == etag:
            return self._answer(request, 304, None, headers)
        return self._answer(request, 200, chunk, headers)

    async def get_user(self, request: Request) -> Response:
        """``GET /user``: the token's user; an App installation token has none (403)."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        token = self._token(request)
        if token in self.installation_tokens:
            return self._answer(
                request,
                403,
                {
                    "message": "Resource not accessible by integration",
                    "documentation_url": "https://docs.github.com/rest/users/users",
                },
            )
        login = self.login_of(token)
        return self._answer(
            request, 200, {"login": login, "id": zlib.crc32(login.encode()), "type": "User"}
        )

    async def collaborator_permission(self, request: Request) -> Response:
        """``GET /repos/{o}/{r}/collaborators/{login}/permission``, as GitHub documents it."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        if repo is None:
            return self._not_found(request)
        login = request.path_params["login"]
        permission = repo.permission_of(login)
        role = {"admin": "admin", "write": "write", "read": "read"}.get(permission, "read")
        return self._answer(
            request,
            200,
            {"permission": permission, "role_name": role, "user": {"login": login, "type": "User"}},
        )

    async def get_repo(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        if self._repo_of(request) is None:
            return self._not_found(request)
        auth = request.headers.get("authorization", "")
        access = self.access.get(auth.split(" ", 1)[1].strip() if " " in auth else "", "push")
        if access == "none":
            return self._not_found(request)
        permissions = {"admin": False, "push": access == "push", "pull": True}
        return self._answer(request, 200, {"full_name": "acme/web", "permissions": permissions})

    async def mint_installation_token(self, request: Request) -> Response:
        """``POST /app/installations/{id}/access_tokens``, authenticated by the App's RS256 JWT."""
        import jwt

        installation = request.path_params["installation"]
        app_id = self.installations.get(installation)
        auth = request.headers.get("authorization", "")
        signed = auth.split(" ", 1)[1].strip() if auth.lower().startswith("bearer ") else ""
        try:
            if app_id is None:
                raise jwt.InvalidTokenError("no such installation")
            claims = jwt.decode(
                signed,
                self.apps[app_id],
                algorithms=["RS256"],
                options={"require": ["exp", "iat", "iss"]},
            )
            if str(claims["iss"]) != str(app_id) or claims["exp"] - claims["iat"] > 660:
                raise jwt.InvalidTokenError("wrong issuer or too long-lived")
        except jwt.InvalidTokenError:
            return self._answer(
                request,
                401,
                {
                    "message": "A JSON web token could not be decoded",
                    "documentation_url": "https://docs.github.com/rest",
                },
            )
        with self.lock:
            self.mints += 1
            token = f"ghs_{self.mints:04d}{installation:08d}installationtoken"
            self.tokens[token] = app_id
            self.installation_tokens.add(token)
        expires = time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + self.token_lifetime_s)
        )
        body = {
            "token": token,
            "expires_at": expires,
            "permissions": {"checks": "write", "metadata": "read"},
            "repository_selection": "all",
        }
        return self._answer(request, 201, body)

    async def commit_pulls(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        if repo is None:
            return self._not_found(request)
        numbers = repo.commit_pulls.get(request.path_params["sha"], [])
        return self._paged(request, [self._pull_json(p) for p in repo.pulls if p.number in numbers])

    async def list_pulls(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        if repo is None:
            return self._not_found(request)
        state = request.query_params.get("state", "open")
        head = request.query_params.get("head")
        pulls = [p for p in repo.pulls if state == "all" or p.state == state]
        if head:
            ref = head.split(":", 1)[1] if ":" in head else head
            pulls = [p for p in pulls if p.head_ref == ref]
        if request.query_params.get("sort") == "updated":
            pulls = sorted(
                pulls,
                key=lambda p: p.updated_at,
                reverse=request.query_params.get("direction", "desc") == "desc",
            )
        return self._paged(request, [self._pull_json(p) for p in pulls])

    async def get_pull(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        pull = (
            next((p for p in repo.pulls if p.number == request.path_params["number"]), None)
            if repo
            else None
        )
        if pull is None:
            return self._not_found(request)
        return self._answer(request, 200, self._pull_json(pull))

    async def pull_commits(self, request: Request) -> Response:
        """``GET /repos/{o}/{r}/pulls/{n}/commits``: oldest first, paged, at most 250 listed."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        pull = (
            next((p for p in repo.pulls if p.number == request.path_params["number"]), None)
            if repo
            else None
        )
        if pull is None:
            return self._not_found(request)
        with self.lock:
            shas = list(pull.commits[:250])
        items = [
            {
                "sha": sha,
                "node_id": f"C_{sha}",
                "commit": {"message": f"Commit {sha[:7]}"},
                "url": f"{self.base_url}/repos/acme/web/commits/{sha}",
                "parents": [{"sha": shas[i - 1]}] if i else [],
            }
            for i, sha in enumerate(shas)
        ]
        return self._paged(request, items)

    async def issue_comments_endpoint(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        number = request.path_params["number"]
        if repo is None or not any(p.number == number for p in repo.pulls):
            return self._not_found(request)
        if request.method == "GET":
            with self.lock:
                items = [self.issue_comment_json(repo, c) for c in repo.comments.get(number, [])]
            return self._paged(request, items)
        payload = await request.json()
        if not isinstance(payload.get("body"), str) or not payload["body"]:
            return self._answer(
                request,
                422,
                {
                    "message": "Validation Failed",
                    "errors": [{"field": "body", "code": "missing_field"}],
                },
            )
        if too_long(payload["body"]):
            return self._body_too_long(request)
        token = self._token(request)
        app_id = self.tokens[token] if token in self.installation_tokens else None
        with self.lock:
            created = self._create_comment(
                repo, number, payload["body"], self.login_of(token), app_id
            )
        return self._answer(request, 201, self.issue_comment_json(repo, created))

    def _body_too_long(self, request: Request) -> Response:
        return self._answer(
            request,
            422,
            {
                "message": "Validation Failed",
                "errors": [
                    {
                        "field": "body",
                        "code": "custom",
                        "message": f"Body is too long (maximum is {BODY_LIMIT} characters)",
                    }
                ],
            },
        )

    async def one_comment(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        comment_id = request.path_params["comment_id"]
        with self.lock:
            found = [
                (n, c)
                for n, cs in (repo.comments.items() if repo else [])
                for c in cs
                if c["id"] == comment_id
            ]
        if not found:
            return self._not_found(request)
        number, comment = found[0]
        if request.method == "GET":
            return self._answer(request, 200, self.issue_comment_json(repo, comment))  # type: ignore[arg-type]
        token = self._token(request)
        own = comment["user"]["login"] == self.login_of(token)
        if not own and self.access.get(token, "push") != "push":
            # GitHub lets a comment's author, and people who can push, edit or delete it.
            return self._answer(
                request,
                403,
                {
                    "message": "Resource not accessible by integration"
                    if token in self.installation_tokens
                    else "Must have admin rights to Repository.",
                    "documentation_url": "https://docs.github.com/rest",
                },
            )
        if request.method == "DELETE":
            with self.lock:
                repo.comments[number] = [c for c in repo.comments[number] if c["id"] != comment_id]  # type: ignore[union-attr]
            return self._answer(request, 204, None)
        payload = await request.json()
        if too_long(payload["body"]):
            return self._body_too_long(request)
        with self.lock:
            comment["body"] = payload["body"]
            comment["updated_at"] = self._now()
        return self._answer(request, 200, self.issue_comment_json(repo, comment))  # type: ignore[arg-type]

    async def list_check_runs(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        if repo is None:
            return self._not_found(request)
        sha = request.path_params["sha"]
        name = request.query_params.get("check_name")
        runs = [
            r
            for r in repo.check_runs
            if r["head_sha"] == sha and (name is None or r["name"] == name)
        ]
        if request.query_params.get("filter", "latest") == "latest":
            latest: dict[tuple[str, int], dict[str, Any]] = {}
            for run in runs:
                latest[(run["name"], run["app"]["id"])] = run
            runs = list(latest.values())
        return self._answer(
            request, 200, {"total_count": len(runs), "check_runs": list(reversed(runs))}
        )

    async def create_check_run(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        if repo is None:
            return self._not_found(request)
        payload = await request.json()
        run = {
            "id": self._id(),
            "app": {"id": guard},
            "status": "queued",
            "conclusion": None,
            **payload,
        }
        repo.check_runs.append(run)
        return self._answer(request, 201, run)

    async def update_check_run(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        run = (
            next((r for r in repo.check_runs if r["id"] == request.path_params["run_id"]), None)
            if repo
            else None
        )
        if run is None:
            return self._not_found(request)
        if run["app"]["id"] != guard:
            return self._answer(
                request,
                403,
                {
                    "message": f"Invalid app_id `{guard}` - check run can only be modified by "
                    "the GitHub App that created it."
                },
            )
        run.update(await request.json())
        return self._answer(request, 200, run)


@dataclass
class Served:
    fake: FakeGitHub
    base_url: str
    host: str
    ca_file: str
    stop: Callable[[], None]


def serve(fake: FakeGitHub, tmp: Path) -> Served:
    """Run ``fake`` over HTTPS on a free 127.0.0.1 port until ``stop()``."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    ca_file, cert_file, key_file = tmp / "ca.pem", tmp / "cert.pem", tmp / "key.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    cert.private_key_and_cert_chain_pem.write_to_path(str(cert_file))
    cert.private_key_pem.write_to_path(str(key_file))
    running = serve_asgi(fake.app, "https", ssl_certfile=str(cert_file), ssl_keyfile=str(key_file))
    fake.base_url = f"{running.url}{PREFIX}"
    fake.ca_file = str(ca_file)
    port = running.port
    stop = running.stop

    return Served(fake, fake.base_url, f"127.0.0.1:{port}", str(ca_file), stop)
