"""What Codex 0.163 must trust before it runs maple's Stop hook: the project and the hook.

The project's ``[projects."<path>"] trust_level`` and the hook's ``[hooks.state."<key>"]
trusted_hash``, in ``$CODEX_HOME/config.toml``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maple_entrypoints.cli.clients import Client, is_maple_hook, project_root
from maple_entrypoints.cli.toml_merge import TomlTable, toml_string
from maple_entrypoints.configuration import CODEX_HOME, Settings

__all__ = [
    "CodexHook",
    "codex_config_path",
    "codex_hook",
    "codex_hook_hash",
    "codex_project_trust",
    "codex_tables",
]


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


def codex_tables(
    config: dict[str, Any], mcp: str, root: Path, hook: CodexHook | None
) -> tuple[list[TomlTable], tuple[str, ...]]:
    """The ``config.toml`` tables registering the server and trusting the project and the hook.

    The notes say what maple leaves to the user (a project Codex marks as not trusted).
    """
    tables = [
        TomlTable(("mcp_servers", "maple"), {"command": mcp}, {"args": [], "tool_timeout_sec": 60})
    ]
    notes: tuple[str, ...] = ()
    where, level = codex_project_trust(config, root)
    if level is None:
        tables.append(TomlTable(("projects", str(root)), {"trust_level": "trusted"}, {}))
    elif level != "trusted":
        notes = (
            f"Codex marks {where} as {level}, so it ignores {root}/.codex/hooks.json; if you "
            f'trust it, set trust_level = "trusted" under [projects.{toml_string(where)}] in '
            f"{codex_config_path()}.",
        )
    if hook is not None and hook.hash is not None:
        tables.append(TomlTable(("hooks", "state", hook.key), {"trusted_hash": hook.hash}, {}))
    return tables, notes


def codex_config_path() -> Path:
    """``$CODEX_HOME/config.toml``, else ``~/.codex/config.toml``."""
    home = Settings()[CODEX_HOME]
    return (Path(home) if home else Path.home() / ".codex") / "config.toml"
