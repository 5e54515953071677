"""``maple doctor``'s checks of the coding clients: maple registered, runnable, woken, trusted."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path
from typing import Any

from maple_entrypoints.cli.client_files import UnreadableFileError, read_json, read_toml
from maple_entrypoints.cli.clients import Client, is_maple_hook, project_root
from maple_entrypoints.cli.codex_trust import codex_config_path
from maple_entrypoints.cli.doctor_codex import codex_trust_findings
from maple_entrypoints.cli.doctor_wake import connected_findings, wake_finding
from maple_entrypoints.cli.findings import Finding, Registered

__all__ = [
    "registration_findings",
]


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _not_runnable(entry: Registered, root: Path) -> str | None:
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


def _registrations(client: Client, root: Path) -> list[Registered]:
    """Where ``client`` has maple's server and Stop hook (``command`` None: not registered)."""
    if client is Client.CLAUDE_CODE:
        mcp, settings = root / ".mcp.json", root / ".claude" / "settings.json"
        return [
            Registered("server", mcp, _server_command(read_json(mcp)[1], "mcpServers"), False),
            Registered("Stop hook", settings, _hook_command(read_json(settings)[1], "Stop"), True),
        ]
    if client is Client.CURSOR:
        mcp, hooks = root / ".cursor" / "mcp.json", root / ".cursor" / "hooks.json"
        return [
            Registered("server", mcp, _server_command(read_json(mcp)[1], "mcpServers"), False),
            Registered("Stop hook", hooks, _hook_command(read_json(hooks)[1], "stop"), True),
        ]
    config = codex_config_path()
    server = Registered(
        "server", config, _server_command(read_toml(config)[1], "mcp_servers"), False
    )
    project = root / ".codex" / "hooks.json"
    for hooks in (project, config.with_name("hooks.json")):
        command = _hook_command(read_json(hooks)[1], "Stop")
        if command is not None:
            return [server, Registered("Stop hook", hooks, command, True)]
    return [server, Registered("Stop hook", project, None, True)]


def _registration_finding(client: Client, root: Path) -> tuple[Finding, list[Registered]]:
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


def registration_findings(cwd: Path, findings: list[Finding]) -> None:
    """The servers on ``PATH``, each client's registration, waking and trust, and who connected."""
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
            findings.append(wake_finding(client, root))
        hook = next((e for e in entries if e.what == "Stop hook" and e.command), None)
        if client is Client.CODEX and hook is not None:
            codex_trust_findings(cwd, root, hook, findings)
    connected_findings(cwd, findings)
