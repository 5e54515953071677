"""A client's configuration files: read as JSON or TOML, merged, and the change to write.

A file is merged, never replaced: every other key stays (a TOML file through
:mod:`~maple_entrypoints.cli.toml_merge`, keeping its comments and layout), and a file that
cannot be read is refused rather than overwritten.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Change",
    "UnreadableFileError",
    "json_change",
    "read_json",
    "read_toml",
    "section",
]


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


def json_change(path: Path, merge: Callable[[dict[str, Any]], None]) -> Change:
    """The change ``merge`` makes to the JSON object in ``path`` (or to ``{}`` when absent)."""
    before, data = read_json(path)
    original = json.loads(json.dumps(data))
    merge(data)
    after = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return Change(path, before, after, same=before is not None and original == data)


def section(data: dict[str, Any], key: str, kind: type) -> Any:
    """``data[key]``, made an empty ``kind`` first when it is missing or of another type."""
    value = data.get(key)
    if not isinstance(value, kind):
        value = kind()
        data[key] = value
    return value
