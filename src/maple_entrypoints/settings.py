"""Settings: the typed reading of the environment table, and the checks made at start-up.

This module and the Stop hook's ``hook_settings.py`` are the only ones that read the
environment, and both read only the variables of ``maple_core.environment.ENVIRONMENT``.

The checks follow Maple's order and wording (gate, then refresh, then store), so a
configuration Maple refuses is refused here with the same intent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError, model_validator

from maple_core.environment import (
    ENVIRONMENT,
    SECRET_VARIABLES,
    VARIABLES,
    describe_variable,
    read_variable,
    temp_folder,
)
from maple_core.errors import ConfigurationError

__all__ = [
    "AgentSettings",
    "ClassifierKind",
    "ClassifierSettings",
    "GateMode",
    "GitHubConfig",
    "InstallSettings",
    "ServerConfig",
    "SessionSettings",
    "Settings",
    "StoreKind",
    "Transport",
    "configuration_values",
    "load_settings",
    "resolve_config",
    "secret_values",
    "store_kind",
]


class StoreKind(StrEnum):
    """The stores ``MAPLE_STORE`` can name."""

    GITHUB = "github"
    FILE = "file"
    ROUTE = "route"
    SQL = "sql"


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


class ClassifierKind(StrEnum):
    """The harnesses ``MAPLE_CLASSIFIER`` can name to read reviewers' words (``off``: none)."""

    OFF = "off"
    CLAUDE = "claude"
    CODEX = "codex"


class _FromEnvironment(BaseModel):
    """Some of :data:`~maple_core.environment.ENVIRONMENT`'s variables, typed.

    Each field is named as its variable and read as the table says (an empty value as unset,
    an unset one as its default); a secret is a ``SecretStr``. A program that needs only a few
    variables reads only those, so a mistake in another does not stop it.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    @model_validator(mode="before")
    @classmethod
    def _as_the_table_says(cls, environ: object) -> object:
        if not isinstance(environ, Mapping):
            return environ
        return {name: read_variable(environ, name) for name in cls.model_fields}

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None) -> Self:
        """Read the fields' variables from ``environ`` (default: the process environment).

        Raises:
            ConfigurationError: a value is not of its variable's type (pydantic's
                ``ValidationError``, translated here and nowhere else).
        """
        try:
            return cls.model_validate(os.environ if environ is None else environ)
        except ValidationError as exc:
            raise _refusal(exc) from None


class Settings(_FromEnvironment):
    """The variables of the servers, the gate and the Stop hook's forge path.

    :func:`resolve_config` checks them.
    """

    MAPLE_STORE: str | None
    MAPLE_DATABASE_URL: SecretStr | None
    GITHUB_TOKEN: SecretStr | None
    MAPLE_GITHUB_OWNER: str | None
    MAPLE_GITHUB_REPO: str | None
    MAPLE_GITHUB_API: str | None
    MAPLE_GITHUB_TRANSPORT: Transport
    MAPLE_PR_REVIEW: Literal["off", "agent", "gate"]
    MAPLE_TRUSTED_BOTS: str | None
    MAPLE_GITHUB_RESERVE: str
    MAPLE_BRANCH: str | None
    MAPLE_URL: str | None
    MAPLE_GATE_TOKEN: SecretStr | None
    MAPLE_GATE_APP_ID: str | None
    MAPLE_GATE_INSTALLATION_ID: str | None
    MAPLE_GATE_PRIVATE_KEY: SecretStr | None
    MAPLE_REQUIRE_APPROVAL: str | None
    MAPLE_REQUIRE_CONFIRMATION: str | None
    MAPLE_REVIEW_URL: str | None
    MAPLE_AGENTS: str | None
    MAPLE_UNATTENDED: str | None
    GH_TOKEN: SecretStr | None
    GH_ENTERPRISE_TOKEN: SecretStr | None
    GITHUB_ENTERPRISE_TOKEN: SecretStr | None
    GITHUB_EVENT_NAME: str | None
    GITHUB_EVENT_PATH: str | None
    GITHUB_REPOSITORY: str | None
    GITHUB_API_URL: str | None
    XDG_CACHE_HOME: str | None

    @property
    def cache_folder(self) -> Path:
        """Where maple keeps what it can rebuild: ``$XDG_CACHE_HOME/maple`` or ``~/.cache/maple``.

        A relative ``XDG_CACHE_HOME`` is ignored, as the XDG specification says.
        """
        home = self.XDG_CACHE_HOME
        base = Path(home) if home and Path(home).is_absolute() else Path.home() / ".cache"
        return base / "maple"

    @property
    def require_approval(self) -> bool:
        """``MAPLE_REQUIRE_APPROVAL`` is exactly ``true``."""
        return self.MAPLE_REQUIRE_APPROVAL == "true"

    @property
    def require_confirmation(self) -> bool:
        """``MAPLE_REQUIRE_CONFIRMATION`` is exactly ``true``."""
        return self.MAPLE_REQUIRE_CONFIRMATION == "true"

    @property
    def github_reserve(self) -> float:
        """``MAPLE_GITHUB_RESERVE`` as a share of the limit: ``20%`` (or ``20``) is 0.2.

        Raises:
            ConfigurationError: it is not a percentage from 0% to 90%.
        """
        text = self.MAPLE_GITHUB_RESERVE.strip().removesuffix("%").strip()
        try:
            share = float(text) / 100
        except ValueError:
            share = -1.0
        if not 0.0 <= share <= 0.9:  # also refuses nan
            raise ConfigurationError(
                f"Unknown MAPLE_GITHUB_RESERVE {self.MAPLE_GITHUB_RESERVE}; it must be a "
                "percentage from 0% to 90% of GitHub's rate limit, such as 20%."
            )
        return share

    @property
    def repository(self) -> str:
        """``owner/name`` from ``MAPLE_GITHUB_OWNER`` and ``MAPLE_GITHUB_REPO``, else ``default``.

        The repository a sql store's comments and tokens belong to.
        """
        owner, repo = self.MAPLE_GITHUB_OWNER, self.MAPLE_GITHUB_REPO
        return f"{owner}/{repo}" if owner and repo else "default"

    def secrets(self) -> list[str]:
        """Every secret value set, so output can be scrubbed of them."""
        values = (getattr(self, name) for name in sorted(SECRET_VARIABLES))
        return [v.get_secret_value() for v in values if v is not None]


class AgentSettings(_FromEnvironment):
    """What every program that starts external agents reads: whether anybody watches."""

    MAPLE_UNATTENDED: str | None

    @property
    def unattended(self) -> bool:
        """``MAPLE_UNATTENDED`` is set: this process runs in a turn nobody watches."""
        return self.MAPLE_UNATTENDED is not None


class SessionSettings(_FromEnvironment):
    """What a session reads about itself: its id, its client's session, the temporary folder."""

    MAPLE_SESSION: str | None
    CLAUDE_CODE_SESSION_ID: str | None
    TMPDIR: str | None
    TMP: str | None
    TEMP: str | None

    @property
    def temp_dir(self) -> str:
        """Where this machine's sessions note who they are (as the Stop hook finds it)."""
        known = {k: v for k, v in (("TMPDIR", self.TMPDIR), ("TMP", self.TMP)) if v}
        if self.TEMP:
            known["TEMP"] = self.TEMP
        return temp_folder(known)


class ClassifierSettings(_FromEnvironment):
    """What every program that receives reviewers' replies reads: which harness reads them."""

    MAPLE_CLASSIFIER: ClassifierKind
    MAPLE_CLASSIFIER_MODEL: str | None


class InstallSettings(_FromEnvironment):
    """What ``maple install`` and ``maple doctor`` read about the coding clients."""

    CODEX_HOME: str | None
    CLAUDE_CODE_DISABLE_MCP_TASKS: str | None
    VIRTUAL_ENV: str | None


@dataclass(frozen=True, slots=True)
class GitHubConfig:
    """Where and how to reach the repository; tokens stay ``SecretStr``.

    ``pr_review`` (``MAPLE_PR_REVIEW``), ``trusted_bots`` (``MAPLE_TRUSTED_BOTS``) and
    ``reserve`` (``MAPLE_GITHUB_RESERVE``, a share) shape the pull request's own review, read
    through the per-machine shared folder under ``cache_root``.
    """

    owner: str | None = None
    repo: str | None = None
    api_url: str | None = None
    token: SecretStr | None = None
    gate_token: SecretStr | None = None
    gate_app_id: str | None = None
    pr_review: str = "agent"
    trusted_bots: str | None = None
    reserve: float = 0.2
    cache_root: Path | None = None


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """A checked configuration: which store, which gate path, whether approval is required."""

    store: StoreKind
    gate: GateMode
    transport: Transport
    require_approval: bool
    github: GitHubConfig = GitHubConfig()
    require_confirmation: bool = False
    route_url: str | None = None
    agents: tuple[str, ...] = ()
    database_url: SecretStr | None = None
    repository: str = "default"


def _required(value: str | SecretStr | None, name: str, program: str) -> str:
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if not value:
        description = describe_variable(name)
        it_is = f" It is: {description}" if description else ""
        raise ConfigurationError(f"{name} is not set; {program} cannot start without it.{it_is}")
    return value


def _store_kind(settings: Settings) -> StoreKind:
    if settings.MAPLE_STORE is None:
        forge = settings.GITHUB_TOKEN or settings.MAPLE_GITHUB_OWNER or settings.MAPLE_GITHUB_REPO
        return StoreKind.GITHUB if forge else StoreKind.FILE
    try:
        return StoreKind(settings.MAPLE_STORE)
    except ValueError:
        raise ConfigurationError(
            f'Unknown MAPLE_STORE {settings.MAPLE_STORE}; "github" and "file" exist, "route" '
            'for a deployed Maple route and "sql" for a database.'
        ) from None


def store_kind(settings: Settings, program: str = "Maple's MCP server") -> StoreKind:
    """The configured store, with the variables it needs checked (Maple's ``storeFromEnvironment``).

    Raises:
        ConfigurationError: ``MAPLE_STORE`` is unknown, or a variable the store needs is unset.
    """
    store = _store_kind(settings)
    if store is StoreKind.GITHUB:
        _required(settings.MAPLE_GITHUB_OWNER, "MAPLE_GITHUB_OWNER", program)
        _required(settings.MAPLE_GITHUB_REPO, "MAPLE_GITHUB_REPO", program)
        if settings.MAPLE_GITHUB_TRANSPORT is Transport.API:
            _required(settings.GITHUB_TOKEN, "GITHUB_TOKEN", program)  # auto may use gh's
    elif store is StoreKind.ROUTE:
        _required(settings.MAPLE_URL, "MAPLE_URL", program)
    elif store is StoreKind.SQL:
        _required(settings.MAPLE_DATABASE_URL, "MAPLE_DATABASE_URL", program)
    return store


def resolve_config(settings: Settings, program: str = "Maple's MCP server") -> ServerConfig:
    """Check the settings as Maple's server does at start-up, in its order.

    Raises:
        ConfigurationError: one line naming the variable and what to do.
    """
    gate = GateMode.NONE
    if settings.MAPLE_URL and settings.MAPLE_GATE_TOKEN:
        raise ConfigurationError(
            f"MAPLE_URL and MAPLE_GATE_TOKEN are both set; {program} cannot start with both. "
            "Keep MAPLE_URL on a developer machine, where the route publishes the gate, and "
            "MAPLE_GATE_TOKEN for CI only."
        )
    if settings.MAPLE_GATE_TOKEN:
        _required(settings.MAPLE_GITHUB_OWNER, "MAPLE_GITHUB_OWNER", program)
        _required(settings.MAPLE_GITHUB_REPO, "MAPLE_GITHUB_REPO", program)
        gate = GateMode.DIRECT
    # Through a route store the route publishes after its own status change, so no refresh is
    # asked for, and GITHUB_TOKEN is sent only when it is set.
    if settings.MAPLE_URL and _store_kind(settings) is not StoreKind.ROUTE:
        _required(settings.GITHUB_TOKEN, "GITHUB_TOKEN", program)
        gate = GateMode.ROUTE
    store = store_kind(settings, program)
    return ServerConfig(
        store=store,
        gate=gate,
        transport=settings.MAPLE_GITHUB_TRANSPORT,
        require_approval=settings.require_approval,
        require_confirmation=settings.require_confirmation,
        github=GitHubConfig(
            owner=settings.MAPLE_GITHUB_OWNER,
            repo=settings.MAPLE_GITHUB_REPO,
            api_url=settings.MAPLE_GITHUB_API,
            token=settings.GITHUB_TOKEN,
            gate_token=settings.MAPLE_GATE_TOKEN,
            gate_app_id=settings.MAPLE_GATE_APP_ID,
            pr_review=settings.MAPLE_PR_REVIEW,
            trusted_bots=settings.MAPLE_TRUSTED_BOTS,
            reserve=settings.github_reserve if store is StoreKind.GITHUB else 0.2,
            cache_root=settings.cache_folder,
        ),
        route_url=settings.MAPLE_URL,
        agents=_agents(settings),
        database_url=settings.MAPLE_DATABASE_URL,
        repository=settings.repository,
    )


def _agents(settings: Settings) -> tuple[str, ...]:
    """The external agents offered: none in a turn nobody watches (``MAPLE_UNATTENDED``).

    There a reviewer's words could otherwise have an agent started that runs what nobody
    approved.
    """
    named = _named_agents(settings)  # checked even when unused, so a mistake is still said
    return () if settings.MAPLE_UNATTENDED is not None else named


def _named_agents(settings: Settings) -> tuple[str, ...]:
    from maple_core.agents import PROVIDERS

    named = [a.strip() for a in (settings.MAPLE_AGENTS or "").split(",") if a.strip()]
    unknown = [a for a in named if a not in PROVIDERS]
    if unknown:
        raise ConfigurationError(
            f"Unknown MAPLE_AGENTS entry {unknown[0]}; name codex and/or claude, comma-separated."
        )
    return tuple(dict.fromkeys(named))


def _refusal(error: ValidationError) -> ConfigurationError:
    """The first of pydantic's complaints, said in the table's words."""
    problem = error.errors()[0]
    name = str(problem["loc"][0])
    return ConfigurationError(
        f"Unknown {name} {problem['input']}; it must be {VARIABLES[name].type}."
    )


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Every secret value set in ``environ`` (default: the process environment), unchecked.

    For scrubbing what a failure says, where the settings themselves may be what failed.
    """
    env = os.environ if environ is None else environ
    values = (read_variable(env, name) for name in sorted(SECRET_VARIABLES))
    return [v for v in values if v]


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """:meth:`Settings.load`: the checked settings from ``environ`` (default: the process's).

    Raises:
        ConfigurationError: a variable's value is not of its type.
    """
    return Settings.load(environ)


def configuration_values(environ: Mapping[str, str] | None = None) -> list[tuple[str, str | None]]:
    """Every variable of the table as set in ``environ`` (a secret only as ``set`` or unset).

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
