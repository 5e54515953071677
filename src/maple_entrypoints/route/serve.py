"""``maple route serve``: the route on uvicorn, wired from the environment.

``--store file`` keeps comments in the ``.maple/`` folder of the directory it runs in, with
screenshots beside them. ``--store github`` keeps them on the pull request and holds no GitHub
token of its own: each request acts with the caller's bearer token. With the gate App's id,
installation id and private key set, the route publishes ``maple/visual-review`` itself and
``POST /gate/refresh`` is on.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Mount

from maple_adapters.files import FileCommentStore, FileMedia
from maple_adapters.system import SystemClock
from maple_core.authors import Reviewer
from maple_core.environment import describe_variable
from maple_core.errors import ConfigurationError
from maple_core.ports import Clock, CommentStore, GatePublisher
from maple_entrypoints.route.answers import bearer_token
from maple_entrypoints.route.app import (
    DEFAULT_BASE_PATH,
    RouteOptions,
    check_review_url,
    create_route_app,
    json_http_error,
)
from maple_entrypoints.route.refresh import GateRefreshOptions
from maple_entrypoints.server_log import ServerLog
from maple_entrypoints.settings import Settings

__all__ = ["RouteStoreKind", "TokenStores", "route_options", "serve_route", "served_app"]

SERVICE = "maple-route"


class RouteStoreKind(StrEnum):
    """The stores ``maple route serve --store`` can keep comments in."""

    FILE = "file"
    GITHUB = "github"


class TokenStores:
    """One GitHub store per caller token, kept for the next request (at most ``size``).

    Keyed by the token's SHA-256, so the token itself is held only inside its store's transport.
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

    def __call__(self, request: Request) -> CommentStore | None:
        """The store for the request's bearer token; ``None`` (401) without one."""
        token = bearer_token(request)
        return self.for_token(token) if token else None


def _needed(value: str | SecretStr | None, name: str, why: str) -> str:
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if not value:
        raise ConfigurationError(
            f"{name} is not set; {why}. It is: {describe_variable(name) or name}"
        )
    return value


def _gate(settings: Settings, owner: str, repo: str, clock: Clock) -> GatePublisher | None:
    """The check-run publisher acting as the gate App, or ``None`` when no App is configured."""
    given = {
        "MAPLE_GATE_APP_ID": settings.MAPLE_GATE_APP_ID,
        "MAPLE_GATE_INSTALLATION_ID": settings.MAPLE_GATE_INSTALLATION_ID,
        "MAPLE_GATE_PRIVATE_KEY": settings.MAPLE_GATE_PRIVATE_KEY,
    }
    if not any(given.values()):
        return None
    why = "the route needs the gate App's id, installation id and private key together"
    app_id, installation, key = (_needed(v, n, why) for n, v in given.items())
    if not installation.isdigit():
        raise ConfigurationError(
            f"MAPLE_GATE_INSTALLATION_ID must be a number, not {installation!r}; it is in the "
            "App installation's settings URL."
        )
    from maple_adapters.github.gate import GitHubCheckRunPublisher
    from maple_adapters.github.transport import PyGithubTransport, ResilientTransport

    transport = PyGithubTransport.for_github_app(
        app_id, key, int(installation), base_url=settings.MAPLE_GITHUB_API
    )
    return GitHubCheckRunPublisher(
        ResilientTransport(transport, secrets=[key]),
        owner,
        repo,
        now=clock.now,
        app_id=app_id,
    )


def route_options(
    settings: Settings,
    store: RouteStoreKind,
    cwd: Path,
    *,
    clock: Clock | None = None,
    identity: Callable[[Request], Reviewer | None] | None = None,
    review_url: str | None = None,
) -> RouteOptions:
    """The route's wiring from the environment.

    ``review_url`` (``maple route serve --review-url``) overrides ``MAPLE_REVIEW_URL``.

    Raises:
        ConfigurationError: a variable the chosen store or gate needs is unset or malformed.
    """
    from maple_adapters.github.push_access import PushAccess
    from maple_adapters.github.store import GitHubLedgerStore
    from maple_adapters.github.transport import (
        ConditionalTransport,
        PyGithubTransport,
        ResilientTransport,
    )

    clock = clock or SystemClock()
    if review_url is not None:
        review_url = check_review_url(review_url, "--review-url")
    elif (configured := settings.MAPLE_REVIEW_URL) is not None:
        review_url = check_review_url(configured, "MAPLE_REVIEW_URL")
    log = ServerLog(SERVICE, settings.secrets())
    api = settings.MAPLE_GITHUB_API
    owner, repo = settings.MAPLE_GITHUB_OWNER, settings.MAPLE_GITHUB_REPO
    if store is RouteStoreKind.GITHUB:
        why = "the route keeps comments on that repository's pull requests"
        owner = _needed(owner, "MAPLE_GITHUB_OWNER", why)
        repo = _needed(repo, "MAPLE_GITHUB_REPO", why)
    gate = _gate(settings, owner, repo, clock) if owner and repo else None

    def github_store(token: str) -> CommentStore:
        transport = ResilientTransport(PyGithubTransport(token, api), secrets=[token])
        return GitHubLedgerStore(
            ConditionalTransport(transport),
            owner or "",
            repo or "",
            clock,
            app_id=settings.MAPLE_GATE_APP_ID,
        )

    per_token = TokenStores(github_store)  # one cache for the route and its refresh
    refresh = None
    if owner and repo:
        push = PushAccess(lambda token: PyGithubTransport(token, api), owner, repo, clock)
        refresh = GateRefreshOptions(
            push_access=push,
            store_for_token=per_token.for_token if store is RouteStoreKind.GITHUB else None,
        )
    on_github = store is RouteStoreKind.GITHUB
    return RouteOptions(
        store=per_token if on_github else FileCommentStore(clock, cwd),
        media=None if on_github else FileMedia(cwd),
        identity=identity,
        gate=gate,
        refresh=refresh,
        require_approval=settings.MAPLE_REQUIRE_APPROVAL == "true",
        review_url=review_url,
        clock=clock,
        log=log,
    )


def served_app(options: RouteOptions, prefix: str = DEFAULT_BASE_PATH) -> Starlette:
    """An application with the route mounted at ``prefix``."""
    return Starlette(
        routes=[Mount(prefix.rstrip("/") or "/", app=create_route_app(options))],
        exception_handlers={HTTPException: json_http_error},
    )


def serve_route(options: RouteOptions, host: str, port: int, prefix: str) -> None:
    """Serve the route with uvicorn until interrupted.

    A request's headers must arrive within 10 s, its body within 30 s, and at most 256
    connections are open at once (:func:`~maple_entrypoints.loopback.bounded_http`); an idle
    keep-alive connection closes after 5 s, and a stop waits at most 5 s for open ones.
    """
    import uvicorn

    from maple_entrypoints.loopback import bounded_http

    uvicorn.run(
        served_app(options, prefix),
        host=host,
        port=port,
        log_level="warning",
        http=bounded_http(),
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,  # a connection that never finishes cannot hold up a stop
    )
