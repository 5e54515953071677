"""What every ``maple`` command shares: exit codes, one-line errors, the branch and the store."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from maple_core.authors import client_author
from maple_core.comments import Comment
from maple_core.errors import ConfigurationError, MapleError
from maple_core.json_types import JsonObject
from maple_core.ports import CommentStore
from maple_core.text import one_line, without_lone_surrogates
from maple_entrypoints.bootstrap.local import find_checkout

__all__ = [
    "BranchOption",
    "EXIT_BLOCKED",
    "EXIT_CONFIG",
    "EXIT_ERROR",
    "JsonOption",
    "MapleCommands",
    "branch_of",
    "exit_code_for",
    "fail",
    "git_author",
    "head_commit",
    "json_text",
    "print_comments",
    "print_held",
    "print_json",
    "store_here",
    "terminal_text",
    "warn",
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


_WARNED: set[str] = set()


def warn(message: str) -> None:
    """Write ``maple: <message>`` as one line on stderr (once per process) and carry on."""
    if message not in _WARNED:
        _WARNED.add(message)
        sys.stderr.write(f"maple: {one_line(message)}\n")


def branch_of(explicit: str | None, cwd: Path) -> str:
    """``explicit``, else the branch checked out in ``cwd``."""
    if explicit:
        return explicit
    branch = find_checkout(cwd).branch
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


def store_here(cwd: Path) -> CommentStore:
    """The store the environment configures.

    Raises:
        ConfigurationError: the environment is incomplete or names something unknown (exit 2).
    """
    from maple_entrypoints.bootstrap.server import store_from_environment

    return store_from_environment(cwd=cwd, program="maple")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON, as JavaScript's ``JSON.stringify`` writes it.

    Half an emoji (a lone surrogate, which UTF-8 cannot carry) is written as a JSON escape,
    so the value reads back exactly as stored, as Maple's output does.
    """
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: Any) -> None:
    """One JSON document on stdout, two-space indented, as the MCP tools' text content."""
    print(json_text(value))


def _first_line(text: str) -> str:
    return one_line(text.splitlines()[0] if text else "")


def terminal_text(text: str) -> str:
    """Reviewer text safe to print: no escape sequences or other control characters.

    Line breaks and tabs stay; everything else a terminal would act on (``ESC``, ``BEL``, bidi
    overrides) is dropped, so a comment cannot move the cursor, retitle the window, write the
    clipboard or hide text.
    """
    text = str(without_lone_surrogates(text))
    if text.isprintable():
        return text
    return "".join(c for c in text if c in "\n\t" or c.isprintable() or c == " ")


def print_comments(comments: Sequence[Comment], title: str | None = None) -> None:
    """A table on a terminal; tab-separated ``id status created first-line`` lines when piped.

    Every field is shown as plain text: no escape sequence and no rich markup in a comment acts.
    """
    if not sys.stdout.isatty():
        for c in comments:
            fields = (c.id, c.status.value, c.created_at or "", c.body)
            print("\t".join(_first_line(f) for f in fields))
        return
    table = Table(
        "id", "status", "created", "comment", title=title or f"{len(comments)} comment(s)"
    )
    for c in comments:
        table.add_row(
            *(Text(one_line(f)) for f in (c.id, c.status.value, c.created_at or "")),
            Text(terminal_text(c.body) + _thread_lines(c)),
        )
    Console().print(table)


def print_held(comments: Sequence[Comment]) -> None:
    """Held comments apart: a table on a terminal, ``id held created first-line why`` when piped.

    Each says why it is held (its ``github.heldBecause``), as plain text.
    """
    whys = [_held_because(c) for c in comments]
    if not sys.stdout.isatty():
        for c, why in zip(comments, whys, strict=True):
            fields = (c.id, "held", c.created_at or "", c.body, why)
            print("\t".join(_first_line(f) for f in fields))
        return
    title = f"{len(comments)} held: not the agent's work until someone trusted endorses it"
    table = Table("id", "created", "comment", "held because", title=title)
    for c, why in zip(comments, whys, strict=True):
        table.add_row(
            *(Text(one_line(f)) for f in (c.id, c.created_at or "")),
            Text(terminal_text(c.body)),
            Text(one_line(why)),
        )
    Console().print(table)


def _held_because(comment: Comment) -> str:
    details = comment.extra.get("github")
    why = details.get("heldBecause") if isinstance(details, dict) else None
    return why if isinstance(why, str) else ""


def _thread_lines(comment: Comment) -> str:
    """The latest reviewer words and a waiting question, as plain text under the body."""
    from maple_core.conversation import awaiting_reviewer, newest_reviewer_words

    lines = [
        f"\n↳ {one_line(r.author_name)}: {one_line(r.body)}"
        for r in newest_reviewer_words(comment, 2)
    ]
    if awaiting_reviewer(comment):
        lines.append("\n(waiting for the reviewer's answer)")
    return "".join(lines)
