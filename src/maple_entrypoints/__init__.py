"""Entrypoints: the CLI, the MCP server, the Stop hook, the route, the settings, the bootstrap.

Each name lives in, and is listed by, its own module: the variables in
``maple_entrypoints.configuration``, the checks at start-up in ``maple_entrypoints.settings``, the
setups in ``maple_entrypoints.bootstrap``. Importing this package loads nothing else, so the
Stop hook's start-up never loads pydantic or the MCP SDK.
"""

__all__: list[str] = []
