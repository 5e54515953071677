"""``maple doctor``: what is set up, what is broken, and the fix for each."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import typer

from maple_core.errors import ConfigurationError, MapleError
from maple_core.paging import ListQuery
from maple_core.services import list_all
from maple_entrypoints.bootstrap.local import find_checkout
from maple_entrypoints.cli.common import EXIT_ERROR, BranchOption, JsonOption
from maple_entrypoints.cli.install import (
    Client,
    UnreadableFileError,
    codex_config_path,
    codex_hook,
    codex_project_trust,
    is_maple_hook,
    project_root,
    read_json,
    read_toml,
    tasks_disabled_by,
    toml_string,
)

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
    from maple_entrypoints.bootstrap.github import build_transport, ledger_store
    from maple_entrypoints.bootstrap.local import system_clock
    from maple_entrypoints.settings import ServerConfig

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
    store = ledger_store(
        transport, github.owner or "", github.repo or "", system_clock(), github.gate_app_id
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
        if github.pr_review != "off":
            _review_findings(config, branch, findings)


def _review_findings(config: object, branch: str, findings: list[Finding]) -> None:
    """The pull request's own review: what it holds for the agent and apart, and the budget."""
    from maple_core.pull_review import review_ref
    from maple_entrypoints.bootstrap.github import review_store
    from maple_entrypoints.bootstrap.local import system_clock
    from maple_entrypoints.settings import ServerConfig

    assert isinstance(config, ServerConfig)
    github = config.github
    try:
        store = review_store(
            github, config.transport, system_clock(), gate=github.pr_review == "gate"
        )
        work = sum(1 for c in list_all(store, branch) if review_ref(c.id) is not None)
        held = store.held(branch)
    except MapleError as exc:
        findings.append(Finding("pull request review", False, str(exc)))
        return
    findings.append(
        Finding(
            "pull request review",
            True,
            f"MAPLE_PR_REVIEW={github.pr_review}: {work} item(s) for the agent, {len(held)} held "
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


def _store_findings(config: object, cwd: Path, branch: str | None, findings: list[Finding]) -> None:
    from maple_entrypoints.bootstrap.server import build_store
    from maple_entrypoints.settings import ServerConfig, StoreKind

    assert isinstance(config, ServerConfig)
    if config.store is StoreKind.GITHUB:
        _github_findings(config, branch, findings)
        return
    if config.store is StoreKind.SQL and not _database_findings(config, findings):
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


def _database_findings(config: object, findings: list[Finding]) -> bool:
    """The sql store's database: reachable, migrated, notifying; whether the store may be used."""
    from maple_entrypoints.bootstrap.sql import database_health
    from maple_entrypoints.settings import ServerConfig

    assert isinstance(config, ServerConfig)
    try:
        health = database_health(config.database_url)
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


@dataclass(frozen=True)
class _Registered:
    """One half of a client's set-up: the server or the Stop hook, and where it is written."""

    what: str
    file: Path
    command: str | None
    shell: bool


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _not_runnable(entry: _Registered, root: Path) -> str | None:
    """Why ``entry``'s command would not start, or ``None`` when it would."""
    assert entry.command is not None
    try:
        program = shlex.split(entry.command)[0] if entry.shell else entry.command
    except (ValueError, IndexError):
        return f"{entry.what} command {entry.command!r} cannot be read"
    where = _shown(entry.file, root)
    if os.sep in program:
        path = Path(root, program)
        if path.is_file() and os.access(path, os.X_OK):
            return None
        return f"the {entry.what} is registered in {where} as {program}, which does not exist"
    if shutil.which(program):
        return None
    return f"the {entry.what} is registered in {where} as {program}, which is not found on PATH"


def _server_command(data: dict[str, Any], key: str) -> str | None:
    servers = data.get(key)
    maple = servers.get("maple") if isinstance(servers, dict) else None
    command = maple.get("command") if isinstance(maple, dict) else None
    return command if isinstance(command, str) else None


def _hook_command(data: dict[str, Any], event: str) -> str | None:
    hooks = data.get("hooks")
    entries = hooks.get(event) if isinstance(hooks, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        handlers = entry.get("hooks") if isinstance(entry, dict) else None
        for handler in handlers if isinstance(handlers, list) else [entry]:
            command = handler.get("command") if isinstance(handler, dict) else None
            if is_maple_hook(command):
                return str(command)
    return None


def _registrations(client: Client, root: Path) -> list[_Registered]:
    """Where ``client`` has maple's server and Stop hook (``command`` None: not registered)."""
    if client is Client.CLAUDE_CODE:
        mcp, settings = root / ".mcp.json", root / ".claude" / "settings.json"
        return [
            _Registered("server", mcp, _server_command(read_json(mcp)[1], "mcpServers"), False),
            _Registered("Stop hook", settings, _hook_command(read_json(settings)[1], "Stop"), True),
        ]
    if client is Client.CURSOR:
        mcp, hooks = root / ".cursor" / "mcp.json", root / ".cursor" / "hooks.json"
        return [
            _Registered("server", mcp, _server_command(read_json(mcp)[1], "mcpServers"), False),
            _Registered("Stop hook", hooks, _hook_command(read_json(hooks)[1], "stop"), True),
        ]
    config = codex_config_path()
    server = _Registered(
        "server", config, _server_command(read_toml(config)[1], "mcp_servers"), False
    )
    project = root / ".codex" / "hooks.json"
    for hooks in (project, config.with_name("hooks.json")):
        command = _hook_command(read_json(hooks)[1], "Stop")
        if command is not None:
            return [server, _Registered("Stop hook", hooks, command, True)]
    return [server, _Registered("Stop hook", project, None, True)]


def _registration_finding(client: Client, root: Path) -> tuple[Finding, list[_Registered]]:
    fix = f"maple install {client.value}" + (" --write" if client is Client.CODEX else "")
    check = f"{client.value} registration"
    try:
        entries = _registrations(client, root)
    except UnreadableFileError as exc:
        return Finding(check, False, str(exc)), []
    missing = [e for e in entries if e.command is None]
    if len(missing) == len(entries):
        files = ", ".join(_shown(e.file, root) for e in entries)
        return Finding(check, None, f"not registered in {files}", fix), []
    problems = [f"the {e.what} is not registered in {_shown(e.file, root)}" for e in missing]
    broken = [p for e in entries if e.command is not None and (p := _not_runnable(e, root))]
    if not broken and client is Client.CODEX and entries[0].command is not None and missing:
        # The server is Codex-wide; this project just has no hook yet.
        return Finding(check, None, f"server registered; {problems[0]}", fix), entries
    if problems or broken:
        return Finding(check, False, "; ".join([*problems, *broken]), fix), entries
    return Finding(check, True, "server and Stop hook"), entries


def _codex_trust_findings(
    cwd: Path, root: Path, hook: _Registered, findings: list[Finding]
) -> None:
    """Whether Codex will run the hook: its project trusted, its hash trusted and unchanged."""
    config_path = codex_config_path()
    try:
        config = read_toml(config_path)[1]
        found = codex_hook(hook.file, read_json(hook.file)[1])
    except UnreadableFileError as exc:
        findings.append(Finding("codex hook trust", False, str(exc)))
        return
    assert found is not None
    fix = "maple install codex --write"
    if hook.file == root / ".codex" / "hooks.json":
        here = project_root(Client.CLAUDE_CODE, cwd)  # a linked worktree's own entry counts
        where, level = codex_project_trust(config, root, (here,) if here != root else ())
        if level == "trusted":
            findings.append(Finding("codex project trust", True, f"{where} is trusted"))
        elif level is None:
            findings.append(
                Finding(
                    "codex project trust",
                    False,
                    f"Codex ignores {hook.file} until the project is trusted "
                    f"([projects.{toml_string(where)}] in {config_path})",
                    fix,
                )
            )
        else:
            findings.append(
                Finding(
                    "codex project trust",
                    False,
                    f"Codex ignores {hook.file}: {config_path} marks {where} as {level}",
                    f'set trust_level = "trusted" under [projects.{toml_string(where)}] in '
                    f"{config_path}",
                )
            )
    hooks = config.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    state = states.get(found.key) if isinstance(states, dict) else None
    state = state if isinstance(state, dict) else {}
    trusted = state.get("trusted_hash")
    table = f"[hooks.state.{toml_string(found.key)}]"
    if found.hash is None:
        detail, fix = f"{hook.file} gives the Stop hook a field Codex cannot read", ""
    elif trusted is None:
        detail = f"the Stop hook is not trusted in {config_path}, so Codex skips it without a word"
    elif trusted != found.hash:
        detail = (
            f"the Stop hook changed since it was trusted ({table} in {config_path} trusts "
            f"{str(trusted)[:19]}…, it is now {found.hash[:19]}…), so Codex skips it"
        )
    elif state.get("enabled") is False:
        detail = f"the Stop hook is turned off (enabled = false under {table} in {config_path})"
        fix = f"delete enabled = false under {table} in {config_path}"
    else:
        findings.append(Finding("codex hook trust", True, f"trusted ({found.hash[:19]}…)"))
        return
    findings.append(Finding("codex hook trust", False, detail, fix))


def _wake_finding(client: Client, root: Path) -> Finding:
    """Whether ``client`` wakes by itself when a reviewer comments, or needs ``maple watch``."""
    check = f"{client.value} wake"
    if client is Client.CLAUDE_CODE:
        where = tasks_disabled_by(root)
        if where is not None:
            return Finding(
                check,
                None,
                "interactive sessions cannot wake when a reviewer comments: "
                f"CLAUDE_CODE_DISABLE_MCP_TASKS is set in {where}",
                f"remove CLAUDE_CODE_DISABLE_MCP_TASKS from {where}, or run "
                "`maple watch --agent claude` beside Claude Code",
            )
        return Finding(
            check,
            True,
            "interactive sessions wake through MCP tasks when a reviewer comments; for headless "
            "(-p) sessions run `maple watch --agent claude`",
        )
    if client is Client.CODEX:
        return Finding(
            check,
            None,
            "Codex does not wake by itself when a reviewer comments",
            "run `maple watch --agent codex` beside it (--session resumes your thread)",
        )
    return Finding(
        check,
        None,
        "Cursor does not wake by itself when a reviewer comments; its agent sees comments while "
        "it waits or is held by the Stop hook",
        "to have comments handled while Cursor is idle, run `maple watch --agent codex` or "
        "`--agent claude`",
    )


def _connected_findings(cwd: Path, findings: list[Finding]) -> None:
    """How each client that waited through ``maple-mcp`` here waits: as a task, or by polling.

    A client waiting as an MCP task wakes by itself; any other needs ``maple watch``.
    """
    from maple_entrypoints.bootstrap.local import clients_seen

    for seen in clients_seen(cwd):
        who = " ".join(part for part in (seen.name, seen.version) if part) or "a client"
        when = f" (last {seen.at})" if seen.at else ""
        if seen.tasks:
            findings.append(
                Finding(
                    "connected client wake",
                    True,
                    f"{who} waited here as an MCP task{when}: it wakes by itself when a reviewer "
                    "comments",
                )
            )
        else:
            findings.append(
                Finding(
                    "connected client wake",
                    None,
                    f"{who} waited here without the MCP tasks extension{when}: it does not wake "
                    "by itself",
                    "run `maple watch --agent claude` or `--agent codex` beside it",
                )
            )


def _registration_findings(cwd: Path, findings: list[Finding]) -> None:
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
        root = project_root(client, cwd)
        finding, entries = _registration_finding(client, root)
        findings.append(finding)
        if entries:  # registered, at least in part
            findings.append(_wake_finding(client, root))
        hook = next((e for e in entries if e.what == "Stop hook" and e.command), None)
        if client is Client.CODEX and hook is not None:
            _codex_trust_findings(cwd, root, hook, findings)
    _connected_findings(cwd, findings)


def _reading_finding() -> Finding:
    """Whether reviewers' replies are read (``MAPLE_CLASSIFIER``), and whether its harness can."""
    from maple_entrypoints.bootstrap.classifier import classifier_from_environment

    try:
        classifier = classifier_from_environment()
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


def examine(cwd: Path, branch: str | None) -> list[Finding]:
    """Every check, in order; a broken configuration skips the checks that need it."""
    findings: list[Finding] = []
    config = _config_findings(findings)
    findings.append(_reading_finding())
    if branch is None:
        branch = find_checkout(cwd).branch
    if config is not None:
        _store_findings(config, cwd, branch, findings)
    _registration_findings(cwd, findings)
    return findings


_MARKS: dict[bool | None, str] = {True: "ok  ", False: "FAIL", None: "--  "}


def doctor(branch: BranchOption = None, as_json: JsonOption = False) -> None:
    """Check the configuration, the store, GitHub access, the harness and the registrations.

    The harness is the one that reads reviewers' replies (``MAPLE_CLASSIFIER``). Each
    problem is printed with its fix; exit 1 when something is broken (a missing registration
    is reported, not counted as broken).
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
