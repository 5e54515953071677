"""``maple install``: register the MCP server and the Stop hook with a coding client.

Each file is merged, never replaced: every other server and hook stays as it was, and running
it again changes nothing. A file that is not valid JSON (or TOML) is refused, not overwritten.

For Claude Code nothing is set for waking the agent when a comment arrives: interactive sessions
declare MCP tasks, so ``wait_for_comments`` runs as a task that wakes the idle session by itself.
maple writes no ``env`` into ``.claude/settings.json``: lowering
``CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS`` below the 55 s wait would turn every plain wait into a
background task whose empty timeout wakes the session for nothing, and that file's ``env``
reaches every tool and server of the project. A ``CLAUDE_CODE_DISABLE_MCP_TASKS`` already set is
pointed out (see :func:`tasks_disabled_by`).

For Codex, ``--write`` also trusts what Codex 0.163 needs trusted before it runs the hook: the
project (``[projects."<path>"] trust_level = "trusted"``) and the hook itself
(``[hooks.state."<key>"] trusted_hash``), in ``$CODEX_HOME/config.toml``.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shlex
import shutil
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import tomlkit
import tomlkit.exceptions
import typer

from maple_entrypoints.cli.common import EXIT_ERROR, fail, local_here
from maple_entrypoints.configuration import (
    CLAUDE_CODE_DISABLE_MCP_TASKS,
    CODEX_HOME,
    VIRTUAL_ENV,
    Settings,
)

__all__ = [
    "Client",
    "CodexHook",
    "bare_names_work",
    "codex_config_path",
    "codex_hook",
    "codex_hook_hash",
    "codex_project_trust",
    "command_for",
    "install",
    "is_maple_hook",
    "planned_changes",
    "project_root",
    "tasks_disabled_by",
    "tasks_note",
    "toml_string",
]

SERVER = "maple-mcp"
HOOK = "maple-stop-hook"


class Client(StrEnum):
    """The coding clients maple installs into."""

    CLAUDE_CODE = "claude-code"
    CURSOR = "cursor"
    CODEX = "codex"


def _ours(name: str) -> Path:
    return Path(sys.executable).with_name(name)


def bare_names_work() -> bool:
    """True when a client's usual ``PATH`` runs this installation's scripts by their names.

    ``PATH`` must find this installation's ``maple-mcp`` and ``maple-stop-hook`` both, and not
    only because its virtualenv is activated (``VIRTUAL_ENV``): a client started from elsewhere
    (a desktop app, another shell) does not have that.
    """
    venv = Settings()[VIRTUAL_ENV]
    if venv and Path(venv).resolve() == Path(sys.executable).parent.parent.resolve():
        return False
    for name in (SERVER, HOOK):
        found, ours = shutil.which(name), _ours(name)
        if not (found and ours.exists() and Path(found).resolve() == ours.resolve()):
            return False
    return True


def command_for(name: str) -> str:
    """How ``maple install`` writes the console script ``name``.

    ``maple-mcp`` and ``maple-stop-hook`` always take the same form: their names when
    :func:`bare_names_work`, else their full paths.
    """
    ours = _ours(name)
    if bare_names_work() or not ours.exists():
        return name
    return str(ours)


def _hook_command(client_flag: str = "") -> str:
    hook = shlex.quote(command_for(HOOK))  # clients run hooks through a shell
    return f"{hook} {client_flag}".rstrip()


def is_maple_hook(command: object) -> bool:
    """True for a hook command that runs maple's Stop hook (either spelling)."""
    return isinstance(command, str) and (
        "maple-stop-hook" in command or "maple hook stop" in command
    )


def project_root(client: Client, directory: Path) -> Path:
    """Where ``client`` looks for the project's files when started in ``directory``.

    Claude Code and Cursor: the top of the git checkout holding ``directory``. Codex: the main
    checkout, which it reads ``.codex/`` from even in a linked worktree. Outside git: the
    directory itself.
    """
    start = Path(os.path.realpath(directory))
    if client is Client.CODEX:
        return Path(local_here(start).checkout.root)
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


TASKS_OFF = CLAUDE_CODE_DISABLE_MCP_TASKS.name
"""Claude Code's switch that turns MCP tasks off, and with them waking when a comment arrives."""


def _set(value: object) -> bool:
    return isinstance(value, str | int) and str(value).strip().lower() not in (
        "",
        "0",
        "false",
        "no",
        "off",
    )


def tasks_disabled_by(root: Path) -> str | None:
    """Where ``CLAUDE_CODE_DISABLE_MCP_TASKS`` is set for Claude Code in ``root``, or ``None``.

    Looked for in the environment, then in the ``env`` of the project's
    ``.claude/settings.local.json`` and ``.claude/settings.json`` and of the user's
    ``~/.claude/settings.json``. A file that cannot be read is skipped (``maple doctor`` reports
    it on its own line).
    """
    if _set(Settings()[CLAUDE_CODE_DISABLE_MCP_TASKS]):
        return "the environment"
    for path in (
        root / ".claude" / "settings.local.json",
        root / ".claude" / "settings.json",
        Path.home() / ".claude" / "settings.json",
    ):
        try:
            env = read_json(path)[1].get("env")
        except (UnreadableFileError, OSError):
            continue
        if isinstance(env, dict) and _set(env.get(TASKS_OFF)):
            return str(path)
    return None


def tasks_note(where: str) -> str:
    """What to say when ``CLAUDE_CODE_DISABLE_MCP_TASKS`` is set in ``where``."""
    return (
        f"{TASKS_OFF} is set in {where}, so an idle Claude Code session cannot wake when a "
        "reviewer comments; remove it there, or run `maple watch --agent claude` beside it."
    )


@dataclass(frozen=True)
class Change:
    """One file: its text before (``None`` when absent) and after.

    ``same`` is True when the file already says what maple would write (compared as data, so a
    file formatted differently is left as it is). ``notes`` are one-line warnings to show.
    """

    path: Path
    before: str | None
    after: str
    same: bool = False
    notes: tuple[str, ...] = ()

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


def read_json(path: Path) -> tuple[str | None, dict[str, Any]]:
    """A client's JSON file: its text (``None`` when absent) and its object (``{}`` if absent).

    Raises :class:`UnreadableFileError` for a file that is not a JSON object in UTF-8.
    """
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


def read_toml(path: Path) -> tuple[str | None, dict[str, Any]]:
    """A TOML file's text (``None`` when absent) and data; :class:`UnreadableFileError` if bad."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else None
        return text, tomllib.loads(text or "")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UnreadableFileError(
            f"{path} is not valid TOML ({exc}); fix it and run this again. maple will not "
            "overwrite it."
        ) from None


def _json_change(path: Path, merge: Callable[[dict[str, Any]], None]) -> Change:
    before, data = read_json(path)
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
        stop = _section(_section(data, "hooks", dict), "Stop", list)
        _set_maple_hook(stop, hook, lambda: {"hooks": [{"type": "command", "command": hook}]})

    return merge


def _mcp_server(entry: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        servers = _section(data, "mcpServers", dict)
        if not isinstance(servers.get("maple"), dict):
            servers["maple"] = entry
        else:
            servers["maple"].update(entry)

    return merge


def _loop_limited_hook(hook: str) -> Callable[[dict[str, Any]], None]:
    def merge(data: dict[str, Any]) -> None:
        data.setdefault("version", 1)
        stop = _section(_section(data, "hooks", dict), "stop", list)
        _set_maple_hook(stop, hook, lambda: {"command": hook, "loop_limit": 8})

    return merge


# -- Codex: the hook's trust, and config.toml ---------------------------------------------------


@dataclass(frozen=True)
class CodexHook:
    """The entry running maple's Stop hook in a Codex ``hooks.json``, and its trust key and hash.

    ``key`` is ``<hooks.json path>:stop:<group index>:<handler index>``; ``hash`` is ``None``
    when the entry has a field Codex would not read.
    """

    key: str
    hash: str | None
    command: str


def codex_hook_hash(handler: dict[str, Any]) -> str | None:
    """The hash Codex 0.163 pins a Stop command hook's trust to (``None`` if it cannot be read).

    Codex hashes the hook's normalized identity, not the file: SHA-256 of the JSON (keys sorted,
    no spaces, UTF-8) of ``{"event_name": "stop", "hooks": [h]}``, where ``h`` holds ``type``,
    ``command``, ``timeout`` (600 when absent, at least 1), ``async`` (false when absent) and
    ``statusMessage`` when set. A Stop group's ``matcher`` is not part of it.
    """
    command, timeout = handler.get("command"), handler.get("timeout", 600)
    background, status = handler.get("async", False), handler.get("statusMessage")
    if not isinstance(command, str) or not isinstance(background, bool):
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0:
        return None
    normal: dict[str, Any] = {
        "type": "command",
        "command": command,
        "timeout": max(timeout, 1),
        "async": background,
    }
    if status is not None:
        if not isinstance(status, str):
            return None
        normal["statusMessage"] = status
    identity = json.dumps(
        {"event_name": "stop", "hooks": [normal]},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    try:
        return "sha256:" + hashlib.sha256(identity.encode("utf-8")).hexdigest()
    except UnicodeEncodeError:
        return None


def codex_hook(path: Path, data: dict[str, Any]) -> CodexHook | None:
    """Where ``hooks.json`` (at ``path``, holding ``data``) runs maple's Stop hook, if it does."""
    hooks = data.get("hooks")
    groups = hooks.get("Stop") if isinstance(hooks, dict) else None
    for g, group in enumerate(groups if isinstance(groups, list) else []):
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for h, handler in enumerate(handlers if isinstance(handlers, list) else []):
            if isinstance(handler, dict) and is_maple_hook(handler.get("command")):
                return CodexHook(
                    f"{path}:stop:{g}:{h}", codex_hook_hash(handler), handler["command"]
                )
    return None


def codex_project_trust(
    config: dict[str, Any], root: Path, also: tuple[Path, ...] = ()
) -> tuple[str, str | None]:
    """The ``[projects]`` entry Codex applies to ``root``: its path and ``trust_level``.

    The nearest entry among ``also`` (checked first), ``root`` and its parents up to the top of
    its git checkout wins; ``(str(root), None)`` when there is none. An entry above the checkout
    does not count (Codex asks for the checkout itself).
    """
    projects = config.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    top = project_root(Client.CLAUDE_CODE, root)
    chain = [root, *(p for p in root.parents if p.is_relative_to(top))]
    for candidate in (*also, *chain):
        entry = projects.get(str(candidate))
        if isinstance(entry, dict) and "trust_level" in entry:
            level = entry["trust_level"]
            return str(candidate), level if isinstance(level, str) else repr(level)
    return str(root), None


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string."""
    text = json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise UnreadableFileError(f"{value!r} is not valid UTF-8; maple cannot write it as TOML.")
    return text


@dataclass(frozen=True)
class _Table:
    """A TOML table to merge: ``values`` are always set, ``defaults`` only added when missing."""

    path: tuple[str, ...]
    values: dict[str, Any]
    defaults: dict[str, Any]

    def merge_into(self, document: tomlkit.TOMLDocument, file: Path) -> None:
        """Set the table's keys in ``document``, making the table (and its parents) if missing.

        A new table ends with a blank line, so a table after it keeps its distance.
        """
        node: Any = document
        created = False
        for depth, key in enumerate(self.path):
            child = node.get(key)
            if child is None:
                child = tomlkit.table(is_super_table=depth < len(self.path) - 1)
                node[key] = child
                created = True
            elif not isinstance(child, dict):
                raise UnreadableFileError(
                    f"{file} defines {'.'.join(self.path[: depth + 1])} as something other "
                    f"than a table; add {self.text().strip()!r} there yourself, or run "
                    "without --write."
                )
            node = child
        for key, value in self.values.items():
            if node.get(key) != value:
                node[key] = value
        for key, value in self.defaults.items():
            if key not in node:
                node[key] = value
        if created:
            node.add(tomlkit.nl())

    def text(self) -> str:
        """The table alone, as ``config.toml`` would hold it."""
        return _merged("", [self], Path("config.toml"))


def _merged(text: str, tables: list[_Table], file: Path) -> str:
    """``text`` with ``tables`` merged in; every other key, table, comment and blank line kept."""
    document = tomlkit.parse(text)
    for table in tables:
        table.merge_into(document, file)
    merged = tomlkit.dumps(document)
    if any("\ud800" <= ch <= "\udfff" for ch in merged):
        raise UnreadableFileError(f"{file} would not be valid UTF-8; maple cannot write it.")
    if merged.endswith("\n\n") and not text.endswith("\n\n"):
        merged = merged[:-1]  # a new last table needs no blank line after it
    return merged


def _apply(data: dict[str, Any], table: _Table) -> None:
    node = data
    for key in table.path:
        node = node.setdefault(key, {})
    node.update(table.values)
    for key, value in table.defaults.items():
        node.setdefault(key, value)


def _toml_change(path: Path, tables: list[_Table], notes: tuple[str, ...] = ()) -> Change:
    """Merge ``tables`` into a TOML file through ``tomlkit``, keeping its comments and layout.

    An existing table (plain or inline) keeps its other keys; a key in the way that is not a
    table is refused rather than replaced, and so is a result that would read back as anything
    but the file plus the merged values.
    """
    before, expected = read_toml(path)
    try:
        text = _merged(before or "", tables, path)
        merged = tomllib.loads(text)
    except (tomlkit.exceptions.TOMLKitError, tomllib.TOMLDecodeError):
        merged = None
    for table in tables:
        _apply(expected, table)
    if merged != expected:
        raise UnreadableFileError(
            f"{path} could not be merged safely; add {tables[0].text().strip()!r} there "
            "yourself. The file was left as it is."
        )
    return Change(path, before, text, same=before is not None and before == text, notes=notes)


def _codex_tables(
    config: dict[str, Any], mcp: str, root: Path, hook: CodexHook | None
) -> tuple[list[_Table], tuple[str, ...]]:
    tables = [
        _Table(("mcp_servers", "maple"), {"command": mcp}, {"args": [], "tool_timeout_sec": 60})
    ]
    notes: tuple[str, ...] = ()
    where, level = codex_project_trust(config, root)
    if level is None:
        tables.append(_Table(("projects", str(root)), {"trust_level": "trusted"}, {}))
    elif level != "trusted":
        notes = (
            f"Codex marks {where} as {level}, so it ignores {root}/.codex/hooks.json; if you "
            f'trust it, set trust_level = "trusted" under [projects.{toml_string(where)}] in '
            f"{codex_config_path()}.",
        )
    if hook is not None and hook.hash is not None:
        tables.append(_Table(("hooks", "state", hook.key), {"trusted_hash": hook.hash}, {}))
    return tables, notes


def codex_config_path() -> Path:
    """``$CODEX_HOME/config.toml``, else ``~/.codex/config.toml``."""
    home = Settings()[CODEX_HOME]
    return (Path(home) if home else Path.home() / ".codex") / "config.toml"


def planned_changes(
    client: Client, root: Path, *, codex_config: Path | None = None
) -> list[Change]:
    """The files ``maple install`` would write for ``client`` in the project at ``root``.

    For Codex, ``codex_config`` is the ``config.toml`` to merge the server and the trust into.
    """
    mcp = command_for(SERVER)
    if client is Client.CLAUDE_CODE:
        settings = _json_change(
            root / ".claude" / "settings.json", _claude_style_hook(_hook_command())
        )
        disabled = tasks_disabled_by(root)
        if disabled is not None:
            settings = replace(settings, notes=(tasks_note(disabled),))
        return [
            _json_change(root / ".mcp.json", _mcp_server({"command": mcp, "args": []})),
            settings,
        ]
    if client is Client.CURSOR:
        return [
            _json_change(root / ".cursor" / "mcp.json", _mcp_server({"command": mcp})),
            _json_change(
                root / ".cursor" / "hooks.json",
                _loop_limited_hook(_hook_command("--client cursor")),
            ),
        ]
    hooks_path = root / ".codex" / "hooks.json"
    hooks = _json_change(hooks_path, _claude_style_hook(_hook_command("--client codex")))
    changes = [hooks]
    if codex_config is not None:
        hook = codex_hook(hooks_path, json.loads(hooks.after))
        if hook is not None and hook.hash is None:
            raise UnreadableFileError(
                f"{hooks_path} gives maple's Stop hook a field Codex cannot read (timeout, "
                "async or statusMessage); fix it and run this again."
            )
        tables, notes = _codex_tables(read_toml(codex_config)[1], mcp, root, hook)
        changes.append(_toml_change(codex_config, tables, notes))
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
    tables, notes = _codex_tables(current, command_for(SERVER), root, hook)
    for note in notes:
        sys.stderr.write(f"maple: {note}\n")
    try:
        if not _toml_change(config, tables).changed:
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
