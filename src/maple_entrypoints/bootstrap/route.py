"""The route's profiles: the server per caller token, and the local route behind a guard.

``maple route serve --store file`` keeps comments in the ``.maple/`` folder of the directory it
runs in, with screenshots beside them. ``--store github`` keeps them on the pull request and
holds no GitHub token of its own: each request acts with the caller's bearer token. With the
gate App's id, installation id and private key set, the route publishes ``maple/visual-review``
itself and ``POST /gate/refresh`` is on. The solo bridge and the review proxy serve the local
route: the file store and its media, guest authors, no gate.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from pydantic import SecretStr
from starlette.requests import Request

from maple_core.authors import Reviewer
from maple_core.environment import describe_variable
from maple_core.errors import ConfigurationError
from maple_core.gate import check_review_url
from maple_core.ports import Clock, CommentStore, FeedbackClassifier, GatePublisher
from maple_entrypoints.bootstrap.classifier import classifier_from_environment
from maple_entrypoints.bootstrap.github import (
    app_transport,
    check_run_publisher,
    ledger_store,
    push_access,
    token_review_store,
    token_transport,
)
from maple_entrypoints.bootstrap.local import local_media, local_store, system_clock
from maple_entrypoints.route.answers import bearer_token
from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.refresh import GateRefreshOptions
from maple_entrypoints.server_log import ServerLog

TYPE_CHECKING = False
if TYPE_CHECKING:  # the settings load pydantic, which the local route never needs
    from maple_entrypoints.settings import GitHubConfig, Settings

__all__ = ["RouteStoreKind", "TokenStores", "local_route_options", "route_options"]

SERVICE = "maple-route"


class RouteStoreKind(StrEnum):
    """The stores ``maple route serve --store`` can keep comments in."""

    FILE = "file"
    GITHUB = "github"
    SQL = "sql"


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


def _gate(
    settings: Settings, owner: str, repo: str, clock: Clock
) -> tuple[GatePublisher, CommentStore] | None:
    """The check-run publisher acting as the gate App, or ``None`` when no App is configured.

    With it comes the pull requests as the App sees them, for their heads.
    """
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
    transport = app_transport(app_id, key, int(installation), settings.MAPLE_GITHUB_API)
    pulls = ledger_store(transport, owner, repo, clock, app_id)
    return check_run_publisher(transport, owner, repo, clock, app_id), pulls


def _gate_review(settings: Settings) -> GitHubConfig | None:
    """With ``MAPLE_PR_REVIEW=gate``, how the caller's store reads the pull request's review.

    The gate the route publishes then agrees with every other publisher's. In ``agent`` and
    ``off`` the route keeps the ledger alone, as before: the gate ignores the review there.
    """
    if settings.MAPLE_PR_REVIEW != "gate":
        return None
    from maple_entrypoints.settings import GitHubConfig

    return GitHubConfig(
        owner=settings.MAPLE_GITHUB_OWNER,
        repo=settings.MAPLE_GITHUB_REPO,
        api_url=settings.MAPLE_GITHUB_API,
        gate_app_id=settings.MAPLE_GATE_APP_ID,
        pr_review="gate",
        trusted_bots=settings.MAPLE_TRUSTED_BOTS,
        reserve=settings.github_reserve,
        cache_root=settings.cache_folder,
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
    """The route server's wiring from the environment.

    ``review_url`` (``maple route serve --review-url``) overrides ``MAPLE_REVIEW_URL``. The
    classifier ``MAPLE_CLASSIFIER`` names is checked here, at start-up.

    Raises:
        ConfigurationError: a variable the chosen store or gate needs is unset or malformed, or
            the classifier's harness cannot read here.
    """
    clock = clock or system_clock()
    classifier = classifier_from_environment()
    if review_url is not None:
        review_url = check_review_url(review_url, "--review-url")
    elif (configured := settings.MAPLE_REVIEW_URL) is not None:
        review_url = check_review_url(configured, "MAPLE_REVIEW_URL")
    log = ServerLog(SERVICE, settings.secrets())
    api = settings.MAPLE_GITHUB_API
    owner, repo = settings.MAPLE_GITHUB_OWNER, settings.MAPLE_GITHUB_REPO
    on_github = store is RouteStoreKind.GITHUB
    if on_github:
        why = "the route keeps comments on that repository's pull requests"
        owner = _needed(owner, "MAPLE_GITHUB_OWNER", why)
        repo = _needed(repo, "MAPLE_GITHUB_REPO", why)
    app = _gate(settings, owner, repo, clock) if owner and repo else None
    gate = app[0] if app is not None else None
    app_id = settings.MAPLE_GATE_APP_ID
    review = _gate_review(settings) if on_github else None

    def github_store(token: str) -> CommentStore:
        if review is not None:  # the gate holds on the pull request's own review too
            return token_review_store(token, review, clock, gate=True)
        return ledger_store(token_transport(token, api), owner or "", repo or "", clock, app_id)

    per_token = TokenStores(github_store)  # one cache for the route and its refresh
    refresh = None
    if owner and repo:
        refresh = GateRefreshOptions(
            push_access=push_access(owner, repo, api, clock),
            store_for_token=per_token.for_token if on_github else None,
        )
    if store is RouteStoreKind.SQL:
        return _sql_route_options(
            settings,
            clock,
            gate=gate,
            heads=app[1].head if app is not None else None,
            refresh=refresh,
            review_url=review_url,
            identity=identity,
            log=log,
        )
    return RouteOptions(
        store=per_token if on_github else local_store(cwd, clock),
        media=None if on_github else local_media(cwd),
        identity=identity,
        gate=gate,
        refresh=refresh,
        require_approval=settings.MAPLE_REQUIRE_APPROVAL == "true",
        require_confirmation=settings.require_confirmation,
        review_url=review_url,
        classifier=classifier,
        clock=clock,
        log=log,
    )


def _sql_route_options(
    settings: Settings,
    clock: Clock,
    *,
    gate: GatePublisher | None,
    heads: Callable[[str], str | None] | None,
    refresh: GateRefreshOptions | None,
    review_url: str | None,
    identity: Callable[[Request], Reviewer | None] | None,
    log: ServerLog,
) -> RouteOptions:
    """A worker on the sql store: everything in the database, and the tools at ``/mcp``.

    Comments, screenshots, tokens and the agents' tasks are kept in ``MAPLE_DATABASE_URL``;
    agents holding a token reach the agent loop's tools at ``/mcp``.
    """
    from maple_entrypoints.bootstrap.sql import sql_route
    from maple_entrypoints.mcp_server import build_server
    from maple_entrypoints.route.mcp_http import McpEndpoint

    parts = sql_route(settings.MAPLE_DATABASE_URL, settings.repository, clock, heads)
    require_approval = settings.MAPLE_REQUIRE_APPROVAL == "true"
    server = build_server(
        parts.store,
        gate=gate,
        require_approval=require_approval,
        require_confirmation=settings.require_confirmation,
        clock=clock,
        log=log,
        media=parts.media,
        task_store=parts.tasks,
    )
    return RouteOptions(
        store=parts.store,
        media=parts.media,
        identity=identity,
        gate=gate,
        refresh=refresh,
        require_approval=require_approval,
        require_confirmation=settings.require_confirmation,
        review_url=review_url,
        clock=clock,
        log=log,
        mcp=McpEndpoint(server, parts.tokens, settings.repository, clock),
        health=parts.health,
        lifespan=parts.lifespan,
    )


def local_route_options(
    cwd: Path,
    clock: Clock | None,
    log: ServerLog,
    *,
    client_authors: bool = False,
    classifier: FeedbackClassifier | None = None,
) -> RouteOptions:
    """The route over ``cwd``'s ``.maple/`` and its media, with no gate.

    What the solo bridge and the review proxy serve behind their guards, to the one person this
    machine paired with: their words are a trusted reviewer's (``paired``), read by
    ``classifier`` when there is one. Authors are guests, unless ``client_authors`` lets the
    browser name its reviewer (the review proxy's one reviewer at this machine).
    """
    clock = clock or system_clock()
    return RouteOptions(
        store=local_store(cwd, clock),
        media=local_media(cwd),
        client_authors=client_authors,
        paired=True,
        classifier=classifier,
        clock=clock,
        log=log,
    )
