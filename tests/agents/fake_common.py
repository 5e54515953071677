"""Shared by the fake ``codex`` and ``claude`` executables: the scripted turns and the pid log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def script() -> list[list[dict[str, Any]]]:
    """The turns to play, from ``MAPLE_FAKE_SCRIPT`` (a JSON list of lists of steps)."""
    return json.loads(Path(os.environ["MAPLE_FAKE_SCRIPT"]).read_text())


def turn_steps(index: int) -> list[dict[str, Any]]:
    turns = script()
    return turns[index] if index < len(turns) else [{"say": f"(no turn {index} scripted)"}]


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def start_sleeper(seconds: float) -> subprocess.Popen[bytes]:
    """A long command in this process group, its pid logged for the test to check."""
    child = subprocess.Popen(["sleep", str(seconds)])
    log = os.environ.get("MAPLE_FAKE_PIDS")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"{child.pid}\n")
    return child


def run_shell(command: str, cwd: str) -> int:
    return subprocess.run(command, shell=True, cwd=cwd, capture_output=True).returncode
