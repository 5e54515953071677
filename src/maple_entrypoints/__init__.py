"""Entrypoints: the CLI, settings and wiring (the MCP server and Stop hook arrive later)."""

from maple_entrypoints.settings import Settings, StoreKind, load_settings
from maple_entrypoints.wiring import build_store

__all__ = ["Settings", "StoreKind", "build_store", "load_settings"]
