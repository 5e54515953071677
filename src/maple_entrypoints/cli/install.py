"""``maple install``: register the MCP server and the Stop hook with a coding client.

Each file is merged, never replaced: every other server and hook stays as it was, and running
it again changes nothing. A file that is not valid JSON (or TOML) is refused, not overwritten.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from maple_entrypoints.cli.common import EXIT_ERROR, fail

__all__ = ["Client", "install", "planned_changes"]


class Client(StrEnum):
    """The coding clients maple installs into."""

    CLAUDE_CODE = "claude-code"
    CURSOR = "cursor"
    CODEX = "codex"


def command_for(name: str) -> str:
    """The console script's name when ``PATH`` finds this installation's, else its full path."""
    ours = Path(sys.executable).with_name(name)
    found = shutil.which(name)
    if found and ours.exists() and Path(found).resolve() == ours.resolve():
        return name
    return str(ours) if ours.exists() else name


@dataclass(frozen=True)
class Change:
    """One file: its text before (``None`` when absent) and after."""

    path: Path
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        """True when writing would change the file."""
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change."""
        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"{self.path} (now)" if self.before is not None else "/dev/null",
                tofile=str(self.path),
            )
        )


class UnreadableFileError(Exception):
    """A file to merge into is not valid JSON or TOML; it is left alone."""


def _read_json(path: Path) -> tuple[str | None, dict[str, Any]]:
    if not path.exists():
        return None, {}
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise UnreadableFileError(
            f"{path} is not valid JSON ({exc}); fix it and run this again. maple will not "
            "overwrite it."
        ) from None
    if not isinstance(data, dict):
        raise UnreadableFileError(f"{path} does not hold a JSON object; maple will not touch it.")
    return text, data


def _json_change(path: Path, merge: Callable[[dict[str, Any]], None]) -> Change:
    before, data = _read_json(path)
    merge(data)
    return Change(path, before, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _section(data: dict[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        value = kind()
        data[key] = value
    return value


def _mentions(entries: list[Any], needle: str) -> bool:
    return needle in json.dumps(entries)


def _claude_style_hook(hook: str) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        stop = _section(_section(data, "hooks", dict), "Stop", list)
        if not _mentions(stop, "maple-stop-hook") and not _mentions(stop, "maple hook stop"):
            stop.append({"hooks": [{"type": "command", "command": hook}]})

    return merge


def _mcp_server(entry: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        servers = _section(data, "mcpServers", dict)
        if not isinstance(servers.get("maple"), dict):
            servers["maple"] = entry
        else:
            servers["maple"].update(entry)

    return merge


def _cursor_hook(hook: str) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        data.setdefault("version", 1)
        stop = _section(_section(data, "hooks", dict), "stop", list)
        if not _mentions(stop, "maple-stop-hook") and not _mentions(stop, "maple hook stop"):
            stop.append({"command": hook, "loop_limit": 8})

    return merge


CODEX_TABLE = "mcp_servers.maple"


def codex_entries(mcp: str) -> str:
    """The ``config.toml`` table that registers the server with Codex."""
    return f"[{CODEX_TABLE}]\ncommand = {json.dumps(mcp)}\nargs = []\ntool_timeout_sec = 60\n"


def _toml_change(path: Path, mcp: str) -> Change:
    before = path.read_text(encoding="utf-8") if path.exists() else None
    text = before or ""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UnreadableFileError(
            f"{path} is not valid TOML ({exc}); fix it and run this again. maple will not "
            "overwrite it."
        ) from None
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == f"[{CODEX_TABLE}]"), None)
    table = codex_entries(mcp)
    if start is None:
        joiner = (
            "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        )
        after = text + joiner + table
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
        tail = "".join(lines[end:])
        after = "".join(lines[:start]) + table + ("\n" + tail if tail else "")
    tomllib.loads(after)
    return Change(path, before, after)


def codex_config_path() -> Path:
    """``$CODEX_HOME/config.toml``, else ``~/.codex/config.toml``."""
    home = os.environ.get("CODEX_HOME")
    return (Path(home) if home else Path.home() / ".codex") / "config.toml"


def planned_changes(
    client: Client, root: Path, *, codex_config: Path | None = None
) -> list[Change]:
    """The files ``maple install`` would write for ``client`` in the project at ``root``."""
    mcp, hook = command_for("maple-mcp"), command_for("maple-stop-hook")
    if client is Client.CLAUDE_CODE:
        return [
            _json_change(root / ".mcp.json", _mcp_server({"command": mcp, "args": []})),
            _json_change(root / ".claude" / "settings.json", _claude_style_hook(hook)),
        ]
    if client is Client.CURSOR:
        return [
            _json_change(root / ".cursor" / "mcp.json", _mcp_server({"command": mcp})),
            _json_change(root / ".cursor" / "hooks.json", _cursor_hook(f"{hook} --client cursor")),
        ]
    changes = [
        _json_change(root / ".codex" / "hooks.json", _claude_style_hook(f"{hook} --client codex"))
    ]
    if codex_config is not None:
        changes.append(_toml_change(codex_config, mcp))
    return changes


def _write(change: Change) -> None:
    change.path.parent.mkdir(parents=True, exist_ok=True)
    temporary = change.path.with_name(change.path.name + ".maple-tmp")
    temporary.write_text(change.after, encoding="utf-8")
    os.replace(temporary, change.path)


def install(
    client: Annotated[Client, typer.Argument(help="claude-code, cursor or codex.")],
    directory: Annotated[
        Path, typer.Option("--dir", help="The project to install into; default: here.")
    ] = Path(),
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the changes as a diff and write nothing.")
    ] = False,
    write: Annotated[
        bool,
        typer.Option("--write", help="Codex: also merge the server into ~/.codex/config.toml."),
    ] = False,
) -> None:
    """Register maple's MCP server and Stop hook with a coding client, keeping everything else.

    claude-code: .mcp.json and .claude/settings.json. cursor: .cursor/mcp.json and
    .cursor/hooks.json. codex: .codex/hooks.json, and the config.toml table is printed (or
    merged with --write). Running it again changes nothing.
    """
    root = directory.resolve()
    codex_config = codex_config_path() if client is Client.CODEX and write else None
    try:
        changes = planned_changes(client, root, codex_config=codex_config)
    except UnreadableFileError as exc:
        raise fail(str(exc), EXIT_ERROR) from None
    for change in changes:
        if not change.changed:
            print(f"unchanged  {change.path}")
        elif dry_run:
            sys.stdout.write(change.diff())
        else:
            _write(change)
            print(f"{'updated' if change.before is not None else 'created'}    {change.path}")
    if client is Client.CODEX and not write:
        print(
            f"\nAdd this to {codex_config_path()} (or run again with --write):\n\n"
            + codex_entries(command_for("maple-mcp"))
        )
    if client is Client.CODEX and not dry_run:
        print("Then trust the hook in Codex (it asks the first time it runs).")
