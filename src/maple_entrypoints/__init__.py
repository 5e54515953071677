"""Entrypoints: the CLI, the MCP server, the Stop hook, the route, settings and the bootstrap.

Names are imported on first use, so the Stop hook's start-up never loads pydantic or the MCP SDK.
"""

from __future__ import annotations

from maple_core.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.bootstrap.server import build_gate, build_store, store_from_environment
    from maple_entrypoints.settings import (
        ServerConfig,
        Settings,
        StoreKind,
        load_settings,
        resolve_config,
    )

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

_HOMES = {
    "ServerConfig": "maple_entrypoints.settings",
    "Settings": "maple_entrypoints.settings",
    "StoreKind": "maple_entrypoints.settings",
    "build_gate": "maple_entrypoints.bootstrap.server",
    "build_store": "maple_entrypoints.bootstrap.server",
    "load_settings": "maple_entrypoints.settings",
    "resolve_config": "maple_entrypoints.settings",
    "store_from_environment": "maple_entrypoints.bootstrap.server",
}


if not TYPE_CHECKING:  # type checkers see the real imports above
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
