"""``maple doctor``'s checks of the configuration, the store and GitHub access."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from maple_core.comments import Comment
from maple_core.errors import ConfigurationError, MapleError
from maple_core.listing import list_all
from maple_core.paging import ListQuery
from maple_core.ports import CommentStore
from maple_core.rate_budget import PollVerdict
from maple_entrypoints.cli.common import local_here, loop_here
from maple_entrypoints.cli.findings import Finding
from maple_entrypoints.configuration import MAPLE_GATE_TOKEN, MAPLE_URL, Settings
from maple_entrypoints.settings import ServerConfig, StoreKind, resolve_config


class _Budget(Protocol):
    def budget_lines(self) -> list[str]: ...

    def verdict(self) -> PollVerdict: ...


class _Review(CommentStore, Protocol):
    """What the doctor reads of a store with the pull request's own review."""

    @property
    def source(self) -> _Budget: ...

    def held(self, branch: str) -> list[Comment]: ...


__all__ = [
    "config_findings",
    "reading_finding",
    "store_findings",
]


def config_findings(findings: list[Finding]) -> ServerConfig | None:
    """Whether the configuration can be used; the checked configuration, or ``None`` when not."""
    try:
        config = resolve_config(Settings(), "maple")
    except ConfigurationError as exc:
        findings.append(Finding("configuration", False, str(exc), "see docs/configuration.md"))
        return None
    gate = {
        "none": "no gate",
        "direct": MAPLE_GATE_TOKEN.name,
        "route": f"{MAPLE_URL.name} refresh",
    }
    findings.append(
        Finding(
            "configuration",
            True,
            f"store {config.store.value}, gate: {gate[config.gate.value]}",
        )
    )
    return config


def _github_findings(config: ServerConfig, branch: str | None, findings: list[Finding]) -> None:
    github = config.github
    try:
        loop = loop_here(Path.cwd())
    except ConfigurationError as exc:
        findings.append(Finding("github transport", False, str(exc)))
        return
    store = loop.github
    assert store is not None  # MAPLE_STORE=github
    transport = store.transport
    findings.append(Finding("github transport", True, f"{transport.name} ({config.transport})"))
    path = f"/repos/{github.owner}/{github.repo}"
    try:
        answer = transport.request("GET", path)
    except MapleError as exc:
        status = getattr(exc, "status", None)
        fixes = {
            401: "GITHUB_TOKEN (or gh's sign-in) was refused: make a new token.",
            404: "Check MAPLE_GITHUB_OWNER/MAPLE_GITHUB_REPO, and that the token can see it.",
        }
        findings.append(Finding("repository access", False, str(exc), fixes.get(status or 0, "")))
        return
    permissions = answer.data.get("permissions") if isinstance(answer.data, dict) else None
    granted = (
        ", ".join(k for k, v in sorted(permissions.items()) if v)
        if isinstance(permissions, dict)
        else "not reported"
    )
    findings.append(
        Finding("repository access", True, f"{github.owner}/{github.repo}: role {granted}")
    )
    if branch is None:
        return
    try:
        pull = store.find_pull(branch)
        comments = list_all(store, branch)
    except MapleError as exc:
        findings.append(Finding("store", False, str(exc)))
        return
    if pull is None:
        findings.append(
            Finding(
                "store",
                None,
                f"no pull request for {branch} yet, so nowhere to keep comments",
                "open a pull request for the branch",
            )
        )
    else:
        findings.append(
            Finding("store", True, f"pull request #{pull}: {len(comments)} comment(s) on {branch}")
        )
        if loop.review is not None:
            _review_findings(loop.review, github.pr_review, branch, findings)


def _review_findings(store: _Review, mode: str, branch: str, findings: list[Finding]) -> None:
    """The pull request's own review: what it holds for the agent and apart, and the budget."""
    from maple_core.pull_review import review_ref

    try:
        work = sum(1 for c in list_all(store, branch) if review_ref(c.id) is not None)
        held = store.held(branch)
    except MapleError as exc:
        findings.append(Finding("pull request review", False, str(exc)))
        return
    findings.append(
        Finding(
            "pull request review",
            True,
            f"MAPLE_PR_REVIEW={mode}: {work} item(s) for the agent, {len(held)} held "
            "apart "
            "(maple comments list --all)",
        )
    )
    lines = store.source.budget_lines()
    paused = not store.source.verdict().poll
    findings.append(
        Finding(
            "rate budget",
            None if paused else True,
            "; ".join(lines) or "no rate-limit answer read yet",
            "polling resumes by itself at the time given" if paused else "",
        )
    )


def _database_findings(findings: list[Finding]) -> bool:
    """The sql store's database: reachable, migrated, notifying; whether the store may be used."""
    try:
        health = local_here(Path.cwd()).database().health()
    except ConfigurationError as exc:
        findings.append(Finding("database", False, str(exc), "pip install 'maple-review[sql]'"))
        return False
    if not health.reachable:
        findings.append(Finding("database", False, health.problem or "unreachable"))
        return False
    if health.revision != health.wanted:
        fix = "maple db upgrade" if (health.revision or "") < health.wanted else "upgrade maple"
        findings.append(Finding("database", False, health.problem or "", fix))
        return False
    findings.append(
        Finding("database", True, f"{health.database}: schema at revision {health.revision}")
    )
    if health.notifications is None:
        detail = "SQLite: waits on this machine wake by the database file (no notifications)"
        findings.append(Finding("notifications", None, detail))
    elif health.notifications:
        findings.append(Finding("notifications", True, "LISTEN/NOTIFY: a probe came back"))
    else:
        fix = "connect straight to PostgreSQL, or through a session-mode pooler"
        findings.append(Finding("notifications", False, health.problem or "", fix))
    return True


def store_findings(
    config: ServerConfig, cwd: Path, branch: str | None, findings: list[Finding]
) -> None:
    """Whether the configured store answers: the checkout, GitHub access, a listing."""
    if config.store is StoreKind.GITHUB:
        _github_findings(config, branch, findings)
        return
    if config.store is StoreKind.SQL and not _database_findings(findings):
        return
    if config.store is StoreKind.FILE:
        checkout = local_here(cwd).checkout
        in_git = checkout.git_dir is not None
        findings.append(
            Finding(
                "checkout",
                True if in_git else None,
                f"main checkout {checkout.root}, branch {checkout.branch or '(detached)'}"
                if in_git
                else f"not in a git repository: comments go to {checkout.root}/.maple/",
            )
        )
    try:
        store = loop_here(cwd).store
        if branch:
            count: int | None = len(list_all(store, branch))
        else:  # no branch here: still ask the store once, so an unreachable one shows
            store.list(ListQuery(branch="maple-doctor", limit=1))
            count = None
    except MapleError as exc:
        findings.append(Finding("store", False, str(exc)))
        return
    label = config.store.value
    if config.store is StoreKind.ROUTE:
        label = f"route at {config.route_url}"
    detail = f"{label}: {count} comment(s) on {branch}" if branch else f"{label}: reachable"
    findings.append(Finding("store", True, detail))


def reading_finding() -> Finding:
    """Whether reviewers' replies are read (``MAPLE_CLASSIFIER``), and whether its harness can."""
    try:
        classifier = local_here(Path.cwd()).classifier()
    except ConfigurationError as exc:
        return Finding("reviewers' words", False, str(exc), "see docs/conversation.md")
    if classifier is None:
        return Finding(
            "reviewers' words",
            None,
            "MAPLE_CLASSIFIER is off: reviewers confirm and reopen with the buttons",
            "set MAPLE_CLASSIFIER=claude or codex to read their replies",
        )
    return Finding(
        "reviewers' words",
        True,
        f"{classifier.name} reads a trusted reviewer's reply on a resolved comment",
    )
