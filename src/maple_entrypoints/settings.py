"""The checks made at start-up: the settings read into checked, typed configurations.

The variables are declared in :mod:`maple_entrypoints.configuration`; this module reads them
(:class:`~maple_entrypoints.configuration.Settings`) and checks what each program needs:
:func:`resolve_config` for the agent's server, the CLI and the Stop hook's forge path;
``route_settings.py`` and ``ci_settings.py`` check ``maple route serve``'s and ``maple gate
publish``'s with the helpers here.
The gate's rules (:class:`~maple_core.gate_rules.GateRules`) are built and checked here, once.

The checks follow Maple's order and wording (gate, then refresh, then store), so a
configuration Maple refuses is refused here with the same intent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import NoReturn, TypeVar

from maple_core.agents import PROVIDERS
from maple_core.errors import ConfigurationError
from maple_core.gate_rules import DEFAULT_RULES, GateRules, check_review_url
from maple_entrypoints.block_counter import temp_folder
from maple_entrypoints.configuration import (
    CLAUDE_CODE_SESSION_ID,
    ENVIRONMENT,
    GITHUB_TOKEN,
    MAPLE_AGENTS,
    MAPLE_DATABASE_URL,
    MAPLE_GATE_APP_ID,
    MAPLE_GATE_TOKEN,
    MAPLE_GITHUB_API,
    MAPLE_GITHUB_OWNER,
    MAPLE_GITHUB_REPO,
    MAPLE_GITHUB_RESERVE,
    MAPLE_GITHUB_TRANSPORT,
    MAPLE_PR_REVIEW,
    MAPLE_REQUIRE_APPROVAL,
    MAPLE_REQUIRE_CONFIRMATION,
    MAPLE_REVIEW_URL,
    MAPLE_SESSION,
    MAPLE_STORE,
    MAPLE_TRUSTED_BOTS,
    MAPLE_UNATTENDED,
    MAPLE_URL,
    XDG_CACHE_HOME,
    Settings,
)
from maple_entrypoints.variables import Secret, Variable

T = TypeVar("T")

__all__ = [
    "GateMode",
    "GitHubConfig",
    "ReviewReading",
    "ServerConfig",
    "SessionSettings",
    "StoreKind",
    "cache_folder",
    "configuration_values",
    "gate_review",
    "gate_rules",
    "load_settings",
    "missing",
    "present",
    "repository_of",
    "required",
    "resolve_config",
    "review_url_of",
    "store_kind",
]


class StoreKind(StrEnum):
    """The stores ``MAPLE_STORE`` can name."""

    GITHUB = "github"
    FILE = "file"
    ROUTE = "route"
    SQL = "sql"


class GateMode(StrEnum):
    """How a resolve reaches the merge gate."""

    NONE = "none"
    DIRECT = "direct"
    ROUTE = "route"


@dataclass(frozen=True, slots=True)
class GitHubConfig:
    """Where and how to reach the repository; tokens stay :class:`Secret`.

    ``pr_review`` (``MAPLE_PR_REVIEW``) says what the pull request's own review is for, and
    ``review`` how it is read (on the github store, the only one that reads it).
    """

    owner: str | None = None
    repo: str | None = None
    api_url: str | None = None
    token: Secret | None = None
    gate_token: Secret | None = None
    gate_app_id: int | None = None
    pr_review: str = "agent"
    review: ReviewReading | None = None


@dataclass(frozen=True, slots=True)
class ReviewReading:
    """How the pull request's own review is read, on the machine's shared poll.

    Attributes:
        trusted_bots: ``MAPLE_TRUSTED_BOTS`` as written (``None``: every App's bot).
        reserve: the share of GitHub's rate limit left alone (``MAPLE_GITHUB_RESERVE``).
        cache_root: the folder the shared polls are kept under (:func:`cache_folder`).
    """

    trusted_bots: str | None
    reserve: float
    cache_root: Path


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """A checked configuration: which store, which gate path, and the gate's rules."""

    store: StoreKind
    gate: GateMode
    transport: str
    rules: GateRules = DEFAULT_RULES
    github: GitHubConfig = GitHubConfig()
    route_url: str | None = None
    agents: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    database_url: Secret | None = None
    repository: str = "default"


def repository_of(settings: Settings) -> str:
    """``owner/name`` from ``MAPLE_GITHUB_OWNER`` and ``MAPLE_GITHUB_REPO``, else ``default``.

    The repository a sql store's comments and tokens belong to.
    """
    owner, repo = settings[MAPLE_GITHUB_OWNER], settings[MAPLE_GITHUB_REPO]
    return f"{owner}/{repo}" if owner and repo else "default"


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """What a session reads about itself: its id, its client's session, the temporary folder.

    Attributes:
        session: ``MAPLE_SESSION``, the session ``maple watch`` handed on, if any.
        client_session: ``CLAUDE_CODE_SESSION_ID``, the client's own conversation, if any.
        temp_dir: where this machine's sessions note who they are (as the Stop hook finds it).
    """

    session: str | None
    client_session: str | None
    temp_dir: str

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None) -> SessionSettings:
        """The session's settings in ``environ`` (default: the process environment)."""
        settings = Settings(environ)
        return cls(settings[MAPLE_SESSION], settings[CLAUDE_CODE_SESSION_ID], temp_folder(settings))


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of ``environ`` (default: the process environment), read when asked."""
    return Settings(environ)


def missing(variable: Variable[object], why: str) -> NoReturn:
    """Refuse: ``variable`` is unset and ``why`` needs it (naming what it is)."""
    raise ConfigurationError(f"{variable.name} is not set; {why}. It is: {variable.description}")


def present(settings: Settings, variable: Variable[T], why: str) -> T:
    """``variable``'s value, which ``why`` needs."""
    value = settings[variable]
    if value is None:
        missing(variable, why)
    return value


def required(settings: Settings, variable: Variable[str | Secret], why: str) -> str:
    """``variable``'s text, which ``why`` needs (a secret's too).

    Raises:
        ConfigurationError: it is unset, naming it, ``why`` and what it is.
    """
    value = settings[variable]
    text = value.get_secret_value() if isinstance(value, Secret) else value
    if not text:
        missing(variable, why)
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
        if _transport(settings) == "api":
            _needed(settings, GITHUB_TOKEN, program)  # auto may use gh's
    elif store is StoreKind.ROUTE:
        _needed(settings, MAPLE_URL, program)
    elif store is StoreKind.SQL:
        _needed(settings, MAPLE_DATABASE_URL, program)
    return store


def _transport(settings: Settings) -> str:
    """``MAPLE_GITHUB_TRANSPORT``: ``auto``, ``api`` or ``cli``, as the adapters take it."""
    return present(settings, MAPLE_GITHUB_TRANSPORT, "the GitHub adapters")


def gate_rules(settings: Settings, review_url: str | None = None) -> GateRules:
    """The gate's rules from the settings, with the review link given (already checked)."""
    return GateRules(
        require_approval=bool(settings[MAPLE_REQUIRE_APPROVAL]),
        require_confirmation=bool(settings[MAPLE_REQUIRE_CONFIRMATION]),
        review_url=review_url,
    )


def _review_reading(settings: Settings) -> ReviewReading:
    """How the pull request's review is read, for a program that reads it.

    Raises:
        ConfigurationError: ``MAPLE_GITHUB_RESERVE`` is not a percentage from 0% to 90%.
        RuntimeError: there is no home folder to keep the shared poll in.
    """
    return ReviewReading(
        trusted_bots=settings[MAPLE_TRUSTED_BOTS],
        reserve=present(settings, MAPLE_GITHUB_RESERVE, "polling GitHub needs a reserve"),
        cache_root=cache_folder(settings),
    )


def gate_review(settings: Settings) -> ReviewReading | None:
    """The review the gate holds on too (``MAPLE_PR_REVIEW=gate``), else ``None``."""
    return _review_reading(settings) if settings[MAPLE_PR_REVIEW] == "gate" else None


def _github(settings: Settings, store: StoreKind) -> GitHubConfig:
    return GitHubConfig(
        owner=settings[MAPLE_GITHUB_OWNER],
        repo=settings[MAPLE_GITHUB_REPO],
        api_url=settings[MAPLE_GITHUB_API],
        token=settings[GITHUB_TOKEN],
        gate_token=settings[MAPLE_GATE_TOKEN],
        gate_app_id=settings[MAPLE_GATE_APP_ID],
        pr_review=present(settings, MAPLE_PR_REVIEW, "the GitHub store"),
        # only the github store reads the review
        review=_review_reading(settings) if store is StoreKind.GITHUB else None,
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
        rules=gate_rules(settings),
        github=_github(settings, store),
        route_url=settings[MAPLE_URL],
        agents=_agents(settings),
        secrets=tuple(settings.secrets()),
        database_url=settings[MAPLE_DATABASE_URL],
        repository=repository_of(settings),
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


def review_url_of(settings: Settings, given: str | None, option: str) -> str | None:
    """``given`` (a command's option), else ``MAPLE_REVIEW_URL``, checked under its own name."""
    if given is not None:
        return check_review_url(given, option)
    configured = settings[MAPLE_REVIEW_URL]
    return check_review_url(configured, MAPLE_REVIEW_URL.name) if configured else None


def cache_folder(settings: Settings) -> Path:
    """Where maple keeps what it can rebuild: ``$XDG_CACHE_HOME/maple`` or ``~/.cache/maple``.

    A relative ``XDG_CACHE_HOME`` is ignored, as the XDG specification says.

    Raises:
        RuntimeError: there is no home folder to keep it in.
    """
    home = settings[XDG_CACHE_HOME]
    base = Path(home) if home and Path(home).is_absolute() else Path.home() / ".cache"
    return base / "maple"


def configuration_values(environ: Mapping[str, str] | None = None) -> list[tuple[str, str | None]]:
    """Every declared variable as set in ``environ`` (a secret only as ``set`` or unset).

    What a program's behaviour can depend on, for keying what is derived from it; the raw
    value, so an empty variable and an unset one differ. A variable naming the session
    (``per_session``: Claude Code gives each conversation its own) is left out, or nothing
    recorded under one session's key would serve the next.
    """
    env = os.environ if environ is None else environ
    values: list[tuple[str, str | None]] = []
    for variable in ENVIRONMENT:
        if variable.per_session:
            continue
        value = env.get(variable.name)
        values.append((variable.name, "set" if variable.secret and value else value))
    return values
