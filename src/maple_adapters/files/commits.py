"""The checkout's commits, asked of the real ``git``: does HEAD reach a resolution's commit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from maple_adapters.files.git import find_checkout
from maple_core.gate_ports import CommitCheck

__all__ = ["GitCommits"]

# Only hex reaches git: a claimed sha is never read as an option, a range or a revision path.
_HEX = re.compile(r"[0-9a-fA-F]{4,64}")
_TIMEOUT_S = 10.0


class GitCommits:
    """The commits of the git checkout at ``cwd`` (:class:`~maple_core.gate_ports.Commits`).

    Outside a checkout, or where no ``git`` binary is installed, nothing can be checked and
    every answer is :attr:`CommitCheck.NO_CHECKOUT`.
    """

    def __init__(self, cwd: str | os.PathLike[str]) -> None:
        self._cwd = os.fspath(cwd)

    def _git(self, *args: str) -> subprocess.CompletedProcess[str] | None:
        binary = shutil.which("git")
        if binary is None or find_checkout(self._cwd).git_dir is None:
            return None
        try:
            return subprocess.run(
                [binary, *args],
                cwd=self._cwd,
                capture_output=True,
                text=True,
                timeout=_TIMEOUT_S,
                check=False,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None

    def head(self) -> str | None:
        """HEAD's full sha, or ``None`` outside a checkout or before the first commit."""
        done = self._git("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
        return done.stdout.strip() or None if done is not None and done.returncode == 0 else None

    def check(self, sha: str) -> tuple[CommitCheck, str | None]:
        """Whether ``sha`` (full or abbreviated hex) is a commit HEAD reaches, and its full sha."""
        if self._git("rev-parse", "--git-dir") is None:
            return CommitCheck.NO_CHECKOUT, None
        if not _HEX.fullmatch(sha):
            return CommitCheck.UNKNOWN, None
        named = self._git("rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}")
        if named is None or named.returncode != 0 or not named.stdout.strip():
            return CommitCheck.UNKNOWN, None
        full = named.stdout.strip()
        reached = self._git("merge-base", "--is-ancestor", full, "HEAD")
        if reached is not None and reached.returncode == 0:
            return CommitCheck.REACHABLE, full
        return CommitCheck.UNREACHABLE, full
