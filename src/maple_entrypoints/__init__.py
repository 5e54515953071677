"""Entrypoints: the CLI, the MCP server, the Stop hook, the route, settings and the bootstrap.

Each name lives in, and is listed by, its own module: the store the environment configures is
``maple_entrypoints.bootstrap.server.store_from_environment``, the settings are in
``maple_entrypoints.settings``. Importing this package loads nothing else, so the Stop hook's
start-up never loads pydantic or the MCP SDK.
"""

__all__: list[str] = []


def __dir__() -> list[str]:
    """The package's public names: none of its own (PEP 562)."""
    return list(__all__)
