"""What every ``maple`` command shares: exit codes, one-line errors, the branch and the store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from maple_core.authors import client_author
from maple_core.errors import ConfigurationError, MapleError
from maple_core.json_types import JsonObject, JsonValue
from maple_core.ports import CommentStore
from maple_entrypoints.bootstrap.agent_loop import AgentLoop, agent_loop
from maple_entrypoints.bootstrap.ci import CiGate, ci_gate
from maple_entrypoints.bootstrap.local import LocalCheckout, local_checkout
from maple_entrypoints.bootstrap.route import RouteServer, route_server
from maple_entrypoints.route_settings import RouteStoreKind

__all__ = [
    "BranchOption",
    "CommentIdArg",
    "EXIT_BLOCKED",
    "EXIT_CONFIG",
    "EXIT_ERROR",
    "JsonOption",
    "MapleCommands",
    "branch_of",
    "ci_gate_here",
    "command_group",
    "exit_code_for",
    "fail",
    "git_author",
    "head_commit",
    "local_here",
    "loop_here",
    "route_server_here",
    "store_here",
]

EXIT_ERROR = 1
"""A store, network or input error."""
EXIT_CONFIG = 2
"""A usage or configuration error."""
EXIT_BLOCKED = 3
"""``maple gate decide``: the gate is blocked."""

BranchOption = Annotated[
    str | None,
    typer.Option("--branch", "-b", help="Head branch the comments are on; default: checked out."),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the MCP tool's JSON result instead of text.")
]
CommentIdArg = Annotated[str, typer.Argument(help="The comment's id.", metavar="ID")]


def command_group(help: str, epilog: str | None = None) -> typer.Typer:
    """A group of maple commands (``maple gate``, ``maple db``…): run bare, it shows its help."""
    return typer.Typer(help=help, no_args_is_help=True, epilog=epilog)


def exit_code_for(error: MapleError) -> int:
    """:data:`EXIT_CONFIG` for a configuration error, else :data:`EXIT_ERROR`.

    A value the command was given to act on that cannot be used (an address, an id, a cursor)
    is an input error, exit 1, like a store or network failure; only a setting is exit 2.
    """
    return EXIT_CONFIG if isinstance(error, ConfigurationError) else EXIT_ERROR


class MapleCommands(TyperGroup):
    """The ``maple`` command group: the one place a :class:`MapleError` meets the terminal.

    Whatever command raised it, the error is one line on stderr (``maple: <message>``) and
    exits with :func:`exit_code_for`'s code; a command catches a ``MapleError`` itself only to
    say something else.
    """

    def invoke(self, ctx: Any) -> Any:
        """Run the command, turning a ``MapleError`` into its message and exit code."""
        try:
            return super().invoke(ctx)
        except MapleError as exc:
            raise fail(str(exc), exit_code_for(exc)) from None


def fail(message: str, code: int) -> typer.Exit:
    """Write ``maple: <message>`` as one line on stderr and return the exit to raise."""
    sys.stderr.write(f"maple: {message}\n")  # one line, never wrapped to the terminal's width
    return typer.Exit(code)


def branch_of(explicit: str | None, cwd: Path) -> str:
    """``explicit``, else the branch checked out in ``cwd``."""
    if explicit:
        return explicit
    branch = local_here(cwd).checkout.branch
    if branch is None:
        raise fail("no branch is checked out here; pass --branch NAME.", EXIT_CONFIG)
    return branch


def head_commit(cwd: Path) -> str | None:
    """The commit checked out in ``cwd`` (``git rev-parse HEAD``), or ``None``."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def git_author(cwd: Path) -> JsonObject | None:
    """The git identity in ``cwd`` as a comment's author (``user.name``, keyed by ``user.email``).

    ``None`` when git names nobody, so the store signs the comment as Maple's guest.
    """

    def config(key: str) -> str:
        try:
            done = subprocess.run(
                ["git", "config", "--get", key], cwd=cwd, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    name, email = config("user.name"), config("user.email")
    if not name:
        return None
    return client_author(f"git:{email or name}", name)


def loop_here(cwd: Path) -> AgentLoop:
    """The agent loop the environment configures, as ``maple-mcp`` has it (the CLI's setup).

    Raises:
        ConfigurationError: the environment is incomplete or names something unknown (exit 2).
    """
    return agent_loop(cwd, program="maple", service="maple")


def store_here(cwd: Path) -> CommentStore:
    """The store the environment configures (:func:`loop_here`'s).

    Raises:
        ConfigurationError: the environment is incomplete or names something unknown (exit 2).
    """
    return loop_here(cwd).store


def ci_gate_here(event_name: str, payload: JsonValue, review_url: str | None) -> CiGate:
    """The CI gate for the GitHub Actions event ``event_name`` (``maple gate publish``).

    Raises:
        InvalidInputError: the event's payload lacks what the event needs.
        ConfigurationError: no repository or token, or a bad review URL (exit 2).
    """
    return ci_gate(event_name, payload, review_url=review_url)


def route_server_here(kind: RouteStoreKind, cwd: Path, review_url: str | None) -> RouteServer:
    """``maple route serve``'s setup; ``review_url`` (``--review-url``) wins over the variable.

    Raises:
        ConfigurationError: a variable the store or the gate needs is unset or malformed (exit 2).
    """
    return route_server(kind, cwd, review_url=review_url)


def local_here(cwd: Path) -> LocalCheckout:
    """``cwd``'s local checkout: its ``.maple/`` store and media, commits, clients and agents."""
    return local_checkout(cwd)
