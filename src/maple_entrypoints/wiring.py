"""The composition root: the only place adapters are built from settings."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from maple_adapters.files import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.errors import ConfigurationError
from maple_core.ports import Capability, Clock, CommentStore, GatePublisher, GateRefresher
from maple_entrypoints.settings import (
    GateMode,
    GitHubConfig,
    ServerConfig,
    StoreKind,
    Transport,
    load_settings,
    resolve_config,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.agents import AgentPool
    from maple_adapters.github.transport import GitHubTransport
    from maple_adapters.route import RouteHttp
    from maple_core.ports import AgentProvider

__all__ = [
    "build_agents",
    "build_gate",
    "build_refresher",
    "build_store",
    "build_transport",
    "check_capabilities",
    "store_from_environment",
]


def _gh_signed_in(host: str | None) -> bool:
    """True when a ``gh`` binary answers ``gh auth token`` (the token itself is discarded)."""
    env = {**os.environ, **({"GH_HOST": host} if host else {}), "GH_PROMPT_DISABLED": "1"}
    command = ["gh", "auth", "token", *(["--hostname", host] if host else [])]
    try:
        done = subprocess.run(command, capture_output=True, timeout=10, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def build_transport(github: GitHubConfig, transport: Transport) -> GitHubTransport:
    """The GitHub transport the settings choose, resilient and conditional.

    ``auto``: a ``GITHUB_TOKEN`` means ``api``; else a ``gh`` that answers ``gh auth token``
    means ``cli``; else it refuses, naming both remedies. An explicit choice is honoured as it
    is and never falls back.

    Raises:
        ConfigurationError: the chosen transport cannot work here.
    """
    from maple_adapters.github.transport import (
        ConditionalTransport,
        GhCliTransport,
        PyGithubTransport,
        ResilientTransport,
        host_of,
    )

    token = github.token.get_secret_value() if github.token else None
    host = host_of(github.api_url)
    chosen = transport
    if chosen is Transport.AUTO:
        if token:
            chosen = Transport.API
        elif _gh_signed_in(host):
            chosen = Transport.CLI
        else:
            raise ConfigurationError(
                "GitHub cannot be reached: set GITHUB_TOKEN (a token that can read and write "
                "pull-request comments), or install gh and run `gh auth login`."
            )
    inner: GitHubTransport
    if chosen is Transport.API:
        if not token:
            raise ConfigurationError(
                "MAPLE_GITHUB_TRANSPORT=api needs GITHUB_TOKEN; set it, or use "
                "MAPLE_GITHUB_TRANSPORT=cli with a signed-in gh."
            )
        inner = PyGithubTransport(token, base_url=github.api_url)
    else:
        if not _gh_signed_in(host):
            raise ConfigurationError(
                "MAPLE_GITHUB_TRANSPORT=cli needs gh signed in to "
                f"{host or 'github.com'}: install gh and run `gh auth login`"
                f"{' --hostname ' + host if host else ''}, or set GITHUB_TOKEN and use "
                "MAPLE_GITHUB_TRANSPORT=api."
            )
        inner = GhCliTransport(host=host, env={"GH_TOKEN": token} if token else None)
    secrets = [token] if token else []
    return ConditionalTransport(ResilientTransport(inner, secrets=secrets))


def build_store(config: ServerConfig, cwd: Path, clock: Clock | None = None) -> CommentStore:
    """Build the configured comment store for a working directory.

    Raises:
        ConfigurationError: the configuration names a store this version cannot build.
    """
    clock = clock or SystemClock()
    if config.store is StoreKind.FILE:
        return FileCommentStore(clock, cwd)
    if config.store is StoreKind.GITHUB:
        from maple_adapters.github.store import GitHubLedgerStore

        github = config.github
        transport = build_transport(github, config.transport)
        return GitHubLedgerStore(
            transport, github.owner or "", github.repo or "", clock, app_id=github.gate_app_id
        )
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
    from maple_adapters.github.gate import GitHubCheckRunPublisher

    github = config.github
    gate_config = GitHubConfig(
        owner=github.owner, repo=github.repo, api_url=github.api_url, token=github.gate_token
    )
    transport = build_transport(gate_config, Transport.API)
    return GitHubCheckRunPublisher(
        transport,
        github.owner or "",
        github.repo or "",
        now=(clock or SystemClock()).now,
        app_id=github.gate_app_id,
    )


def build_agents(config: ServerConfig, root: Path) -> AgentPool | None:
    """The external agents ``MAPLE_AGENTS`` offers, in ``root``; ``None`` when it names none."""
    if not config.agents:
        return None
    from maple_adapters.agents import AgentPool, ClaudeProvider, CodexProvider

    made: dict[str, AgentProvider] = {"codex": CodexProvider(), "claude": ClaudeProvider()}
    return AgentPool({name: made[name] for name in config.agents}, root)


def check_capabilities(store: CommentStore, gate: GatePublisher | None) -> None:
    """Refuse a server whose store cannot do what its tools and gate need.

    Raises:
        ConfigurationError: naming the operation, the store and the fixes.
    """
    if Capability.SET_STATUS not in store.capabilities:
        raise ConfigurationError(
            f"resolve_comment needs a store that can change a status, and the {store.name} "
            "store cannot; use MAPLE_STORE=file, github or route."
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
