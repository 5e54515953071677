"""The coding clients ``maple install`` registers with: who they are, maple's commands for them.

A client's project is where its files go; maple's server and hook are named bare when their
names already find this installation on ``PATH``, else by their full paths.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from enum import StrEnum
from pathlib import Path

from maple_entrypoints.cli.client_files import UnreadableFileError, read_json
from maple_entrypoints.cli.common import local_here
from maple_entrypoints.configuration import CLAUDE_CODE_DISABLE_MCP_TASKS, VIRTUAL_ENV, Settings

__all__ = [
    "Client",
    "HOOK",
    "SERVER",
    "TASKS_OFF",
    "bare_names_work",
    "command_for",
    "hook_command",
    "is_maple_hook",
    "project_root",
    "tasks_disabled_by",
    "tasks_note",
]


SERVER = "maple-mcp"


HOOK = "maple-stop-hook"


class Client(StrEnum):
    """The coding clients maple installs into."""

    CLAUDE_CODE = "claude-code"
    CURSOR = "cursor"
    CODEX = "codex"


def _ours(name: str) -> Path:
    return Path(sys.executable).with_name(name)


def bare_names_work() -> bool:
    """True when a client's usual ``PATH`` runs this installation's scripts by their names.

    ``PATH`` must find this installation's ``maple-mcp`` and ``maple-stop-hook`` both, and not
    only because its virtualenv is activated (``VIRTUAL_ENV``): a client started from elsewhere
    (a desktop app, another shell) does not have that.
    """
    venv = Settings()[VIRTUAL_ENV]
    if venv and Path(venv).resolve() == Path(sys.executable).parent.parent.resolve():
        return False
    for name in (SERVER, HOOK):
        found, ours = shutil.which(name), _ours(name)
        if not (found and ours.exists() and Path(found).resolve() == ours.resolve()):
            return False
    return True


def command_for(name: str) -> str:
    """How ``maple install`` writes the console script ``name``.

    ``maple-mcp`` and ``maple-stop-hook`` always take the same form: their names when
    :func:`bare_names_work`, else their full paths.
    """
    ours = _ours(name)
    if bare_names_work() or not ours.exists():
        return name
    return str(ours)


def hook_command(client_flag: str = "") -> str:
    """The Stop hook's command line, for a client that runs hooks through a shell."""
    hook = shlex.quote(command_for(HOOK))  # clients run hooks through a shell
    return f"{hook} {client_flag}".rstrip()


def is_maple_hook(command: object) -> bool:
    """True for a hook command that runs maple's Stop hook (either spelling)."""
    return isinstance(command, str) and (
        "maple-stop-hook" in command or "maple hook stop" in command
    )


def project_root(client: Client, directory: Path) -> Path:
    """Where ``client`` looks for the project's files when started in ``directory``.

    Claude Code and Cursor: the top of the git checkout holding ``directory``. Codex: the main
    checkout, which it reads ``.codex/`` from even in a linked worktree. Outside git: the
    directory itself.
    """
    start = Path(os.path.realpath(directory))
    if client is Client.CODEX:
        return Path(local_here(start).checkout.root)
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


TASKS_OFF = CLAUDE_CODE_DISABLE_MCP_TASKS.name
"""Claude Code's switch that turns MCP tasks off, and with them waking when a comment arrives."""


def _set(value: object) -> bool:
    return isinstance(value, str | int) and str(value).strip().lower() not in (
        "",
        "0",
        "false",
        "no",
        "off",
    )


def tasks_disabled_by(root: Path) -> str | None:
    """Where ``CLAUDE_CODE_DISABLE_MCP_TASKS`` is set for Claude Code in ``root``, or ``None``.

    Looked for in the environment, then in the ``env`` of the project's
    ``.claude/settings.local.json`` and ``.claude/settings.json`` and of the user's
    ``~/.claude/settings.json``. A file that cannot be read is skipped (``maple doctor`` reports
    it on its own line).
    """
    if _set(Settings()[CLAUDE_CODE_DISABLE_MCP_TASKS]):
        return "the environment"
    for path in (
        root / ".claude" / "settings.local.json",
        root / ".claude" / "settings.json",
        Path.home() / ".claude" / "settings.json",
    ):
        try:
            env = read_json(path)[1].get("env")
        except (UnreadableFileError, OSError):
            continue
        if isinstance(env, dict) and _set(env.get(TASKS_OFF)):
            return str(path)
    return None


def tasks_note(where: str) -> str:
    """What to say when ``CLAUDE_CODE_DISABLE_MCP_TASKS`` is set in ``where``."""
    return (
        f"{TASKS_OFF} is set in {where}, so an idle Claude Code session cannot wake when a "
        "reviewer comments; remove it there, or run `maple watch --agent claude` beside it."
    )
