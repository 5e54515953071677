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
    """One file: its text before (``None`` when absent) and after.

    ``same`` is True when the file already says what maple would write (compared as data, so a
    file formatted differently is left as it is).
    """

    path: Path
    before: str | None
    after: str
    same: bool = False

    @property
    def changed(self) -> bool:
        """True when writing would change what the file says."""
        return not self.same and self.before != self.after

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
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if text.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise UnreadableFileError(
            f"{path} is not valid JSON ({exc}); fix it and run this again. maple will not "
            "overwrite it."
        ) from None
    if not isinstance(data, dict):
        raise UnreadableFileError(f"{path} does not hold a JSON object; maple will not touch it.")
    return text, data


def _json_change(path: Path, merge: Callable[[dict[str, Any]], None]) -> Change:
    before, data = _read_json(path)
    original = json.loads(json.dumps(data))
    merge(data)
    after = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return Change(path, before, after, same=before is not None and original == data)


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
    """Merge ``[mcp_servers.maple]`` into a Codex config, keeping every other key and table.

    An existing plain ``[mcp_servers.maple]`` table keeps its other keys (``env``, timeouts);
    only ``command`` is set, and ``args`` and ``tool_timeout_sec`` are added when missing. A
    config that says it another way (an inline table, a commented header) is refused rather
    than rewritten.
    """
    try:
        before = path.read_text(encoding="utf-8") if path.exists() else None
        current = tomllib.loads(before or "")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UnreadableFileError(
            f"{path} is not valid TOML ({exc}); fix it and run this again. maple will not "
            "overwrite it."
        ) from None
    text = before or ""
    servers = current.get("mcp_servers")
    existing = servers.get("maple") if isinstance(servers, dict) else None
    if isinstance(existing, dict) and existing.get("command") == mcp:
        return Change(path, before, text, same=True)
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.strip() == f"[{CODEX_TABLE}]"), None)
    if existing is not None and start is None:
        raise UnreadableFileError(
            f"{path} defines mcp_servers.maple in a form maple cannot edit safely; set "
            f"command = {json.dumps(mcp)} there yourself, or run without --write."
        )
    if start is None:
        joiner = (
            "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        )
        after = text + joiner + codex_entries(mcp)
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
        body = lines[start + 1 : end]
        keys = {line.split("=", 1)[0].strip() for line in body if "=" in line}
        kept = [line for line in body if line.split("=", 1)[0].strip() != "command"]
        added = [f"command = {json.dumps(mcp)}\n"]
        if "args" not in keys:
            added.append("args = []\n")
        if "tool_timeout_sec" not in keys:
            added.append("tool_timeout_sec = 60\n")
        after = "".join([*lines[: start + 1], *added, *kept, *lines[end:]])
    try:
        merged = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        merged = {}
    entry = merged.get("mcp_servers", {}).get("maple") if isinstance(merged, dict) else None
    if not isinstance(entry, dict) or entry.get("command") != mcp:
        raise UnreadableFileError(
            f"{path} could not be merged safely; set [mcp_servers.maple] command = "
            f"{json.dumps(mcp)} there yourself. The file was left as it is."
        )
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
    target = change.path.resolve()  # through a symlink, so the link stays a link
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".maple-tmp")
    temporary.write_text(change.after, encoding="utf-8")
    if target.exists():
        os.chmod(temporary, target.stat().st_mode & 0o7777)
    os.replace(temporary, target)


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
