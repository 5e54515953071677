"""``maple comments classify``: read a reviewer's reply into an outcome again (MAPLE_CLASSIFIER)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from maple_adapters.system import SystemClock
from maple_core.classifying import Reading, classify_reply, entry_of, reply_to_classify
from maple_core.conversation import thread_of
from maple_core.display import shown_one
from maple_core.listing import list_all
from maple_core.reporting import report_to_gate
from maple_core.text import one_line
from maple_entrypoints.cli.comment_table import understood_line
from maple_entrypoints.cli.comments import comments_app
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    EXIT_ERROR,
    BranchOption,
    CommentIdArg,
    JsonOption,
    branch_of,
    fail,
    local_here,
    loop_here,
)
from maple_entrypoints.cli.output import print_json, warn

__all__ = ["classify"]


@comments_app.command("classify", epilog="Example: maple comments classify loc_3f9a2b1c4d5e")
def classify(
    comment_id: CommentIdArg,
    entry: Annotated[
        str | None,
        typer.Option("--entry", help="The thread entry to read; default: the newest reply."),
    ] = None,
    branch: BranchOption = None,
    as_json: JsonOption = False,
) -> None:
    """Read a reviewer's reply into an outcome again, and act on it (MAPLE_CLASSIFIER).

    Reads the reviewer's newest reply on the comment (or --entry), even one read before: the
    reading replaces the one kept, and its transition applies if the reply still answers the
    resolution. Only a trusted reviewer's reply on a resolved comment is read.
    """
    cwd = Path.cwd()
    classifier = local_here(cwd).classifier()
    if classifier is None:
        raise fail(
            "MAPLE_CLASSIFIER is off, so nothing reads reviewers' words; set it to claude or "
            "codex, or answer with maple comments confirm or reopen.",
            EXIT_CONFIG,
        )
    loop = loop_here(cwd)
    name = branch_of(branch, cwd)
    comment = next((c for c in list_all(loop.store, name, report=warn) if c.id == comment_id), None)
    if comment is None:
        raise fail(f"no comment {one_line(comment_id)[:80]} on {name}.", EXIT_ERROR)
    chosen = entry_of(comment, entry) if entry else reply_to_classify(comment)
    if chosen is None:
        raise fail(f"{comment.id} has no reviewer's reply to read.", EXIT_ERROR)
    reading = classify_reply(
        loop.store, comment, chosen.id, classifier, SystemClock(), again=True, report=warn
    )
    report_to_gate(loop.store, name, loop.target)
    _print_reading(reading, as_json)
    if reading.skipped is not None and reading.asked == 0:
        raise typer.Exit(EXIT_ERROR)


def _print_reading(reading: Reading, as_json: bool) -> None:
    record = reading.classification
    if as_json:
        print_json(
            {
                "comment": shown_one(reading.comment, warn),
                "entry": reading.entry_id,
                "classification": record.to_json() if record is not None else None,
                "skipped": reading.skipped,
                "asked": reading.asked,
                "remarks": [r.id for r in reading.remarks],
            }
        )
    elif reading.skipped is not None and reading.asked == 0:
        sys.stderr.write(f"maple: {reading.entry_id} was not read: {one_line(reading.skipped)}\n")
    else:
        entry = next(r for r in thread_of(reading.comment) if r.id == reading.entry_id)
        print(f"{reading.entry_id}: {understood_line(entry)}")
        for remark in reading.remarks:
            print(f"  opened {remark.id}: {one_line(remark.body)}")
