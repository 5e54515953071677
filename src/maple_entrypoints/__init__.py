"""Entrypoints: the CLI, the MCP server, settings and wiring."""

from maple_entrypoints.settings import (
    ServerConfig,
    Settings,
    StoreKind,
    load_settings,
    resolve_config,
)
from maple_entrypoints.wiring import build_gate, build_store, store_from_environment

__all__ = [
    "ServerConfig",
    "Settings",
    "StoreKind",
    "build_gate",
    "build_store",
    "load_settings",
    "resolve_config",
    "store_from_environment",
]
