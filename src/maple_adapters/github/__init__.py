"""GitHub: the pull-request ledger store and the check-run gate, over PyGithub or ``gh``.

Names are imported on first use, so nothing here loads unless GitHub is configured.
"""

from __future__ import annotations

from maple_core.lazy import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.github.gate import CHECK_NAME, GitHubCheckRunPublisher
    from maple_adapters.github.store import GitHubLedgerStore
    from maple_adapters.github.transport import (
        ConditionalTransport,
        GhCliTransport,
        GitHubTransport,
        PyGithubTransport,
        ResilientTransport,
    )

__all__ = [
    "CHECK_NAME",
    "ConditionalTransport",
    "GhCliTransport",
    "GitHubCheckRunPublisher",
    "GitHubLedgerStore",
    "GitHubTransport",
    "PyGithubTransport",
    "ResilientTransport",
]

_HOMES = {
    "CHECK_NAME": "maple_adapters.github.gate",
    "ConditionalTransport": "maple_adapters.github.transport",
    "GhCliTransport": "maple_adapters.github.transport",
    "GitHubCheckRunPublisher": "maple_adapters.github.gate",
    "GitHubLedgerStore": "maple_adapters.github.store",
    "GitHubTransport": "maple_adapters.github.transport",
    "PyGithubTransport": "maple_adapters.github.transport",
    "ResilientTransport": "maple_adapters.github.transport",
}


if not TYPE_CHECKING:  # type checkers see the real imports above
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
