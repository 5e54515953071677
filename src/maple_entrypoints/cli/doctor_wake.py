"""``maple doctor``'s checks of waking: whether each client wakes when a reviewer comments."""

from __future__ import annotations

from pathlib import Path

from maple_entrypoints.cli.clients import Client, tasks_disabled_by
from maple_entrypoints.cli.common import local_here
from maple_entrypoints.cli.findings import Finding

__all__ = [
    "connected_findings",
    "wake_finding",
]


def wake_finding(client: Client, root: Path) -> Finding:
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


def connected_findings(cwd: Path, findings: list[Finding]) -> None:
    """How each client that waited through ``maple-mcp`` here waits: as a task, or by polling.

    A client waiting as an MCP task wakes by itself; any other needs ``maple watch``.
    """
    for seen in local_here(cwd).clients.seen():
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
