"""The local checkout: the ``.maple/`` folder's store and media, its commits, clients and agents.

It is what every command working on this machine shares (``maple demo``, ``maple review``,
``maple agents``, ``maple watch``, ``maple doctor``), and what the local route serves (the solo
bridge and the review proxy). The two parts a command may need from the environment, the
classifier and the database, are built only when the command asks for them, so no other command
pays for (or fails on) a harness or a database library it does not use.
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
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.gate_ports import Commits
from maple_core.ports import Clock, CommentStore
from maple_entrypoints.block_counter import temp_folder
from maple_entrypoints.bootstrap.classifier import classifier_from_environment
from maple_entrypoints.configuration import (
    MAPLE_DATABASE_URL,
    MAPLE_SESSION,
    MAPLE_UNATTENDED,
    SECRETS,
    Settings,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # SQLAlchemy loads only for a command on the database
    from maple_entrypoints.bootstrap.sql import SqlDatabase

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
        classifier: the harness ``MAPLE_CLASSIFIER`` names to read reviewers' replies, checked
            when called (``None``: off); a program that reads replies calls it as it starts
            (``maple review``, ``maple solo``, ``maple readings``, ``maple doctor``).
        database: the database ``MAPLE_DATABASE_URL`` names, opened when called (``maple db``,
            ``maple tokens``, ``maple doctor``); one per process.
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
    classifier: Callable[[], FeedbackClassifier | None]
    database: Callable[[], SqlDatabase]


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
        classifier=lambda: classifier_from_environment(settings),
        database=lambda: _database(settings),
    )


def _database(settings: Settings) -> SqlDatabase:
    """The database ``MAPLE_DATABASE_URL`` names.

    Raises:
        ConfigurationError: it is unset or unusable, or the sql extra is not installed.
    """
    from maple_entrypoints.bootstrap.sql import sql_database

    return sql_database(settings[MAPLE_DATABASE_URL])
