"""``maple comments show``: one comment with everything needed to act on it, and its thread."""

from __future__ import annotations

from pathlib import Path

from maple_core.attachments import Attachment, images_of
from maple_core.comments import Comment
from maple_core.context import comment_context
from maple_core.conversation import ReplyKind, thread_of
from maple_core.errors import MapleError
from maple_core.listing import list_all
from maple_core.text import one_line
from maple_core.threads import awaiting_reviewer
from maple_entrypoints.cli.comment_table import understood_line
from maple_entrypoints.cli.common import (
    BranchOption,
    CommentIdArg,
    JsonOption,
    branch_of,
    local_here,
    store_here,
)
from maple_entrypoints.cli.output import print_json, terminal_text, warn

__all__ = ["show"]


def show(
    comment_id: CommentIdArg,
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
