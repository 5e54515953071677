"""``maple install``: register the MCP server and the Stop hook with a coding client.

Each file is merged, never replaced: every other server and hook stays as it was, and running
it again changes nothing. A file that is not valid JSON (or TOML) is refused, not overwritten.

For Claude Code nothing is set for waking the agent when a comment arrives: interactive sessions
declare MCP tasks, so ``wait_for_comments`` runs as a task that wakes the idle session by itself.
maple writes no ``env`` into ``.claude/settings.json``: lowering
``CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS`` below the 55 s wait would turn every plain wait into a
background task whose empty timeout wakes the session for nothing, and that file's ``env``
reaches every tool and server of the project. A ``CLAUDE_CODE_DISABLE_MCP_TASKS`` already set is
pointed out (see :func:`~maple_entrypoints.cli.clients.tasks_disabled_by`).

For Codex, ``--write`` also trusts what Codex 0.163 needs trusted before it runs the hook: the
project (``[projects."<path>"] trust_level = "trusted"``) and the hook itself
(``[hooks.state."<key>"] trusted_hash``), in ``$CODEX_HOME/config.toml``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from maple_entrypoints.cli.client_files import (
    Change,
    UnreadableFileError,
    json_change,
    read_toml,
    section,
)
from maple_entrypoints.cli.clients import (
    SERVER,
    Client,
    command_for,
    hook_command,
    is_maple_hook,
    project_root,
    tasks_disabled_by,
    tasks_note,
)
from maple_entrypoints.cli.codex_trust import codex_config_path, codex_hook, codex_tables
from maple_entrypoints.cli.common import EXIT_ERROR, fail
from maple_entrypoints.cli.toml_merge import toml_change

__all__ = ["install", "planned_changes"]


def _set_maple_hook(entries: list[Any], command: str, new: Callable[[], Any]) -> None:
    """Point maple's hook entry at ``command`` (its other fields stay), or append ``new()``."""
    found = False
    for entry in entries:
        handlers = entry.get("hooks") if isinstance(entry, dict) else None
        for handler in handlers if isinstance(handlers, list) else [entry]:
            if isinstance(handler, dict) and is_maple_hook(handler.get("command")):
                handler["command"] = command
                found = True
    if not found:
        entries.append(new())


def _claude_style_hook(hook: str) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        stop = section(section(data, "hooks", dict), "Stop", list)
        _set_maple_hook(stop, hook, lambda: {"hooks": [{"type": "command", "command": hook}]})

    return merge


def _mcp_server(entry: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        servers = section(data, "mcpServers", dict)
        if not isinstance(servers.get("maple"), dict):
            servers["maple"] = entry
        else:
            servers["maple"].update(entry)

    return merge


def _loop_limited_hook(hook: str) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        data.setdefault("version", 1)
        stop = section(section(data, "hooks", dict), "stop", list)
        _set_maple_hook(stop, hook, lambda: {"command": hook, "loop_limit": 8})

    return merge


# -- Codex: the hook's trust, and config.toml ---------------------------------------------------


def planned_changes(
    client: Client, root: Path, *, codex_config: Path | None = None
) -> list[Change]:
    """The files ``maple install`` would write for ``client`` in the project at ``root``.

    For Codex, ``codex_config`` is the ``config.toml`` to merge the server and the trust into.
    """
    mcp = command_for(SERVER)
    if client is Client.CLAUDE_CODE:
        settings = json_change(
            root / ".claude" / "settings.json", _claude_style_hook(hook_command())
        )
        disabled = tasks_disabled_by(root)
        if disabled is not None:
            settings = replace(settings, notes=(tasks_note(disabled),))
        return [
            json_change(root / ".mcp.json", _mcp_server({"command": mcp, "args": []})),
            settings,
        ]
    if client is Client.CURSOR:
        return [
            json_change(root / ".cursor" / "mcp.json", _mcp_server({"command": mcp})),
            json_change(
                root / ".cursor" / "hooks.json",
                _loop_limited_hook(hook_command("--client cursor")),
            ),
        ]
    hooks_path = root / ".codex" / "hooks.json"
    hooks = json_change(hooks_path, _claude_style_hook(hook_command("--client codex")))
    changes = [hooks]
    if codex_config is not None:
        hook = codex_hook(hooks_path, json.loads(hooks.after))
        if hook is not None and hook.hash is None:
            raise UnreadableFileError(
                f"{hooks_path} gives maple's Stop hook a field Codex cannot read (timeout, "
                "async or statusMessage); fix it and run this again."
            )
        tables, notes = codex_tables(read_toml(codex_config)[1], mcp, root, hook)
        changes.append(toml_change(codex_config, tables, notes))
    return changes


def _write(change: Change) -> None:
    target = change.path.resolve()  # through a symlink, so the link stays a link
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".maple-tmp")
    temporary.write_text(change.after, encoding="utf-8")
    if target.exists():
        os.chmod(temporary, target.stat().st_mode & 0o7777)
    os.replace(temporary, target)


def _codex_block(root: Path, changes: list[Change]) -> str:
    """What to merge into config.toml by hand, or a line saying it is all there already."""
    config = codex_config_path()
    [hooks] = [c for c in changes if c.path.name == "hooks.json"]
    hook = codex_hook(hooks.path, json.loads(hooks.after))
    try:
        current = read_toml(config)[1]
    except UnreadableFileError:
        current = {}
    tables, notes = codex_tables(current, command_for(SERVER), root, hook)
    for note in notes:
        sys.stderr.write(f"maple: {note}\n")
    try:
        if not toml_change(config, tables).changed:
            return f"\n{config} already registers the server and trusts the project and hook.\n"
    except UnreadableFileError:
        pass
    body = "\n".join(t.text() for t in tables)
    return f"\nMerge this into {config} (or run again with --write):\n\n{body}"


def install(
    client: Annotated[Client, typer.Argument(help="claude-code, cursor or codex.")],
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir", help="The project to install into; default: the checkout holding this folder."
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the changes as a diff and write nothing.")
    ] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Codex: also merge the server and the project's and hook's trust into "
            "$CODEX_HOME/config.toml.",
        ),
    ] = False,
) -> None:
    """Register maple's MCP server and Stop hook with a coding client, keeping everything else.

    claude-code: .mcp.json and .claude/settings.json. cursor: .cursor/mcp.json and
    .cursor/hooks.json. codex: .codex/hooks.json, and the config.toml tables (the server, the
    project's trust and the hook's trusted hash) are printed, or merged with --write. Running it
    again changes nothing.
    """
    root = directory.resolve() if directory is not None else project_root(client, Path.cwd())
    codex_config = codex_config_path() if client is Client.CODEX and write else None
    try:
        changes = planned_changes(client, root, codex_config=codex_config)
    except UnreadableFileError as exc:
        raise fail(str(exc), EXIT_ERROR) from None
    for change in changes:
        for note in change.notes:
            sys.stderr.write(f"maple: {note}\n")
        if not change.changed:
            print(f"unchanged  {change.path}")
        elif dry_run:
            sys.stdout.write(change.diff())
        else:
            _write(change)
            print(f"{'updated' if change.before is not None else 'created'}    {change.path}")
    if client is Client.CODEX and not write:
        print(_codex_block(root, changes), end="")
