"""The route server: ``maple route serve``, keeping comments in ``.maple/``, on GitHub or in sql.

``--store file`` keeps comments in the ``.maple/`` folder of the directory it runs in, with
screenshots beside them. ``--store github`` keeps them on the pull request and holds no GitHub
token of its own: each request acts with the caller's bearer token (:class:`TokenStores`). With
the gate App's id, installation id and private key set, the route publishes
``maple/visual-review`` itself and ``POST /gate/refresh`` is on. ``--store sql`` keeps
comments, screenshots, agents' tokens and tasks in ``MAPLE_DATABASE_URL``, and serves the agent
loop's tools at ``/mcp``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from maple_adapters.github.connect import app_transport, token_transport
from maple_adapters.github.gate import GitHubCheckRunPublisher
from maple_adapters.github.push_access import PushAccess
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.tokens import TokenStores
from maple_adapters.github.transport import GitHubTransport, PyGithubTransport
from maple_adapters.log import ServerLog
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.gate_ports import GatePublisher
from maple_core.gate_rules import GateRules
from maple_core.ports import Clock, CommentStore
from maple_core.storage_ports import MediaStore
from maple_entrypoints.bootstrap.classifier import classifier_from_environment
from maple_entrypoints.bootstrap.local import local_checkout
from maple_entrypoints.configuration import Settings
from maple_entrypoints.route_settings import RouteConfig, RouteStoreKind, route_config
from maple_entrypoints.settings import ReviewReading, StoreKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.bootstrap.sql import SqlRoute

__all__ = ["RouteServer", "route_server"]

SERVICE = "maple-route"


@dataclass(frozen=True, slots=True)
class RouteServer:
    """What ``maple route serve`` serves, built and checked once.

    Attributes:
        store: the file store (one for every request); ``None`` on GitHub.
        stores: on GitHub, one ledger store per caller token.
        media: the screenshots beside the file store; ``None`` on GitHub.
        gate: the check run published as the gate App, or ``None`` without one.
        push_access: whether a caller's token can push (``/gate/refresh`` and republishing), or
            ``None`` without a repository.
        rules: the gate's rules, its review link included.
        clock: the system's clock.
        log: one-line records on stderr, every secret scrubbed.
        classifier: what reads a trusted reviewer's reply on a resolved comment
            (``MAPLE_CLASSIFIER``), or ``None``.
        sql: on the sql store, the worker's parts in the database (its comments and media are
            ``store`` and ``media``): the tokens agents call ``/mcp`` with, the agents' tasks,
            the database's health and the worker's listener; else ``None``.
        repository: the repository the sql store's comments belong to.
    """

    store: CommentStore | None
    stores: TokenStores | None
    media: MediaStore | None
    gate: GatePublisher | None
    push_access: PushAccess | None
    rules: GateRules
    clock: Clock
    log: ServerLog
    classifier: FeedbackClassifier | None = None
    sql: SqlRoute | None = None
    repository: str = "default"


def route_server(
    store: RouteStoreKind,
    cwd: Path,
    *,
    review_url: str | None = None,
    settings: Settings | None = None,
    clock: Clock | None = None,
) -> RouteServer:
    """The route server the settings (default: the process environment's) configure.

    ``review_url`` (``maple route serve --review-url``) overrides ``MAPLE_REVIEW_URL``. The
    classifier ``MAPLE_CLASSIFIER`` names is checked here, at start-up.

    Raises:
        ConfigurationError: a variable the chosen store or gate needs is unset or malformed, or
            the classifier's harness cannot read here.
    """
    settings = settings or Settings()
    config = route_config(settings, store, review_url)
    classifier = classifier_from_environment(settings)
    local = local_checkout(cwd, clock)
    clock = local.clock
    served = RouteServer(
        store=local.store,
        stores=None,
        media=local.media,
        gate=_gate(config, clock),
        push_access=_push_access(config, clock),
        rules=config.rules,
        clock=clock,
        log=ServerLog(SERVICE, config.secrets),
        classifier=classifier,
    )
    if store is StoreKind.SQL:
        return _on_sql(served, config)
    if store is StoreKind.GITHUB:
        return replace(served, store=None, stores=_token_stores(config, clock), media=None)
    return served


def _on_sql(served: RouteServer, config: RouteConfig) -> RouteServer:
    """``served`` as a sql worker: comments, screenshots, tokens and tasks in the database.

    With the gate App, the pull requests' heads are asked of GitHub as the App, so the route
    can publish the gate.
    """
    from maple_entrypoints.bootstrap.sql import sql_database

    pulls = _app_pulls(config, served.clock)
    heads = pulls.head if pulls is not None else None
    parts = sql_database(config.database_url).route(config.repository, served.clock, heads)
    return replace(
        served, store=parts.store, media=parts.media, sql=parts, repository=config.repository
    )


def _app_transport(config: RouteConfig) -> tuple[GitHubTransport, str, str, int] | None:
    """The API acting as the gate App, with the owner, repository and App id it acts on.

    ``None`` when no App or no repository is configured.
    """
    app = config.app
    if app is None or not config.owner or not config.repo:
        return None
    key = app.private_key.get_secret_value()
    transport = app_transport(app.app_id, key, app.installation_id, config.api_url)
    return transport, config.owner, config.repo, app.app_id


def _app_pulls(config: RouteConfig, clock: Clock) -> GitHubLedgerStore | None:
    """The repository's pull requests as the gate App sees them, or ``None`` without one."""
    found = _app_transport(config)
    if found is None:
        return None
    transport, owner, repo, app_id = found
    return GitHubLedgerStore(transport, owner, repo, clock, app_id=app_id)


def _token_stores(config: RouteConfig, clock: Clock) -> TokenStores:
    """One store per caller token: with ``MAPLE_PR_REVIEW=gate`` the review-aware one."""
    owner, repo, api = config.owner or "", config.repo or "", config.api_url
    app_id = config.app.app_id if config.app is not None else None
    review = config.review

    def github_store(token: str) -> CommentStore:
        if review is not None:  # the gate holds on the pull request's review
            return _review_store(config, review, token, clock)
        return GitHubLedgerStore(token_transport(token, api), owner, repo, clock, app_id=app_id)

    return TokenStores(github_store)


def _review_store(
    config: RouteConfig, review: ReviewReading, token: str, clock: Clock
) -> CommentStore:
    """The caller's ledger and the pull request's review, acting with ``token``.

    Raises:
        ConfigurationError: the shared folder cannot be made.
    """
    from maple_adapters.github.review_setup import review_store
    from maple_entrypoints.bootstrap.review import review_place

    app_id = config.app.app_id if config.app is not None else None
    owner, repo = config.owner or "", config.repo or ""
    place = review_place(review, owner, repo, config.api_url, token, app_id)
    inner = PyGithubTransport(token, config.api_url)
    return review_store(inner, [token], place, clock, gate=True)


def _gate(config: RouteConfig, clock: Clock) -> GatePublisher | None:
    """The check-run publisher acting as the gate App, or ``None`` when no App is configured."""
    found = _app_transport(config)
    if found is None:
        return None
    transport, owner, repo, app_id = found
    return GitHubCheckRunPublisher(transport, owner, repo, now=clock.now, app_id=app_id)


def _push_access(config: RouteConfig, clock: Clock) -> PushAccess | None:
    """Whether a caller's token can push, each answer kept a minute (the bare transport)."""
    if not config.owner or not config.repo:
        return None
    api = config.api_url
    return PushAccess(lambda token: PyGithubTransport(token, api), config.owner, config.repo, clock)
