"""Settings: the only module that reads the environment, and the checks made at start-up.

The checks follow Maple's order and wording (gate, then refresh, then store), so a
configuration Maple refuses is refused here with the same intent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from maple_core.environment import SECRET_VARIABLES, describe_variable
from maple_core.errors import ConfigurationError

__all__ = [
    "GateMode",
    "GitHubConfig",
    "ServerConfig",
    "Settings",
    "StoreKind",
    "Transport",
    "load_settings",
    "resolve_config",
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


class Settings(BaseSettings):
    """maple's environment, as read; :func:`resolve_config` checks it."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=True, extra="ignore")

    MAPLE_STORE: str | None = None
    GITHUB_TOKEN: SecretStr | None = None
    MAPLE_GITHUB_OWNER: str | None = None
    MAPLE_GITHUB_REPO: str | None = None
    MAPLE_GITHUB_API: str | None = None
    MAPLE_GITHUB_TRANSPORT: str | None = None
    MAPLE_BRANCH: str | None = None
    MAPLE_URL: str | None = None
    MAPLE_GATE_TOKEN: SecretStr | None = None
    MAPLE_GATE_APP_ID: str | None = None
    MAPLE_GATE_INSTALLATION_ID: str | None = None
    MAPLE_GATE_PRIVATE_KEY: SecretStr | None = None
    MAPLE_REQUIRE_APPROVAL: str | None = None
    MAPLE_REVIEW_URL: str | None = None
    MAPLE_AGENTS: str | None = None
    GH_TOKEN: SecretStr | None = None
    GH_ENTERPRISE_TOKEN: SecretStr | None = None
    GITHUB_ENTERPRISE_TOKEN: SecretStr | None = None

    def text(self, name: str) -> str | None:
        """The variable's value (a secret revealed), or ``None`` when unset or empty."""
        value = getattr(self, name)
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        return value or None

    def secrets(self) -> list[str]:
        """Every secret value set, so output can be scrubbed of them."""
        names = sorted(SECRET_VARIABLES & set(type(self).model_fields))
        return [v for v in (self.text(n) for n in names) if v]


@dataclass(frozen=True, slots=True)
class GitHubConfig:
    """Where and how to reach the repository; tokens stay ``SecretStr``."""

    owner: str | None = None
    repo: str | None = None
    api_url: str | None = None
    token: SecretStr | None = None
    gate_token: SecretStr | None = None
    gate_app_id: str | None = None


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """A checked configuration: which store, which gate path, whether approval is required."""

    store: StoreKind
    gate: GateMode
    transport: Transport
    require_approval: bool
    github: GitHubConfig = GitHubConfig()
    route_url: str | None = None
    agents: tuple[str, ...] = ()


def _required(settings: Settings, name: str, program: str) -> str:
    value = settings.text(name)
    if value is None:
        description = describe_variable(name)
        it_is = f" It is: {description}" if description else ""
        raise ConfigurationError(f"{name} is not set; {program} cannot start without it.{it_is}")
    return value


def _store_kind(settings: Settings) -> StoreKind:
    if settings.MAPLE_STORE is None:
        forge = any(
            settings.text(n) for n in ("GITHUB_TOKEN", "MAPLE_GITHUB_OWNER", "MAPLE_GITHUB_REPO")
        )
        return StoreKind.GITHUB if forge else StoreKind.FILE
    try:
        return StoreKind(settings.MAPLE_STORE)
    except ValueError:
        raise ConfigurationError(
            f'Unknown MAPLE_STORE {settings.MAPLE_STORE}; "github" and "file" exist, and "route" '
            "for a deployed Maple route."
        ) from None


def store_kind(settings: Settings, program: str = "Maple's MCP server") -> StoreKind:
    """The configured store, with the variables it needs checked (Maple's ``storeFromEnvironment``).

    Raises:
        ConfigurationError: ``MAPLE_STORE`` is unknown, or a variable the store needs is unset.
    """
    store = _store_kind(settings)
    if store is StoreKind.GITHUB:
        needed = ["MAPLE_GITHUB_OWNER", "MAPLE_GITHUB_REPO"]
        if Transport.API.value == settings.MAPLE_GITHUB_TRANSPORT:
            needed.append("GITHUB_TOKEN")  # auto without a token may use a signed-in gh
        for name in needed:
            _required(settings, name, program)
    elif store is StoreKind.ROUTE:
        _required(settings, "MAPLE_URL", program)
    return store


def resolve_config(settings: Settings, program: str = "Maple's MCP server") -> ServerConfig:
    """Check the settings as Maple's server does at start-up, in its order.

    Raises:
        ConfigurationError: one line naming the variable and what to do.
    """
    gate = GateMode.NONE
    if settings.text("MAPLE_URL") and settings.text("MAPLE_GATE_TOKEN"):
        raise ConfigurationError(
            f"MAPLE_URL and MAPLE_GATE_TOKEN are both set; {program} cannot start with both. "
            "Keep MAPLE_URL on a developer machine, where the route publishes the gate, and "
            "MAPLE_GATE_TOKEN for CI only."
        )
    if settings.text("MAPLE_GATE_TOKEN"):
        _required(settings, "MAPLE_GITHUB_OWNER", program)
        _required(settings, "MAPLE_GITHUB_REPO", program)
        gate = GateMode.DIRECT
    # Through a route store the route publishes after its own status change, so no refresh is
    # asked for, and GITHUB_TOKEN is sent only when it is set.
    if settings.text("MAPLE_URL") and _store_kind(settings) is not StoreKind.ROUTE:
        _required(settings, "GITHUB_TOKEN", program)
        gate = GateMode.ROUTE
    store = store_kind(settings, program)
    try:
        transport = Transport(settings.MAPLE_GITHUB_TRANSPORT or "auto")
    except ValueError:
        raise ConfigurationError(
            f"Unknown MAPLE_GITHUB_TRANSPORT {settings.MAPLE_GITHUB_TRANSPORT}; "
            '"auto", "api" and "cli" exist.'
        ) from None
    return ServerConfig(
        store=store,
        gate=gate,
        transport=transport,
        require_approval=settings.MAPLE_REQUIRE_APPROVAL == "true",
        github=GitHubConfig(
            owner=settings.text("MAPLE_GITHUB_OWNER"),
            repo=settings.text("MAPLE_GITHUB_REPO"),
            api_url=settings.text("MAPLE_GITHUB_API"),
            token=settings.GITHUB_TOKEN if settings.text("GITHUB_TOKEN") else None,
            gate_token=settings.MAPLE_GATE_TOKEN if settings.text("MAPLE_GATE_TOKEN") else None,
            gate_app_id=settings.text("MAPLE_GATE_APP_ID"),
        ),
        route_url=settings.text("MAPLE_URL"),
        agents=_agents(settings),
    )


def _agents(settings: Settings) -> tuple[str, ...]:
    from maple_core.agents import PROVIDERS

    named = [a.strip() for a in (settings.text("MAPLE_AGENTS") or "").split(",") if a.strip()]
    unknown = [a for a in named if a not in PROVIDERS]
    if unknown:
        raise ConfigurationError(
            f"Unknown MAPLE_AGENTS entry {unknown[0]}; name codex and/or claude, comma-separated."
        )
    return tuple(dict.fromkeys(named))


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read settings from ``environ`` (default: the process environment)."""
    if environ is None:
        return Settings()
    known = set(Settings.model_fields)
    return Settings.model_validate({k: v for k, v in environ.items() if k in known})
