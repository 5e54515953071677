"""The composition root: the only code that builds adapters, one module per kind of profile.

- :mod:`~maple_entrypoints.bootstrap.server`: the agent's MCP server, the CLI and the Stop
  hook's forge path: the store, gate and refresher the settings name.
- :mod:`~maple_entrypoints.bootstrap.github`: GitHub's transports (every one wrapped alike),
  the ledger store, the check-run publisher, and the CI gate publisher from the GitHub event.
- :mod:`~maple_entrypoints.bootstrap.route`: the route server (a store per caller token) and
  the local route behind the solo bridge and the review proxy.
- :mod:`~maple_entrypoints.bootstrap.agents`: external agents.
- :mod:`~maple_entrypoints.bootstrap.local`: the clock, git discovery, the file store and media.

Entrypoints ask these for their parts and never import ``maple_adapters`` themselves (an
import-linter contract holds it).
"""

__all__: list[str] = []
