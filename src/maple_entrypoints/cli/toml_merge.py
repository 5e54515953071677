"""Merging tables into a TOML file (Codex's ``config.toml``), keeping its comments and layout.

An existing table keeps its other keys; a key in the way that is not a table is refused rather
than replaced, and so is a result that would read back as anything but the merge.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
import tomlkit.exceptions

from maple_entrypoints.cli.client_files import Change, UnreadableFileError, read_toml

__all__ = ["TomlTable", "toml_change", "toml_string"]


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
