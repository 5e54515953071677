"""The peers the agent-provider contract runs against: a scripted turn, played by each.

A scenario is a list of turns; a turn is a list of steps: ``{"say": text}``, ``{"run": shell}``,
``{"write": relative path, "text": ...}``, ``{"ask": question, "options": [...]}``,
``{"sleep": seconds}`` (a long command, for cancelling) and ``{"fail": message}``. The fake
executables read the scenario directly; the real binaries get it from a scripted model server.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maple_adapters.agents import ClaudeProvider, CodexProvider
from maple_core.ports import AgentProvider

FAKES = Path(__file__).resolve().parents[1] / "tests" / "agents"
Scenario = list[list[dict[str, Any]]]


@dataclass
class Peer:
    """A provider wired to a peer, a project folder, and a way to script its next turns."""

    name: str
    provider: AgentProvider
    workspace: Path
    pids: Path
    install: Callable[[Scenario], None]
    extra: dict[str, Any] = field(default_factory=dict)

    def sleepers(self) -> list[int]:
        """The pids of the long commands the agent started."""
        if not self.pids.exists():
            return []
        return [int(line) for line in self.pids.read_text().split()]


def _wrapper(folder: Path, name: str, module: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {name!r}\n"
        f"runpy.run_path({str(FAKES / module)!r}, run_name='__main__')\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_peer(provider_name: str, tmp: Path) -> Peer:
    """The deterministic fake ``codex`` or ``claude`` on a private folder."""
    workspace = tmp / "project"
    workspace.mkdir(parents=True, exist_ok=True)
    script = tmp / "script.json"
    pids = tmp / "pids.txt"
    binary = _wrapper(tmp / "bin", provider_name, f"fake_{provider_name}.py")
    env = {
        "HOME": str(tmp / "home"),
        "CODEX_HOME": str(tmp / "codex-home"),
        "MAPLE_FAKE_SCRIPT": str(script),
        "MAPLE_FAKE_PIDS": str(pids),
        "MAPLE_FAKE_ARGV_LOG": str(tmp / "argv.jsonl"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    (tmp / "home").mkdir(exist_ok=True)
    provider: AgentProvider = (
        CodexProvider(str(binary), env)
        if provider_name == "codex"
        else ClaudeProvider(str(binary), env)
    )

    def install(scenario: Scenario) -> None:
        script.write_text(json.dumps(scenario))

    return Peer(
        f"{provider_name}-fake", provider, workspace, pids, install, {"argv": tmp / "argv.jsonl"}
    )


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
    except OSError:
        return os.path.exists(f"/proc/{pid}")
