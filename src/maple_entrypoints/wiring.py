"""The composition root: the only place adapters are built from settings."""

from __future__ import annotations

from pathlib import Path

from maple_adapters.files import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.errors import ConfigurationError
from maple_core.ports import Clock, CommentStore
from maple_entrypoints.settings import Settings, StoreKind

__all__ = ["build_store"]


def build_store(settings: Settings, cwd: Path, clock: Clock | None = None) -> CommentStore:
    """Build the configured comment store for a working directory.

    Raises:
        ConfigurationError: the configuration names a store this version cannot build.
    """
    kind = settings.store_kind()
    if kind is StoreKind.FILE:
        return FileCommentStore(clock or SystemClock(), cwd)
    raise ConfigurationError(
        f"MAPLE_STORE={kind.value} is not available in this version of maple yet; "
        "set MAPLE_STORE=file (or unset the GitHub variables) to use the .maple/ folder."
    )
