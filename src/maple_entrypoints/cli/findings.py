"""What ``maple doctor`` reports: each check, and where a client's half of the set-up is written."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Finding",
    "Registered",
]


@dataclass(frozen=True)
class Finding:
    """One check: ``ok`` True, False (broken) or None (worth knowing, not broken)."""

    check: str
    ok: bool | None
    detail: str
    fix: str = ""


@dataclass(frozen=True)
class Registered:
    """One half of a client's set-up: the server or the Stop hook, and where it is written."""

    what: str
    file: Path
    command: str | None
    shell: bool
