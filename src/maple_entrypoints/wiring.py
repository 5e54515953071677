"""The composition root: the only place adapters are built from settings."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from maple_adapters.files import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.errors import ConfigurationError
from maple_core.ports import Clock, CommentStore, GatePublisher
from maple_entrypoints.settings import (
    GateMode,
    ServerConfig,
    StoreKind,
    load_settings,
    resolve_config,
)

__all__ = ["build_gate", "build_store", "store_from_environment"]


def build_store(config: ServerConfig, cwd: Path, clock: Clock | None = None) -> CommentStore:
    """Build the configured comment store for a working directory.

    Raises:
        ConfigurationError: the configuration names a store this version cannot build.
    """
    if config.store is StoreKind.FILE:
        return FileCommentStore(clock or SystemClock(), cwd)
    raise ConfigurationError(
        f"MAPLE_STORE={config.store.value} is not available in this version of maple yet; "
        "set MAPLE_STORE=file (or unset the GitHub variables) to use the .maple/ folder."
    )


def build_gate(config: ServerConfig) -> GatePublisher | None:
    """Build the gate publisher a resolve reports to, or ``None`` when none is configured.

    Raises:
        ConfigurationError: the configuration asks for a gate this version cannot publish.
    """
    if config.gate is GateMode.NONE:
        return None
    variable = "MAPLE_URL" if config.gate is GateMode.ROUTE else "MAPLE_GATE_TOKEN"
    raise ConfigurationError(
        f"{variable} is set, but this version of maple cannot publish the merge gate yet; "
        f"unset {variable} to run without a gate."
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
