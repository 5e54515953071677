"""``maple gate``: decide the merge gate here, or publish it from CI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import SecretStr

from maple_core.errors import ConfigurationError, MapleError
from maple_core.gate import (
    GateConclusion,
    GatePolicy,
    GateReport,
    GateVerdict,
    check_review_url,
    decide_gate,
    merge_queue_verdict,
    unreadable_ledger_verdict,
)
from maple_core.ports import Capability
from maple_core.services import decide_branch_gate
from maple_entrypoints.cli.common import (
    EXIT_BLOCKED,
    EXIT_CONFIG,
    EXIT_ERROR,
    BranchOption,
    JsonOption,
    branch_of,
    fail,
    print_json,
    store_here,
)
from maple_entrypoints.settings import GitHubConfig, Settings, load_settings

__all__ = ["gate_app"]

gate_app = typer.Typer(
    help="The merge gate (check run maple/visual-review).",
    no_args_is_help=True,
    epilog="Example: maple gate decide --json",
)


def _verdict_json(branch: str, sha: str | None, verdict: GateVerdict) -> dict[str, Any]:
    return {
        "branch": branch,
        "sha": sha,
        "verdict": {
            "conclusion": verdict.conclusion.value,
            "reason": verdict.reason.value,
            "title": verdict.title,
            "summary": verdict.summary,
            "open": verdict.open,
            "total": verdict.total,
        },
    }


def _show(branch: str, sha: str | None, verdict: GateVerdict, as_json: bool) -> None:
    if as_json:
        print_json(_verdict_json(branch, sha, verdict))
        return
    on = f" on {sha[:12]}" if sha else ""
    print(f"{verdict.conclusion.value}{on}: {verdict.title} ({verdict.reason.value})")
    print(verdict.summary)


@gate_app.command(
    "decide",
    epilog="Example: maple gate decide -b feat/login || echo 'still open'   (exit 3: blocked)",
)
def decide(branch: BranchOption = None, as_json: JsonOption = False) -> None:
    """Decide the gate for a branch from the configured store, without publishing it.

    Exit codes: 0 clear or neutral, 3 blocked, 1 the store failed, 2 a configuration error.
    """
    cwd = Path.cwd()
    store = store_here(cwd)
    name = branch_of(branch, cwd)
    sha = store.head(name) if Capability.HEAD in store.capabilities else None
    settings = load_settings()
    verdict = decide_branch_gate(
        store,
        name,
        sha,
        require_approval=settings.require_approval,
        require_confirmation=settings.require_confirmation,
    )
    _show(name, sha, verdict, as_json)
    if verdict.conclusion is GateConclusion.BLOCKED:
        raise typer.Exit(EXIT_BLOCKED)


def _review_config(settings: Settings, token: str) -> GitHubConfig | None:
    """The pull request's own review for the gate (``MAPLE_PR_REVIEW=gate``), else ``None``."""
    if settings.MAPLE_PR_REVIEW != "gate":
        return None
    try:
        reserve = settings.github_reserve
    except ConfigurationError as exc:
        raise fail(str(exc), EXIT_CONFIG) from None
    return GitHubConfig(
        token=SecretStr(token),
        pr_review="gate",
        trusted_bots=settings.MAPLE_TRUSTED_BOTS,
        reserve=reserve,
        cache_root=settings.cache_folder,
    )


@gate_app.command(
    "publish",
    epilog="Example (in a workflow step): maple gate publish   (docs/workflows/maple-gate.yml)",
)
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
    neutral no-review); a merge queue's commit passes at once. It always reports: comments that
    cannot be read are published as blocked "ledger-unreadable", never neutral. Only ledgers
    written by people with push access (or by the token's own user, or the MAPLE_GATE_APP_ID
    App) count. The check run is written with
    MAPLE_GATE_TOKEN (a gate App's token) or else GITHUB_TOKEN (needs `checks: write`).
    """
    from maple_entrypoints.bootstrap.github import ci_gate, read_event
    from maple_entrypoints.bootstrap.local import system_clock

    settings = load_settings()
    name = event_name or settings.GITHUB_EVENT_NAME or ""
    path = event_path or (Path(p) if (p := settings.GITHUB_EVENT_PATH) else None)
    if path is None:
        raise fail(
            "no event to publish for: run in GitHub Actions, or pass --event-name and "
            "--event-path.",
            EXIT_CONFIG,
        )
    try:
        event = read_event(name, json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise fail(f"cannot read the event at {path}: {exc}", EXIT_CONFIG) from None
    except MapleError as exc:
        raise fail(str(exc), EXIT_CONFIG) from None
    repository = (
        f"{o}/{r}"
        if (o := settings.MAPLE_GITHUB_OWNER) and (r := settings.MAPLE_GITHUB_REPO)
        else event.repository or settings.GITHUB_REPOSITORY
    )
    token = settings.GITHUB_TOKEN.get_secret_value() if settings.GITHUB_TOKEN else None
    gate = settings.MAPLE_GATE_TOKEN
    gate_token = (gate.get_secret_value() if gate else None) or token
    if not repository or "/" not in repository:
        raise ConfigurationError(
            "no repository: set MAPLE_GITHUB_OWNER and MAPLE_GITHUB_REPO (GitHub Actions "
            "sets GITHUB_REPOSITORY)."
        )
    if not gate_token:
        raise ConfigurationError(
            "GITHUB_TOKEN is not set; give the job `permissions: checks: write, "
            "pull-requests: read` and `env: GITHUB_TOKEN: ${{ github.token }}`, or set "
            "MAPLE_GATE_TOKEN to a gate App's token."
        )
    if review_url is not None:
        review_url = check_review_url(review_url, "--review-url")
    elif configured := settings.MAPLE_REVIEW_URL:
        review_url = check_review_url(configured, "MAPLE_REVIEW_URL")
    owner, repo = repository.split("/", 1)
    parts = ci_gate(
        owner,
        repo,
        token=token,
        gate_token=gate_token,
        api_url=settings.MAPLE_GITHUB_API or settings.GITHUB_API_URL,
        app_id=settings.MAPLE_GATE_APP_ID,
        clock=system_clock(),
        review=_review_config(settings, token or gate_token),
    )
    if event.merge_queue:
        verdict = merge_queue_verdict()
    elif event.no_review or no_review:
        verdict = decide_gate([], GatePolicy(has_review=False))
    else:
        try:
            verdict = decide_branch_gate(
                parts.store,
                event.branch,
                event.sha,
                require_approval=settings.require_approval,
                require_confirmation=settings.require_confirmation,
            )
        except MapleError as exc:  # fail closed: a neutral required check lets the merge through
            verdict = unreadable_ledger_verdict(str(exc))
    try:
        parts.publisher.publish(GateReport(event.branch, event.sha, verdict, review_url))
    except MapleError as exc:
        raise fail(f"could not publish maple/visual-review: {exc}", EXIT_ERROR) from None
    _show(event.branch, event.sha, verdict, as_json)
