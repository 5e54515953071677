"""GitHub: the pull-request ledger store and the check-run gate, over PyGithub or ``gh``.

Names are imported on first use, so nothing here loads unless GitHub is configured.
"""

from __future__ import annotations

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

    def __getattr__(name: str) -> object:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(__import__(home, fromlist=[name]), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(__all__)
