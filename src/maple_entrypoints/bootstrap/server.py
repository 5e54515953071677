"""The agent's server, the Stop hook and the CLI: the store, gate and refresher settings name."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.files import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.errors import ConfigurationError
from maple_core.ports import (
    Capability,
    Clock,
    CommentStore,
    FeedbackClassifier,
    GatePublisher,
    GateRefresher,
)
from maple_entrypoints.bootstrap.classifier import classifier_from_environment
from maple_entrypoints.bootstrap.github import (
    build_transport,
    check_run_publisher,
    ledger_store,
    review_store,
)
from maple_entrypoints.settings import (
    GateMode,
    GitHubConfig,
    ServerConfig,
    Settings,
    StoreKind,
    Transport,
    load_settings,
    resolve_config,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.route import RouteHttp

__all__ = [
    "CheckedServer",
    "build_gate",
    "build_refresher",
    "build_store",
    "check_capabilities",
    "check_server",
    "store_from_environment",
]


def build_store(
    config: ServerConfig,
    cwd: Path,
    clock: Clock | None = None,
    *,
    classifier: FeedbackClassifier | None = None,
) -> CommentStore:
    """Build the configured comment store for a working directory.

    ``classifier`` reads trusted reviewers' replies in the pull request's review threads
    (the GitHub store with ``MAPLE_PR_REVIEW`` on); without it they reopen, as before.

    Raises:
        ConfigurationError: the configuration names a store this version cannot build.
    """
    clock = clock or SystemClock()
    if config.store is StoreKind.FILE:
        return FileCommentStore(clock, cwd)
    if config.store is StoreKind.GITHUB:
        github = config.github
        if github.pr_review != "off":
            gate = github.pr_review == "gate"
            return review_store(github, config.transport, clock, gate=gate, classifier=classifier)
        transport = build_transport(github, config.transport)
        return ledger_store(
            transport, github.owner or "", github.repo or "", clock, github.gate_app_id
        )
    if config.store is StoreKind.SQL:
        from maple_entrypoints.bootstrap.sql import sql_store

        return sql_store(config.database_url, config.repository, clock)
    from maple_adapters.route import RouteCommentStore

    return RouteCommentStore(_route_http(config))


def _route_http(config: ServerConfig) -> RouteHttp:
    from maple_adapters.route import RouteHttp

    token = config.github.token
    return RouteHttp(config.route_url or "", token.get_secret_value() if token else None)


def build_refresher(config: ServerConfig) -> GateRefresher | None:
    """The route refresh a resolve asks for (``MAPLE_URL`` with ``GITHUB_TOKEN``), or ``None``."""
    if config.gate is not GateMode.ROUTE:
        return None
    from maple_adapters.route import RouteGateRefresher

    return RouteGateRefresher(_route_http(config))


def build_gate(config: ServerConfig, clock: Clock | None = None) -> GatePublisher | None:
    """The check-run publisher a resolve reports to directly (``MAPLE_GATE_TOKEN``), or ``None``.

    Raises:
        ConfigurationError: the gate's token cannot be used.
    """
    if config.gate is not GateMode.DIRECT:
        return None
    github = config.github
    gate_config = GitHubConfig(
        owner=github.owner, repo=github.repo, api_url=github.api_url, token=github.gate_token
    )
    transport = build_transport(gate_config, Transport.API)
    return check_run_publisher(
        transport, github.owner or "", github.repo or "", clock or SystemClock(), github.gate_app_id
    )


def check_capabilities(store: CommentStore, gate: GatePublisher | None) -> None:
    """Refuse a server whose store cannot do what its tools and gate need.

    Raises:
        ConfigurationError: naming the operation, the store and the fixes.
    """
    if Capability.SET_STATUS not in store.capabilities:
        raise ConfigurationError(
            f"resolve_comment needs a store that can change a status, and the {store.name} "
            "store cannot; use MAPLE_STORE=file, github, route or sql."
        )
    if gate is not None and Capability.HEAD not in store.capabilities:
        raise ConfigurationError(
            f"Publishing the merge gate needs the commit the pull request's head is at, and the "
            f"{store.name} store cannot name it; use MAPLE_STORE=github with MAPLE_GATE_TOKEN, "
            "or unset MAPLE_GATE_TOKEN."
        )


def store_from_environment(
    environ: Mapping[str, str] | None = None, cwd: Path | None = None, program: str = "maple"
) -> CommentStore:
    """Check the environment (default: the process's) and build the store it configures.

    Raises:
        ConfigurationError: the environment is incomplete or names something unknown.
    """
    config = resolve_config(load_settings(environ), program)
    return build_store(config, cwd or Path.cwd())


@dataclass(frozen=True, slots=True)
class CheckedServer:
    """What ``maple-mcp`` serves, built from a configuration it checked: store, gate, refresher."""

    settings: Settings
    config: ServerConfig
    store: CommentStore
    gate: GatePublisher | None
    refresher: GateRefresher | None
    classifier: FeedbackClassifier | None = None


def check_server(cwd: Path) -> CheckedServer:
    """Check the process's configuration as ``maple-mcp`` does before serving, and build its parts.

    Raises:
        ConfigurationError: one line naming the variable and what to do.
    """
    settings = load_settings()
    config = resolve_config(settings)
    gate = build_gate(config)
    refresher = build_refresher(config)
    # the harness that reads reviewers' replies (the solo bridge's, the pull request's
    # threads'), checked now as a transport is
    classifier = classifier_from_environment()
    store = build_store(config, cwd, classifier=classifier)
    check_capabilities(store, gate)
    return CheckedServer(settings, config, store, gate, refresher, classifier)
