"""Where ``maple-mcp`` keeps the SDK's recorded handshake answers between runs, and when they hold.

One file per **run key** (:func:`~maple_entrypoints.mcp_run_key.run_key`) in
``<cache folder>/mcp-answers/`` (see :func:`~maple_entrypoints.settings.cache_folder`), so a
changed SDK, maple, or setting is a new key, whose first start records afresh. The folders are
made private to the user; a file that is not a regular file owned by the user, too large, or not
exactly the expected shape is ignored (and replaced on the next save). At most
:data:`MAX_FILES` run keys are kept, the least recently written going first.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from maple_entrypoints.mcp_replay import head_of, split_answer
from maple_entrypoints.mcp_run_key import FORMAT

__all__ = ["MAX_ANSWERS", "MAX_FILES", "RecordedAnswers"]

MAX_ANSWERS = 64
"""Recorded answers kept per run key (the oldest go first)."""
MAX_FILES = 16
"""Run keys kept in the folder."""
_MAX_FILE_BYTES = 8 * 1024 * 1024


def _private_folder(path: Path) -> bool:
    """Make ``path`` (and its parent) if missing; whether it is a folder only this user writes."""
    for folder in (path.parent, path):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700, parents=True)
        found = folder.lstat()
        if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid():
            return False
        if found.st_mode & 0o022:
            return False
    return True


def _valid(data: object) -> dict[str, str] | None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    answers = data.get("answers")
    if not isinstance(answers, dict) or len(answers) > MAX_ANSWERS:
        return None
    for key, tail in answers.items():
        if not isinstance(key, str) or not isinstance(tail, str):
            return None
        if "\n" in tail or "\r" in tail:  # the SDK escapes both: a line break would be a second
            return None  # message to the client
        start = head_of(tail) + "0"
        try:
            parts, answer = json.loads(key), json.loads(start + tail)
        except ValueError:
            return None
        if not (
            isinstance(parts, list) and len(parts) == 3 and all(isinstance(p, str) for p in parts)
        ):
            return None
        if split_answer(start + tail, start) is None or not isinstance(answer, dict):
            return None
    return answers


class RecordedAnswers:
    """The recorded answers of one run key, in ``folder``."""

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.path = folder / f"{key}.json"

    def load(self) -> dict[str, str]:
        """The answers recorded for this key; none when there is no usable file."""
        try:
            if not _private_folder(self.folder):
                return {}
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return {}
        with os.fdopen(fd, "rb") as file:
            found = os.fstat(fd)
            if not stat.S_ISREG(found.st_mode) or found.st_uid != os.getuid():
                return {}
            if found.st_size > _MAX_FILE_BYTES:
                return {}
            try:
                return _valid(json.loads(file.read())) or {}
            except ValueError:
                return {}

    def save(self, answers: dict[str, str]) -> None:
        """Keep ``answers`` (the newest :data:`MAX_ANSWERS`) for the next run, if it can."""
        kept = dict(list(answers.items())[-MAX_ANSWERS:])
        data = json.dumps({"format": FORMAT, "answers": kept}, ensure_ascii=False).encode()
        if len(data) > _MAX_FILE_BYTES:
            return
        temporary = self.folder / f".{self.path.stem}.{os.getpid()}.tmp"
        try:
            if not _private_folder(self.folder):
                return
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
            with os.fdopen(os.open(temporary, flags, 0o600), "wb") as file:
                file.write(data)
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()
            return
        self._prune()

    def drop(self) -> None:
        """Forget this key's answers."""
        with contextlib.suppress(OSError):
            self.path.unlink()

    def _prune(self) -> None:
        with contextlib.suppress(OSError):
            files = sorted(self.folder.glob("*.json"), key=lambda p: p.lstat().st_mtime_ns)
            for old in files[:-MAX_FILES]:
                old.unlink()
