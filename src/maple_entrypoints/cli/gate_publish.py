"""``maple gate publish``: the merge gate published from CI, for the event the workflow runs for.

An event that publishes nothing says why and exits 0; comments that cannot be read are
published as blocked (``ledger-unreadable``), never as neutral.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from maple_core.branch_gate import decide_branch_gate
from maple_core.errors import InvalidInputError, MapleError
from maple_core.gate import (
    GatePolicy,
    GateReport,
    decide_gate,
    merge_queue_verdict,
    unreadable_ledger_verdict,
)
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    EXIT_ERROR,
    JsonOption,
    ci_gate_here,
    fail,
)
from maple_entrypoints.cli.output import print_json, print_verdict
from maple_entrypoints.configuration import GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, Settings

__all__ = ["publish"]


def _skipped(why: str, as_json: bool) -> None:
    """Say that this event publishes nothing, and why (exit 0: nothing is wrong)."""
    if as_json:
        print_json({"published": False, "why": why})
    else:
        print(f"nothing to publish: {why}")


def publish(
    event_name: Annotated[
        str | None,
        typer.Option("--event-name", help="The event; default: GITHUB_EVENT_NAME."),
    ] = None,
    event_path: Annotated[
        Path | None,
        typer.Option("--event-path", help="The event's JSON; default: GITHUB_EVENT_PATH."),
    ] = None,
    no_review: Annotated[
        bool,
        typer.Option("--no-review", help="Nobody reviews this pull request (say, no preview)."),
    ] = False,
    review_url: Annotated[
        str | None,
        typer.Option(
            "--review-url",
            help="Where the check run's details link to; default: MAPLE_REVIEW_URL.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Publish maple/visual-review for the GitHub Actions event this job runs for.

    A pull request gets the verdict of its comments (a fork's or a bot's, or with --no-review,
    neutral no-review), on its own events and its review's (pull_request_review,
    pull_request_review_comment, pull_request_review_thread, issue_comment: the head is read
    from the pull request, never the event's words); a merge queue's commit passes at once.
    It always reports: comments that cannot be read are published as blocked
    "ledger-unreadable", never neutral. Only ledgers
    written by people with push access (or by the token's own user, or the MAPLE_GATE_APP_ID
    App) count. The check run is written with
    MAPLE_GATE_TOKEN (a gate App's token) or else GITHUB_TOKEN (needs `checks: write`).
    """
    settings = Settings()
    name = event_name or settings[GITHUB_EVENT_NAME] or ""
    path = event_path or (Path(p) if (p := settings[GITHUB_EVENT_PATH]) else None)
    if path is None:
        raise fail(
            "no event to publish for: run in GitHub Actions, or pass --event-name and "
            "--event-path.",
            EXIT_CONFIG,
        )
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise fail(f"cannot read the event at {path}: {exc}", EXIT_CONFIG) from None
    try:
        ci = ci_gate_here(name, payload, review_url)
    except InvalidInputError as exc:
        raise fail(str(exc), EXIT_CONFIG) from None
    try:
        event = ci.head()  # a conversation comment's is asked for
    except MapleError as exc:
        raise fail(f"cannot find the pull request's head: {exc}", EXIT_ERROR) from None
    if event.skip:
        _skipped(event.skip, as_json)
        return
    if event.merge_queue:
        verdict = merge_queue_verdict()
    elif event.no_review or no_review:
        verdict = decide_gate([], GatePolicy(has_review=False))
    else:
        try:
            verdict = decide_branch_gate(ci.store, event.branch, event.sha, ci.rules)
        except MapleError as exc:  # fail closed: a neutral required check lets the merge through
            verdict = unreadable_ledger_verdict(str(exc))
    report = GateReport(event.branch, event.sha, verdict, ci.rules.review_url)
    try:
        ci.publisher.publish(report)
    except MapleError as exc:
        raise fail(f"could not publish maple/visual-review: {exc}", EXIT_ERROR) from None
    print_verdict(event.branch, event.sha, verdict, as_json)
