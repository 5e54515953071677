"""``maple doctor``: what is set up, what is broken, and the fix for each."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path

import typer

from maple_adapters.files import find_checkout
from maple_core.errors import ConfigurationError, MapleError
from maple_core.paging import ListQuery
from maple_core.services import list_all
from maple_entrypoints.cli.common import EXIT_ERROR, BranchOption, JsonOption
from maple_entrypoints.cli.install import Client, planned_changes

__all__ = ["Finding", "doctor", "examine"]


@dataclass(frozen=True)
class Finding:
    """One check: ``ok`` True, False (broken) or None (worth knowing, not broken)."""

    check: str
    ok: bool | None
    detail: str
    fix: str = ""


def _config_findings(findings: list[Finding]) -> object | None:
    from maple_entrypoints.settings import load_settings, resolve_config

    try:
        config = resolve_config(load_settings(), "maple")
    except ConfigurationError as exc:
        findings.append(Finding("configuration", False, str(exc), "see docs/configuration.md"))
        return None
    gate = {"none": "no gate", "direct": "MAPLE_GATE_TOKEN", "route": "MAPLE_URL refresh"}
    findings.append(
        Finding(
            "configuration",
            True,
            f"store {config.store.value}, gate: {gate[config.gate.value]}",
        )
    )
    return config


def _github_findings(config: object, branch: str | None, findings: list[Finding]) -> None:
    from maple_adapters.github.store import GitHubLedgerStore
    from maple_adapters.system import SystemClock
    from maple_entrypoints.settings import ServerConfig
    from maple_entrypoints.wiring import build_transport

    assert isinstance(config, ServerConfig)
    github = config.github
    try:
        transport = build_transport(github, config.transport)
    except ConfigurationError as exc:
        findings.append(Finding("github transport", False, str(exc)))
        return
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
    store = GitHubLedgerStore(
        transport, github.owner or "", github.repo or "", SystemClock(), app_id=github.gate_app_id
    )
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


def _store_findings(config: object, cwd: Path, branch: str | None, findings: list[Finding]) -> None:
    from maple_entrypoints.settings import ServerConfig, StoreKind
    from maple_entrypoints.wiring import build_store

    assert isinstance(config, ServerConfig)
    if config.store is StoreKind.GITHUB:
        _github_findings(config, branch, findings)
        return
    if config.store is StoreKind.FILE:
        checkout = find_checkout(cwd)
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
        store = build_store(config, cwd)
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


def _registration_findings(root: Path, findings: list[Finding]) -> None:
    for name in ("maple-mcp", "maple-stop-hook"):
        found = shutil.which(name)
        findings.append(
            Finding(
                f"{name} on PATH",
                True if found else None,
                found or "not on PATH; `maple install` writes its full path instead",
            )
        )
    for client in Client:
        try:
            pending = [c for c in planned_changes(client, root) if c.changed]
        except Exception as exc:  # an unreadable settings file
            findings.append(Finding(f"{client.value} registration", False, str(exc)))
            continue
        if pending:
            files = ", ".join(str(c.path.relative_to(root)) for c in pending)
            findings.append(
                Finding(
                    f"{client.value} registration",
                    None,
                    f"not registered in {files}",
                    f"maple install {client.value}",
                )
            )
        else:
            findings.append(Finding(f"{client.value} registration", True, "server and Stop hook"))


def examine(cwd: Path, branch: str | None) -> list[Finding]:
    """Every check, in order; a broken configuration skips the checks that need it."""
    findings: list[Finding] = []
    config = _config_findings(findings)
    if branch is None:
        branch = find_checkout(cwd).branch
    if config is not None:
        _store_findings(config, cwd, branch, findings)
    _registration_findings(Path(find_checkout(cwd).root), findings)
    return findings


_MARKS: dict[bool | None, str] = {True: "ok  ", False: "FAIL", None: "--  "}


def doctor(branch: BranchOption = None, as_json: JsonOption = False) -> None:
    """Check the configuration, the store, GitHub access and the client registrations.

    Each problem is printed with its fix; exit 1 when something is broken (a missing
    registration is reported, not counted as broken).
    """
    findings = examine(Path.cwd(), branch)
    if as_json:
        print(json.dumps([asdict(f) for f in findings], indent=2))
    else:
        for f in findings:
            print(f"{_MARKS[f.ok]} {f.check}: {f.detail}")
            if f.fix and f.ok is not True:
                print(f"     fix: {f.fix}")
    if any(f.ok is False for f in findings):
        raise typer.Exit(EXIT_ERROR)
