"""A client's configuration files: read as JSON or TOML, merged, and the change to write.

A file is merged, never replaced: every other key stays, a TOML file keeps its comments and
layout, and a file that cannot be read is refused rather than overwritten.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

__all__ = [
    "Change",
    "TomlTable",
    "UnreadableFileError",
    "json_change",
    "read_json",
    "read_toml",
    "section",
    "toml_change",
    "toml_string",
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


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string."""
    text = json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise UnreadableFileError(f"{value!r} is not valid UTF-8; maple cannot write it as TOML.")
    return text


@dataclass(frozen=True)
class TomlTable:
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


def _merged(text: str, tables: list[TomlTable], file: Path) -> str:
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


def _apply(data: dict[str, Any], table: TomlTable) -> None:
    node = data
    for key in table.path:
        node = node.setdefault(key, {})
    node.update(table.values)
    for key, value in table.defaults.items():
        node.setdefault(key, value)


def toml_change(path: Path, tables: list[TomlTable], notes: tuple[str, ...] = ()) -> Change:
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
