"""The composition root: the only code that builds adapters, as a few named setups.

Each setup returns one ready, frozen object:

- :func:`~maple_entrypoints.bootstrap.agent_loop.agent_loop`: what ``maple-mcp``, the CLI and
  the Stop hook's forge path work with (the store, the gate target, the log, the clock, media,
  commits);
- :func:`~maple_entrypoints.bootstrap.route.route_server`: ``maple route serve``;
- :func:`~maple_entrypoints.bootstrap.local.local_checkout`: this machine's ``.maple/`` folder,
  what the local route (the solo bridge, the review proxy) serves;
- :func:`~maple_entrypoints.bootstrap.ci.ci_gate`: ``maple gate publish`` in CI.

The setups read the settings (``maple_entrypoints.settings``) and import no other entrypoint
module; entrypoints never import ``maple_adapters`` themselves (import-linter holds both).
"""

__all__: list[str] = []
