"""The run key: what ``maple-mcp``'s recorded handshake answers can depend on, as one digest.

The key is a digest of everything the SDK's answers to the handshake can depend on:

- the interpreter (its version and prefix) and every distribution installed beside it (names
  and versions of the ``.dist-info`` folders on ``sys.path``: the SDK, pydantic, maple itself);
- maple's own code: path, size and modification time of every module of its three packages, so
  an edited checkout (an editable install) never replays what older code answered;
- the configuration: every variable of the environment table, secrets only as set or unset
  (:func:`~maple_entrypoints.settings.configuration_values`), and the command's arguments.

So a changed SDK, maple, or setting (``MAPLE_AGENTS`` adds tools) is a new key.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["FORMAT", "run_key"]

FORMAT = 1
"""The recorded answers' format, part of every key and of every file."""
_PACKAGES = ("maple_core", "maple_adapters", "maple_entrypoints")
_SOURCE = Path(__file__).resolve().parents[1]


def _code_stamps(root: Path) -> list[tuple[str, int, int]]:
    stamps: list[tuple[str, int, int]] = []
    pending = [root / package for package in _PACKAGES]
    while pending:
        folder = pending.pop()
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                    pending.append(Path(entry.path))
                elif entry.name.endswith(".py"):
                    found = entry.stat()
                    stamps.append((entry.path, found.st_size, found.st_mtime_ns))
    return sorted(stamps)


def _distributions(paths: Iterable[str]) -> list[str]:
    names: list[str] = []
    for path in paths:
        with contextlib.suppress(OSError), os.scandir(path or ".") as entries:
            names += [e.name for e in entries if e.name.endswith((".dist-info", ".egg-info"))]
    return sorted(names)


def run_key(configuration: Sequence[tuple[str, str | None]], argv: Sequence[str]) -> str:
    """The digest naming this run's recorded answers (see the module docstring)."""
    material = {
        "format": FORMAT,
        "python": [sys.version, sys.prefix, sys.executable],
        "distributions": _distributions(sys.path),
        "code": _code_stamps(_SOURCE),
        "configuration": list(configuration),
        "argv": list(argv),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
