"""``maple comments``: list, wait for, show, add, resolve and converse on review comments."""

from __future__ import annotations

import re
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from maple_core.anchors import Anchor
from maple_core.attachments import Attachment, images_of
from maple_core.comments import Comment, NewComment
from maple_core.context import comment_context
from maple_core.conversation import ReplyKind, Role, agent_author, thread_of
from maple_core.cursor import parse_cursor
from maple_core.display import shown, shown_one
from maple_core.errors import MapleError
from maple_core.json_types import JsonObject
from maple_core.listing import list_all
from maple_core.page_context import Context
from maple_core.ports import CommentStore, HeldComments
from maple_core.reporting import converse_and_report, resolve_and_report
from maple_core.statuses import CommentStatus
from maple_core.targets import Fix
from maple_core.text import one_line
from maple_core.thread_events import ThreadEvent
from maple_core.threads import awaiting_reviewer
from maple_core.waiting import wait_for_comments
from maple_entrypoints.cli.claims import claim, release
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    BranchOption,
    JsonOption,
    branch_of,
    fail,
    git_author,
    head_commit,
    local_here,
    loop_here,
    store_here,
)
from maple_entrypoints.cli.output import (
    json_text,
    print_comments,
    print_held,
    print_json,
    terminal_text,
    understood_line,
    warn,
)

__all__ = ["comments_app"]

comments_app = typer.Typer(
    help="Read and write review comments.",
    no_args_is_help=True,
    epilog="Example: maple comments list --status open",
)
comments_app.command("claim", epilog="Example: maple comments claim loc_3f9a2b1c4d5e --force")(
    claim
)
comments_app.command("release", epilog="Example: maple comments release loc_3f9a2b1c4d5e")(release)


@comments_app.command("list", epilog="Example: maple comments list -b feat/login -s open --json")
def list_comments(
    branch: BranchOption = None,
    status: Annotated[
        list[CommentStatus] | None,
        typer.Option("--status", "-s", help="Only this status; repeat for several."),
    ] = None,
    as_json: JsonOption = False,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also list, apart, what strangers wrote on the pull request (held from the "
            "agent until someone trusted endorses it). JSON: {comments, held}.",
        ),
    ] = False,
) -> None:
    """List the review comments on a branch, newest first."""
    cwd = Path.cwd()
    store = store_here(cwd)
    name = branch_of(branch, cwd)
    comments = list_all(store, name, status or None, report=warn)
    held = _held(store, name) if everything else None
    if as_json:
        data = shown(comments, warn)
        print_json(data if held is None else {"comments": data, "held": shown(held, warn)})
        return
    print_comments(comments)
    if held is not None:
        print_held(held)


def _held(store: CommentStore, branch: str) -> list[Comment]:
    """The branch's held comments, newest first (none when the store holds nothing apart)."""
    if not isinstance(store, HeldComments):
        return []
    return sorted(store.held(branch), key=lambda c: c.created_at or "", reverse=True)


@comments_app.command(
    "wait", epilog="Example: maple comments wait --follow   (Ctrl-C to stop following)"
)
def wait(
    branch: BranchOption = None,
    cursor: Annotated[
        str | None,
        typer.Option("--cursor", help="Only comments newer than this (from a previous wait)."),
    ] = None,
    timeout_ms: Annotated[
        int,
        typer.Option("--timeout-ms", min=1, max=3_600_000, help="How long to wait each time."),
    ] = 30_000,
    follow: Annotated[
        bool, typer.Option("--follow", "-f", help="Keep waiting, with the cursor, until Ctrl-C.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Wait for new comments; print them as they arrive.

    Without --cursor the first wait drains what is already there. With --follow each batch is
    printed as it comes (one JSON document per line with --json) until Ctrl-C. A wait that
    finds nothing is not an error: it prints the timeout (JSON) or nothing, and exits 0.
    """
    cwd = Path.cwd()
    loop = loop_here(cwd)
    name = branch_of(branch, cwd)
    try:
        if cursor:
            parse_cursor(cursor)
        while True:
            found = wait_for_comments(loop.store, name, cursor, timeout_ms, loop.clock, report=warn)
            cursor = found.cursor
            if as_json:
                data = {
                    "status": "timeout" if found.timed_out else "comments",
                    "cursor": found.cursor,
                    "comments": shown(found.comments, warn),
                }
                if follow:
                    print(json_text(data, indent=None), flush=True)
                else:
                    print_json(data)
            elif found.comments:
                print_comments(list(found.comments))
                sys.stdout.flush()
            if not follow:
                if not as_json and found.timed_out:
                    sys.stderr.write(f"maple: no new comments; cursor {found.cursor}\n")
                return
    except KeyboardInterrupt:
        return


@comments_app.command("show", epilog="Example: maple comments show loc_3f9a2b1c4d5e --json")
def show(
    comment_id: Annotated[str, typer.Argument(help="The comment's id.", metavar="ID")],
    branch: BranchOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show one comment with everything needed to act on it (get_comment_context)."""
    cwd = Path.cwd()
    store = store_here(cwd)
    name = branch_of(branch, cwd)
    context = comment_context(list_all(store, name, report=warn), comment_id, name)
    data = context.to_json()
    if as_json:
        print_json(data)
        return
    comment = context.comment
    print(one_line(f"{comment.id}  {comment.status.value}  {comment.created_at or ''}"))
    print(terminal_text(comment.body))
    for anchor in context.anchors:
        print(f"  at {one_line(anchor)}")
    print(f"  {one_line(str(data.get('conditions', '')))}")
    if context.markup:
        print(f"  markup: {one_line(context.markup)}")
    mock = data.get("mock")
    if isinstance(mock, dict) and mock.get("replay"):
        print(f"  replay: {one_line(str(mock['replay']))}")
    for image in images_of(comment):
        print(f"  image: {one_line(_image_file(image, cwd))}")
    _print_thread(comment)


def _print_thread(comment: Comment) -> None:
    """The thread in the order it happened, one plain line per entry.

    A question still waiting for the reviewer is said first.
    """
    if awaiting_reviewer(comment):
        print("  waiting for the reviewer to answer the agent's question")
    for reply in thread_of(comment):
        verb = {
            ReplyKind.REPLY: "asked" if reply.question else "said",
            ReplyKind.REOPEN: "reopened it",
            ReplyKind.CONFIRM: "confirmed it",
            ReplyKind.RESOLVE: "resolved it again",
        }[reply.kind]
        if reply.classified is not None:
            verb += " (maple, from their reply)"
        print(
            f"  {one_line(reply.at or '')}  {one_line(reply.author_name)} {verb}: "
            f"{one_line(reply.body)}"
        )
        understood = understood_line(reply)
        if understood:
            print(f"      {understood}")


def _image_file(image: Attachment, cwd: Path) -> str:
    """Where an attached image's file is, relative to ``cwd`` when inside it, and how it came."""
    how = f" ({image.source})" if image.source else ""
    if image.ref.connector != "file":
        return f"{image.ref.key}{how}, held by the {image.ref.connector} media store"
    try:
        path = local_here(cwd).media.location(image.ref.key)
    except MapleError:
        return f"{image.ref.key}{how}, not in .maple/ on this machine"
    shown_path = path.relative_to(cwd) if path.is_relative_to(cwd) else path
    return f"{shown_path}{how}"


class ColorScheme(StrEnum):
    """The colour schemes a page is seen in."""

    LIGHT = "light"
    DARK = "dark"


_VIEWPORT = re.compile(r"(\d{1,5})[x×](\d{1,5})")


def _viewport(text: str) -> tuple[int, int]:
    match = _VIEWPORT.fullmatch(text.strip().lower())
    if match is None:
        raise fail(
            f"--viewport {one_line(text)[:40]!r} is not WIDTHxHEIGHT; give it in CSS pixels, such "
            "as 390x844.",
            EXIT_CONFIG,
        )
    return int(match.group(1)), int(match.group(2))


@comments_app.command(
    "add", epilog='Example: maple comments add --body "The Pay button overlaps the total."'
)
def add_comment(
    body: Annotated[str, typer.Option("--body", help="The comment's text.")],
    branch: BranchOption = None,
    selector: Annotated[
        str | None, typer.Option("--selector", help="CSS selector of the element it is about.")
    ] = None,
    url: Annotated[str, typer.Option("--url", help="The page it is about.")] = "",
    viewport: Annotated[
        str,
        typer.Option(
            "--viewport",
            help="The viewport it was seen at, WIDTHxHEIGHT in CSS pixels; default 0x0 (no "
            "browser).",
        ),
    ] = "0x0",
    density: Annotated[
        float, typer.Option("--density", min=0.1, max=16, help="The device pixel ratio.")
    ] = 1.0,
    color_scheme: Annotated[
        ColorScheme, typer.Option("--color-scheme", help="light or dark.", case_sensitive=False)
    ] = ColorScheme.LIGHT,
    as_json: JsonOption = False,
) -> None:
    """Add a review comment to a branch.

    The comment records a full context (page, viewport, density, colour scheme) as a browser's
    does, so every reader, Maple's table included, can show it.
    """
    cwd = Path.cwd()
    store = store_here(cwd)
    anchor = Anchor(selector=selector) if selector else Anchor()
    width, height = _viewport(viewport)
    context = Context(
        url=url,
        viewport_width=width,
        viewport_height=height,
        device_pixel_ratio=int(density) if density.is_integer() else density,
        color_scheme=color_scheme.value,
    )
    # The file store has no identity of its own: the git identity signs the comment. The GitHub
    # store signs with the token's user, and a route names its own author.
    author = git_author(cwd) if store.name == "file" else None
    draft = NewComment(
        branch=branch_of(branch, cwd),
        body=body,
        anchor=anchor,
        context=context,
        extra={"author": author} if author is not None else {},
    )
    stored = store.append(draft)
    if as_json:
        print_json(stored.to_json())
    else:
        print(stored.id)


@comments_app.command(
    "resolve", epilog='Example: maple comments resolve loc_3f9a2b1c4d5e --note "Matched the card."'
)
def resolve(
    comment_id: Annotated[str, typer.Argument(help="The comment's id.", metavar="ID")],
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


@comments_app.command(
    "reply",
    epilog='Example: maple comments reply loc_3f9a2b1c4d5e "Bigger, or brighter?" --question',
)
def reply(
    comment_id: Annotated[str, typer.Argument(help="The comment's id.", metavar="ID")],
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


@comments_app.command(
    "reopen", epilog='Example: maple comments reopen loc_3f9a2b1c4d5e "Still blurry on a phone."'
)
def reopen(
    comment_id: Annotated[str, typer.Argument(help="The comment's id.", metavar="ID")],
    reason: Annotated[str, typer.Argument(help="Why it is not resolved.", metavar="REASON")],
    as_json: JsonOption = False,
) -> None:
    """Reopen a resolved comment as a reviewer, saying why; the agent's next wait returns it."""
    cwd = Path.cwd()
    data = _converse(cwd, comment_id, ThreadEvent.reopen(reason, git_author(cwd)))
    _said(data, as_json, "reopened")


@comments_app.command("confirm", epilog="Example: maple comments confirm loc_3f9a2b1c4d5e")
def confirm(
    comment_id: Annotated[str, typer.Argument(help="The comment's id.", metavar="ID")],
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
