"""The agent loop: what ``maple-mcp``, the CLI and the Stop hook's forge path work with.

Built from the settings (:func:`~maple_entrypoints.settings.resolve_config`): the store
``MAPLE_STORE`` names, and the one target a change is reported to, the check run published
directly (``MAPLE_GATE_TOKEN``) or the route asked to refresh it (``MAPLE_URL``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from maple_adapters.agents.pool import AgentPool
from maple_adapters.files.media import FileMedia
from maple_adapters.files.store import FileCommentStore
from maple_adapters.github.connect import bare_transport, chosen_transport
from maple_adapters.github.gate import GitHubCheckRunPublisher
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.log import ServerLog
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.errors import ConfigurationError
from maple_core.gate_ports import Commits, GatePublisher, GateRefresher
from maple_core.ports import Capability, Clock, CommentStore
from maple_core.targets import GateTarget
from maple_entrypoints.bootstrap.classifier import classifier_from_environment
from maple_entrypoints.bootstrap.local import LocalCheckout, local_checkout
from maple_entrypoints.configuration import Settings
from maple_entrypoints.settings import (
    GateMode,
    ReviewReading,
    ServerConfig,
    StoreKind,
    resolve_config,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.github.pull_store import PullRequestStore
    from maple_adapters.route.http import RouteHttp

__all__ = ["AgentLoop", "agent_loop"]


@dataclass(frozen=True, slots=True)
class AgentLoop:
    """Everything the agent's loop works with, built and checked once.

    Attributes:
        store: where comments live (``MAPLE_STORE``).
        target: what a resolve or a reply is reported to, with the gate's rules and the log.
        log: one-line records on stderr, every secret scrubbed.
        clock: the system's clock.
        media: the screenshots in the local ``.maple/`` folder.
        commits: the checkout a resolution's sha must be reachable in.
        config: the checked configuration.
        local: the local checkout the loop runs in.
        agents: the external agents ``MAPLE_AGENTS`` offers, or ``None``.
        github: the pull request's ledger store when the store is on GitHub, for ``maple
            doctor`` to probe its transport and pull request; else ``None``.
        classifier: what reads the solo bridges' reviewer's replies (``MAPLE_CLASSIFIER``),
            checked at start-up as a transport is; ``None`` when off.
        review: the store itself when it reads the pull request's own review too
            (``MAPLE_PR_REVIEW``), for ``maple doctor`` to show what it holds; else ``None``.
    """

    store: CommentStore
    target: GateTarget
    log: ServerLog
    clock: Clock
    media: FileMedia
    commits: Commits
    config: ServerConfig
    local: LocalCheckout
    agents: AgentPool | None
    github: GitHubLedgerStore | None
    review: PullRequestStore | None = None
    classifier: FeedbackClassifier | None = None

    def check_capabilities(self) -> None:
        """Refuse a loop whose store cannot do what the agent's tools and gate need.

        Raises:
            ConfigurationError: naming the operation, the store and the fixes.
        """
        store = self.store
        if Capability.SET_STATUS not in store.capabilities:
            raise ConfigurationError(
                f"resolve_comment needs a store that can change a status, and the {store.name} "
                "store cannot; use MAPLE_STORE=file, github, route or sql."
            )
        gate = self.target.gate
        publishes = gate is not None and not isinstance(gate, GateRefresher)
        if publishes and Capability.HEAD not in store.capabilities:
            raise ConfigurationError(
                "Publishing the merge gate needs the commit the pull request's head is at, and "
                f"the {store.name} store cannot name it; use MAPLE_STORE=github with "
                "MAPLE_GATE_TOKEN, or unset MAPLE_GATE_TOKEN."
            )


def agent_loop(
    cwd: Path,
    *,
    program: str = "Maple's MCP server",
    service: str = "maple",
    settings: Settings | None = None,
) -> AgentLoop:
    """The agent loop the settings (default: the process environment's) configure in ``cwd``.

    ``program`` names the program in a refusal; ``service`` names it in the log.

    Raises:
        ConfigurationError: the settings are incomplete, name something unknown, or choose a
            GitHub transport that cannot work here.
    """
    settings = settings or Settings()
    config = resolve_config(settings, program)
    local = local_checkout(cwd)
    gate = _gate(config, local.clock)
    # the harness that reads reviewers' replies (the solo bridge's, the pull request's
    # threads'), checked now as a transport is
    classifier = classifier_from_environment(settings)
    store = _store(config, cwd, local.clock, classifier)
    log = ServerLog(service, config.secrets)
    github, review = _on_github(store)
    return AgentLoop(
        store=store,
        target=GateTarget(log, gate, config.rules),
        log=log,
        clock=local.clock,
        media=local.media,
        commits=local.commits,
        config=config,
        local=local,
        agents=local.agents.pool(config.agents, cwd),
        github=github,
        review=review,
        classifier=classifier,
    )


def _on_github(store: CommentStore) -> tuple[GitHubLedgerStore | None, PullRequestStore | None]:
    """The pull request's ledger store, and the store with its review, when there are."""
    if isinstance(store, GitHubLedgerStore):
        return store, None
    if store.name != "github":
        return None, None
    from maple_adapters.github.pull_store import PullRequestStore

    return (store.ledger, store) if isinstance(store, PullRequestStore) else (None, None)


def _store(
    config: ServerConfig, cwd: Path, clock: Clock, classifier: FeedbackClassifier | None
) -> CommentStore:
    if config.store is StoreKind.FILE:
        return FileCommentStore(clock, cwd)
    github = config.github
    if config.store is StoreKind.GITHUB:
        token = github.token.get_secret_value() if github.token else None
        owner, repo = github.owner or "", github.repo or ""
        if github.pr_review != "off" and github.review is not None:
            return _review_store(config, github.review, token, clock, classifier)
        transport = chosen_transport(token, github.api_url, config.transport)
        return GitHubLedgerStore(transport, owner, repo, clock, app_id=github.gate_app_id)
    if config.store is StoreKind.SQL:
        from maple_entrypoints.bootstrap.sql import sql_database

        return sql_database(config.database_url).store(config.repository, clock)
    from maple_adapters.route.store import RouteCommentStore

    return RouteCommentStore(_route_http(config))


def _review_store(
    config: ServerConfig,
    review: ReviewReading,
    token: str | None,
    clock: Clock,
    classifier: FeedbackClassifier | None,
) -> PullRequestStore:
    """The ledger and the pull request's own review, on the machine's shared poll."""
    from maple_adapters.github.review_setup import review_store
    from maple_entrypoints.bootstrap.review import review_place

    github = config.github
    inner, secrets = bare_transport(token, github.api_url, config.transport)
    owner, repo = github.owner or "", github.repo or ""
    place = review_place(review, owner, repo, github.api_url, token, github.gate_app_id)
    gate = github.pr_review == "gate"
    return review_store(inner, secrets, place, clock, gate=gate, classifier=classifier)


def _route_http(config: ServerConfig) -> RouteHttp:
    """The route's client; HTTP's library is loaded only for a route (``maple-mcp``'s start)."""
    from maple_adapters.route.http import RouteHttp

    token = config.github.token
    return RouteHttp(config.route_url or "", token.get_secret_value() if token else None)


def _gate(config: ServerConfig, clock: Clock) -> GatePublisher | GateRefresher | None:
    """The check run published directly (``MAPLE_GATE_TOKEN``), or the route's refresh."""
    if config.gate is GateMode.ROUTE:
        from maple_adapters.route.refresh import RouteGateRefresher

        return RouteGateRefresher(_route_http(config))
    if config.gate is not GateMode.DIRECT:
        return None
    github = config.github
    token = github.gate_token.get_secret_value() if github.gate_token else None
    transport = chosen_transport(token, github.api_url, "api")
    owner, repo = github.owner or "", github.repo or ""
    return GitHubCheckRunPublisher(transport, owner, repo, now=clock.now, app_id=github.gate_app_id)
