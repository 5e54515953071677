"""``maple comments``: list, wait for, show, add, resolve and converse on review comments.

The group, and the two commands that read a branch's comments (``list``, ``wait``); ``show`` is
``comment_show.py``, ``add`` ``comment_add.py``, and the thread's commands
``comment_thread.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from maple_core.comments import Comment
from maple_core.cursor import parse_cursor
from maple_core.display import shown
from maple_core.listing import list_all
from maple_core.ports import CommentStore, HeldComments
from maple_core.statuses import CommentStatus
from maple_core.waiting import wait_for_comments
from maple_entrypoints.cli.claims import claim, release
from maple_entrypoints.cli.comment_add import add_comment
from maple_entrypoints.cli.comment_show import show
from maple_entrypoints.cli.comment_table import print_comments, print_held
from maple_entrypoints.cli.comment_thread import confirm, reopen, reply, resolve
from maple_entrypoints.cli.common import (
    BranchOption,
    JsonOption,
    branch_of,
    command_group,
    loop_here,
    store_here,
)
from maple_entrypoints.cli.output import json_text, print_json, warn

__all__ = ["comments_app"]

comments_app = command_group(
    "Read and write review comments.", epilog="Example: maple comments list --status open"
)
comments_app.command("claim", epilog="Example: maple comments claim loc_3f9a2b1c4d5e --force")(
    claim
)
comments_app.command("release", epilog="Example: maple comments release loc_3f9a2b1c4d5e")(release)


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


comments_app.command("list", epilog="Example: maple comments list -b feat/login -s open --json")(
    list_comments
)
comments_app.command(
    "wait", epilog="Example: maple comments wait --follow   (Ctrl-C to stop following)"
)(wait)
comments_app.command("show", epilog="Example: maple comments show loc_3f9a2b1c4d5e --json")(show)
comments_app.command(
    "add", epilog='Example: maple comments add --body "The Pay button overlaps the total."'
)(add_comment)
comments_app.command(
    "resolve", epilog='Example: maple comments resolve loc_3f9a2b1c4d5e --note "Matched the card."'
)(resolve)
comments_app.command(
    "reply",
    epilog='Example: maple comments reply loc_3f9a2b1c4d5e "Bigger, or brighter?" --question',
)(reply)
comments_app.command(
    "reopen", epilog='Example: maple comments reopen loc_3f9a2b1c4d5e "Still blurry on a phone."'
)(reopen)
comments_app.command("confirm", epilog="Example: maple comments confirm loc_3f9a2b1c4d5e")(confirm)
