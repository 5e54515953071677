"""``maple comments resolve``, ``reply``, ``reopen`` and ``confirm``: a comment's thread.

Each applies one event as the MCP server does and reports it to the gate: the agent resolves
(naming the commit) and replies or asks; a reviewer reopens, confirms or replies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from maple_core.conversation import Role, agent_author
from maple_core.display import shown_one
from maple_core.json_types import JsonObject
from maple_core.reporting import converse_and_report, resolve_and_report
from maple_core.targets import Fix
from maple_core.text import one_line
from maple_core.thread_events import ThreadEvent
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    CommentIdArg,
    JsonOption,
    fail,
    git_author,
    head_commit,
    loop_here,
)
from maple_entrypoints.cli.output import print_json, warn

__all__ = ["confirm", "reopen", "reply", "resolve"]


def resolve(
    comment_id: CommentIdArg,
    sha: Annotated[
        str | None,
        typer.Option("--sha", help="Commit that addresses it; default: the checked-out commit."),
    ] = None,
    note: Annotated[str | None, typer.Option("--note", help="What you changed.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Mark a comment resolved and tell the merge gate, as resolve_comment does.

    In a git checkout the commit must be one HEAD reaches; the full sha is recorded. A comment
    already resolved keeps its first resolution, and this one is recorded in its thread.
    """
    cwd = Path.cwd()
    loop = loop_here(cwd)
    commit = sha or head_commit(cwd)
    if not commit:
        raise fail("no commit is checked out here; pass --sha COMMIT.", EXIT_CONFIG)
    fix = Fix(commit, note, agent_author())
    resolved = resolve_and_report(
        loop.store, comment_id, fix, loop.clock, loop.target, loop.commits
    )
    if as_json:
        print_json(shown_one(resolved, warn))
    else:
        recorded = resolved.resolution.sha if resolved.resolution is not None else commit
        print(f"{resolved.id} resolved at {one_line(recorded[:12])}")


def _converse(cwd: Path, comment_id: str, event: ThreadEvent) -> JsonObject:
    """Apply ``event`` to the comment's thread and report it, as the MCP server does."""
    loop = loop_here(cwd)
    return shown_one(converse_and_report(loop.store, comment_id, event, loop.target), warn)


RoleOption = Annotated[
    Role,
    typer.Option(
        "--as",
        help="Who speaks: the coding agent (the default) or a reviewer.",
        case_sensitive=False,
    ),
]


def reply(
    comment_id: CommentIdArg,
    body: Annotated[str, typer.Argument(help="What to say.", metavar="TEXT")],
    question: Annotated[
        bool,
        typer.Option(
            "--question", help="Ask the reviewer and wait for the answer (the agent only)."
        ),
    ] = False,
    role: RoleOption = Role.AGENT,
    as_json: JsonOption = False,
) -> None:
    """Reply in a comment's thread, or (with --question) ask the reviewer something.

    A question leaves the comment waiting for the reviewer: the Stop hook does not hold the
    agent for it, and a wait returns the comment when the reviewer answers.
    """
    cwd = Path.cwd()
    author = agent_author() if role is Role.AGENT else git_author(cwd)
    data = _converse(
        cwd, comment_id, ThreadEvent.reply(role, body, question=question, author=author)
    )
    _said(data, as_json, "asked" if question else "replied")


def reopen(
    comment_id: CommentIdArg,
    reason: Annotated[str, typer.Argument(help="Why it is not resolved.", metavar="REASON")],
    as_json: JsonOption = False,
) -> None:
    """Reopen a resolved comment as a reviewer, saying why; the agent's next wait returns it."""
    cwd = Path.cwd()
    data = _converse(cwd, comment_id, ThreadEvent.reopen(reason, git_author(cwd)))
    _said(data, as_json, "reopened")


def confirm(
    comment_id: CommentIdArg,
    note: Annotated[str, typer.Option("--note", help="A word for the agent.")] = "",
    as_json: JsonOption = False,
) -> None:
    """Confirm a comment's resolution as a reviewer (MAPLE_REQUIRE_CONFIRMATION waits for it)."""
    cwd = Path.cwd()
    data = _converse(cwd, comment_id, ThreadEvent.confirm(note, git_author(cwd)))
    _said(data, as_json, "confirmed")


def _said(data: JsonObject, as_json: bool, verb: str) -> None:
    if as_json:
        print_json(data)
    else:
        print(f"{one_line(str(data.get('id', '')))} {verb}")
