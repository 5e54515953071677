"""Settings: the only module that reads the environment."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from maple_core.errors import ConfigurationError

__all__ = ["Settings", "StoreKind", "load_settings"]


class StoreKind(StrEnum):
    """The stores ``MAPLE_STORE`` can name."""

    FILE = "file"
    GITHUB = "github"
    ROUTE = "route"


class Settings(BaseSettings):
    """maple's configuration, read from the environment (names in ``environment.ENVIRONMENT``)."""

    model_config = SettingsConfigDict(env_prefix="", case_sensitive=True, extra="ignore")

    GITHUB_TOKEN: SecretStr | None = None
    MAPLE_GITHUB_OWNER: str | None = None
    MAPLE_GITHUB_REPO: str | None = None
    MAPLE_STORE: str | None = None

    def store_kind(self) -> StoreKind:
        """The store to use: ``MAPLE_STORE``, else ``github`` when any GitHub variable is set.

        Raises:
            ConfigurationError: ``MAPLE_STORE`` names no store.
        """
        if self.MAPLE_STORE is None:
            token = self.GITHUB_TOKEN.get_secret_value() if self.GITHUB_TOKEN else ""
            forge = token or self.MAPLE_GITHUB_OWNER or self.MAPLE_GITHUB_REPO
            return StoreKind.GITHUB if forge else StoreKind.FILE
        try:
            return StoreKind(self.MAPLE_STORE)
        except ValueError:
            names = ", ".join(f'"{k.value}"' for k in StoreKind)
            raise ConfigurationError(
                f"Unknown MAPLE_STORE {self.MAPLE_STORE}; {names} exist."
            ) from None


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read settings from ``environ`` (default: the process environment)."""
    if environ is None:
        return Settings()
    known = set(Settings.model_fields)
    return Settings.model_validate({k: v for k, v in environ.items() if k in known})
