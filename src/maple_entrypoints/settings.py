"""The checks made at start-up: the settings read into checked, typed configurations.

The variables are declared in :mod:`maple_entrypoints.configuration`; this module reads them
(:class:`~maple_entrypoints.configuration.Settings`) and checks what each program needs:
:func:`resolve_config` for the agent's server, the CLI and the Stop hook's forge path,
:func:`route_config` for ``maple route serve``, :func:`ci_config` for ``maple gate publish``.
The gate's rules (:class:`~maple_core.gate.GateRules`) are built and checked here, once.

The checks follow Maple's order and wording (gate, then refresh, then store), so a
configuration Maple refuses is refused here with the same intent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import NoReturn, TypeVar

from maple_core.agents import PROVIDERS
from maple_core.errors import ConfigurationError
from maple_core.gate import DEFAULT_RULES, GateRules, check_review_url
from maple_entrypoints.configuration import (
    GITHUB_API_URL,
    GITHUB_REPOSITORY,
    GITHUB_TOKEN,
    MAPLE_AGENTS,
    MAPLE_GATE_APP_ID,
    MAPLE_GATE_INSTALLATION_ID,
    MAPLE_GATE_PRIVATE_KEY,
    MAPLE_GATE_TOKEN,
    MAPLE_GITHUB_API,
    MAPLE_GITHUB_OWNER,
    MAPLE_GITHUB_REPO,
    MAPLE_GITHUB_TRANSPORT,
    MAPLE_REQUIRE_APPROVAL,
    MAPLE_REQUIRE_CONFIRMATION,
    MAPLE_REVIEW_URL,
    MAPLE_STORE,
    MAPLE_UNATTENDED,
    MAPLE_URL,
    Settings,
)
from maple_entrypoints.variables import Secret, Variable

T = TypeVar("T")

__all__ = [
    "CiConfig",
    "GateApp",
    "GateMode",
    "GitHubConfig",
    "RouteConfig",
    "RouteStoreKind",
    "ServerConfig",
    "StoreKind",
    "Transport",
    "ci_config",
    "load_settings",
    "required",
    "resolve_config",
    "route_config",
    "store_kind",
]


class StoreKind(StrEnum):
    """The stores ``MAPLE_STORE`` can name."""

    GITHUB = "github"
    FILE = "file"
    ROUTE = "route"


class Transport(StrEnum):
    """How the GitHub adapters reach GitHub (``MAPLE_GITHUB_TRANSPORT``)."""

    AUTO = "auto"
    API = "api"
    CLI = "cli"


class GateMode(StrEnum):
    """How a resolve reaches the merge gate."""

    NONE = "none"
    DIRECT = "direct"
    ROUTE = "route"


class RouteStoreKind(StrEnum):
    """The stores ``maple route serve --store`` can keep comments in."""

    FILE = "file"
    GITHUB = "github"


@dataclass(frozen=True, slots=True)
class GitHubConfig:
    """Where and how to reach the repository; tokens stay :class:`Secret`."""

    owner: str | None = None
    repo: str | None = None
    api_url: str | None = None
    token: Secret | None = None
    gate_token: Secret | None = None
    gate_app_id: int | None = None


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """A checked configuration: which store, which gate path, and the gate's rules."""

    store: StoreKind
    gate: GateMode
    transport: Transport
    rules: GateRules = DEFAULT_RULES
    github: GitHubConfig = GitHubConfig()
    route_url: str | None = None
    agents: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of ``environ`` (default: the process environment), read when asked."""
    return Settings(environ)


def _missing(variable: Variable[object], why: str) -> NoReturn:
    raise ConfigurationError(f"{variable.name} is not set; {why}. It is: {variable.description}")


def _present(settings: Settings, variable: Variable[T], why: str) -> T:
    value = settings[variable]
    if value is None:
        _missing(variable, why)
    return value


def required(settings: Settings, variable: Variable[str | Secret], why: str) -> str:
    """``variable``'s text, which ``why`` needs (a secret's too).

    Raises:
        ConfigurationError: it is unset, naming it, ``why`` and what it is.
    """
    value = settings[variable]
    text = value.get_secret_value() if isinstance(value, Secret) else value
    if not text:
        _missing(variable, why)
    return text


def _needed(settings: Settings, variable: Variable[str | Secret], program: str) -> str:
    return required(settings, variable, f"{program} cannot start without it")


def _store_kind(settings: Settings) -> StoreKind:
    named = settings[MAPLE_STORE]
    if named is None:
        forge = (
            settings[GITHUB_TOKEN] or settings[MAPLE_GITHUB_OWNER] or settings[MAPLE_GITHUB_REPO]
        )
        return StoreKind.GITHUB if forge else StoreKind.FILE
    return StoreKind(named)


def store_kind(settings: Settings, program: str = "Maple's MCP server") -> StoreKind:
    """The configured store, with the variables it needs checked (Maple's ``storeFromEnvironment``).

    Raises:
        ConfigurationError: ``MAPLE_STORE`` is unknown, or a variable the store needs is unset.
    """
    store = _store_kind(settings)
    if store is StoreKind.GITHUB:
        _needed(settings, MAPLE_GITHUB_OWNER, program)
        _needed(settings, MAPLE_GITHUB_REPO, program)
        if _transport(settings) is Transport.API:
            _needed(settings, GITHUB_TOKEN, program)  # auto may use gh's
    elif store is StoreKind.ROUTE:
        _needed(settings, MAPLE_URL, program)
    return store


def _transport(settings: Settings) -> Transport:
    return Transport(settings[MAPLE_GITHUB_TRANSPORT] or Transport.AUTO)


def _rules(settings: Settings, review_url: str | None = None) -> GateRules:
    return GateRules(
        require_approval=bool(settings[MAPLE_REQUIRE_APPROVAL]),
        require_confirmation=bool(settings[MAPLE_REQUIRE_CONFIRMATION]),
        review_url=review_url,
    )


def _github(settings: Settings) -> GitHubConfig:
    return GitHubConfig(
        owner=settings[MAPLE_GITHUB_OWNER],
        repo=settings[MAPLE_GITHUB_REPO],
        api_url=settings[MAPLE_GITHUB_API],
        token=settings[GITHUB_TOKEN],
        gate_token=settings[MAPLE_GATE_TOKEN],
        gate_app_id=settings[MAPLE_GATE_APP_ID],
    )


def resolve_config(settings: Settings, program: str = "Maple's MCP server") -> ServerConfig:
    """Check the settings as Maple's server does at start-up, in its order.

    Raises:
        ConfigurationError: one line naming the variable and what to do.
    """
    gate = GateMode.NONE
    if settings[MAPLE_URL] and settings[MAPLE_GATE_TOKEN]:
        raise ConfigurationError(
            f"{MAPLE_URL.name} and {MAPLE_GATE_TOKEN.name} are both set; {program} cannot start "
            f"with both. Keep {MAPLE_URL.name} on a developer machine, where the route publishes "
            f"the gate, and {MAPLE_GATE_TOKEN.name} for CI only."
        )
    if settings[MAPLE_GATE_TOKEN]:
        _needed(settings, MAPLE_GITHUB_OWNER, program)
        _needed(settings, MAPLE_GITHUB_REPO, program)
        gate = GateMode.DIRECT
    # Through a route store the route publishes after its own status change, so no refresh is
    # asked for, and GITHUB_TOKEN is sent only when it is set.
    if settings[MAPLE_URL] and _store_kind(settings) is not StoreKind.ROUTE:
        _needed(settings, GITHUB_TOKEN, program)
        gate = GateMode.ROUTE
    store = store_kind(settings, program)
    return ServerConfig(
        store=store,
        gate=gate,
        transport=_transport(settings),
        rules=_rules(settings),
        github=_github(settings),
        route_url=settings[MAPLE_URL],
        agents=_agents(settings),
        secrets=tuple(settings.secrets()),
    )


def _agents(settings: Settings) -> tuple[str, ...]:
    """The external agents offered: none in a turn nobody watches (``MAPLE_UNATTENDED``).

    There a reviewer's words could otherwise have an agent started that runs what nobody
    approved.
    """
    named = _named_agents(settings)  # checked even when unused, so a mistake is still said
    return () if settings.text(MAPLE_UNATTENDED) is not None else named


def _named_agents(settings: Settings) -> tuple[str, ...]:
    named = settings[MAPLE_AGENTS] or ()
    unknown = [a for a in named if a not in PROVIDERS]
    if unknown:
        raise ConfigurationError(
            f"Unknown {MAPLE_AGENTS.name} entry {unknown[0]}; name codex and/or claude, "
            "comma-separated."
        )
    return named


@dataclass(frozen=True, slots=True)
class GateApp:
    """The gate App the route publishes as: its id, installation and private key."""

    app_id: int
    installation_id: int
    private_key: Secret


@dataclass(frozen=True, slots=True)
class RouteConfig:
    """``maple route serve``'s checked configuration.

    ``owner`` and ``repo`` name the repository (both, or neither on a file store); ``app`` is
    the gate App, when configured.
    """

    store: RouteStoreKind
    owner: str | None
    repo: str | None
    api_url: str | None
    app: GateApp | None
    rules: GateRules
    secrets: tuple[str, ...]


def _review_url(settings: Settings, given: str | None, option: str) -> str | None:
    """``given`` (a command's option), else ``MAPLE_REVIEW_URL``, checked under its own name."""
    if given is not None:
        return check_review_url(given, option)
    configured = settings[MAPLE_REVIEW_URL]
    return check_review_url(configured, MAPLE_REVIEW_URL.name) if configured else None


def _gate_app(settings: Settings) -> GateApp | None:
    """The gate App's three variables, all set, or ``None`` when none is."""
    given = (MAPLE_GATE_APP_ID, MAPLE_GATE_INSTALLATION_ID, MAPLE_GATE_PRIVATE_KEY)
    if not any(settings.text(v) for v in given):
        return None
    why = "the route needs the gate App's id, installation id and private key together"
    for variable in given:
        if not settings.text(variable):
            _missing(variable, why)
    return GateApp(
        _present(settings, MAPLE_GATE_APP_ID, why),
        _present(settings, MAPLE_GATE_INSTALLATION_ID, why),
        _present(settings, MAPLE_GATE_PRIVATE_KEY, why),
    )


def route_config(
    settings: Settings, store: RouteStoreKind, review_url: str | None = None
) -> RouteConfig:
    """The route server's configuration; ``review_url`` (``--review-url``) wins over the variable.

    Raises:
        ConfigurationError: a variable the chosen store or gate needs is unset or malformed.
    """
    rules = _rules(settings, _review_url(settings, review_url, "--review-url"))
    owner, repo = settings[MAPLE_GITHUB_OWNER], settings[MAPLE_GITHUB_REPO]
    if store is RouteStoreKind.GITHUB:
        why = "the route keeps comments on that repository's pull requests"
        owner = required(settings, MAPLE_GITHUB_OWNER, why)
        repo = required(settings, MAPLE_GITHUB_REPO, why)
    app = _gate_app(settings) if owner and repo else None
    return RouteConfig(
        store=store,
        owner=owner,
        repo=repo,
        api_url=settings[MAPLE_GITHUB_API],
        app=app,
        rules=rules,
        secrets=tuple(settings.secrets()),
    )


@dataclass(frozen=True, slots=True)
class CiConfig:
    """``maple gate publish``'s checked configuration.

    The ledger is read with ``token`` (``GITHUB_TOKEN``), else ``gate_token``; the check run is
    written with ``gate_token`` (``MAPLE_GATE_TOKEN``, else ``GITHUB_TOKEN``).
    """

    owner: str
    repo: str
    token: str | None
    gate_token: str
    api_url: str | None
    app_id: int | None
    rules: GateRules


def ci_config(
    settings: Settings, event_repository: str | None, review_url: str | None = None
) -> CiConfig:
    """The CI gate's configuration, once the event (naming ``event_repository``) was read.

    The repository is ``MAPLE_GITHUB_OWNER``/``MAPLE_GITHUB_REPO`` when both are set, else the
    event's, else ``GITHUB_REPOSITORY``; ``review_url`` (``--review-url``) wins over the
    variable.

    Raises:
        ConfigurationError: no repository, no token to write the check run with, or a review URL
            that is not a plain http(s) URL.
    """
    owner, repo = settings[MAPLE_GITHUB_OWNER], settings[MAPLE_GITHUB_REPO]
    repository = (
        f"{owner}/{repo}" if owner and repo else event_repository or settings[GITHUB_REPOSITORY]
    )
    secret = settings[GITHUB_TOKEN]
    token = secret.get_secret_value() if secret else None
    gate = settings[MAPLE_GATE_TOKEN]
    gate_token = (gate.get_secret_value() if gate else None) or token
    if not repository or "/" not in repository:
        raise ConfigurationError(
            f"no repository: set {MAPLE_GITHUB_OWNER.name} and {MAPLE_GITHUB_REPO.name} (GitHub "
            f"Actions sets {GITHUB_REPOSITORY.name})."
        )
    if not gate_token:
        raise ConfigurationError(
            f"{GITHUB_TOKEN.name} is not set; give the job `permissions: checks: write, "
            "pull-requests: read` and `env: GITHUB_TOKEN: ${{ github.token }}`, or set "
            f"{MAPLE_GATE_TOKEN.name} to a gate App's token."
        )
    rules = _rules(settings, _review_url(settings, review_url, "--review-url"))
    owner, repo = repository.split("/", 1)
    return CiConfig(
        owner=owner,
        repo=repo,
        token=token,
        gate_token=gate_token,
        api_url=settings[MAPLE_GITHUB_API] or settings[GITHUB_API_URL],
        app_id=settings[MAPLE_GATE_APP_ID],
        rules=rules,
    )
