"""The local checkout: the ``.maple/`` folder's store and media, its commits, clients and agents.

Nothing here reads the configuration: it is what every command working on this machine shares
(``maple demo``, ``maple review``, ``maple agents``, ``maple watch``, ``maple doctor``), and what
the local route serves (the solo bridge and the review proxy).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.agents.providers import Agents
from maple_adapters.files.clients import ClientNotes
from maple_adapters.files.commits import GitCommits
from maple_adapters.files.folders import MAPLE, Folder, make_folder, open_folder
from maple_adapters.files.git import GitCheckout, find_checkout
from maple_adapters.files.media import FileMedia
from maple_adapters.files.store import FileCommentStore
from maple_adapters.sessions import SessionRegistry
from maple_adapters.system import SystemClock
from maple_core.ports import Clock, CommentStore, Commits
from maple_entrypoints.block_counter import temp_folder
from maple_entrypoints.configuration import (
    MAPLE_SESSION,
    MAPLE_UNATTENDED,
    SECRETS,
    Settings,
)

__all__ = ["LocalCheckout", "local_checkout"]


@dataclass(frozen=True, slots=True)
class LocalCheckout:
    """What this machine keeps for one working directory's main checkout.

    Attributes:
        checkout: where the directory sits in git (the main checkout, the branch).
        store: the file store in ``<main checkout>/.maple/``.
        media: the screenshots beside it.
        commits: the commits a resolution's sha is checked against.
        clock: the system's clock.
        clients: ``maple-mcp``'s notes of how each client waits (``maple doctor`` reads them).
        agents: the external agents, each child started without maple's secrets, and
            unattended when this process runs in a turn nobody watches (``MAPLE_UNATTENDED``).
        agents_folder: ``.maple/agents/``, made if missing, following no link.
        recorded_agents: ``.maple/agents/``, or ``None`` when nothing was recorded.
        sessions: this machine's session entries (who each ``maple-mcp`` session is), in the
            temporary folder the Stop hook reads them from.
    """

    checkout: GitCheckout
    store: CommentStore
    media: FileMedia
    commits: Commits
    clock: Clock
    clients: ClientNotes
    agents: Agents
    agents_folder: Callable[[], Folder]
    recorded_agents: Callable[[], Folder | None]
    sessions: SessionRegistry


def local_checkout(cwd: Path, clock: Clock | None = None) -> LocalCheckout:
    """The local checkout of ``cwd``: its store, media, commits, clients and agents."""
    clock = clock or SystemClock()
    settings = Settings()
    checkout = find_checkout(cwd)
    root = checkout.root
    return LocalCheckout(
        checkout=checkout,
        store=FileCommentStore(clock, cwd),
        media=FileMedia(cwd),
        commits=GitCommits(cwd),
        clock=clock,
        clients=ClientNotes(cwd),
        agents=Agents(
            SECRETS,
            MAPLE_UNATTENDED.name,
            unattended=settings.text(MAPLE_UNATTENDED) is not None,
            session_mark=MAPLE_SESSION.name,
        ),
        sessions=SessionRegistry(temp_folder(settings)),
        agents_folder=lambda: make_folder(
            root, (MAPLE, "agents"), store="agents", operation="record"
        ),
        recorded_agents=lambda: open_folder(
            root, (MAPLE, "agents"), store="agents", operation="read"
        ),
    )
