"""Helpers the contract suite and the tests share: a controllable clock and git repositories."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Maple Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Maple Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class FakeClock:
    """A clock the test moves by hand; ``now`` may be set behind a previous reading."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
        self._mono = 1000.0
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def sleep(self, seconds: float) -> None:
        """Sleep for real (other threads act meanwhile) and move the monotonic clock as far."""
        time.sleep(seconds)
        with self._lock:
            self._mono += seconds

    def set(self, instant: datetime) -> None:
        with self._lock:
            self._now = instant

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)
            self._mono += seconds


def git(cwd: Path, *args: str) -> str:
    """Run the real git binary in ``cwd`` and return its stdout."""
    env = {**os.environ, **GIT_ENV}
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(key, None)
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def make_repo(path: Path, branch: str = "main") -> Path:
    """A git repository at ``path`` with one commit, on ``branch``."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    (path / "README").write_text("hello\n")
    git(path, "add", "README")
    git(path, "commit", "-q", "-m", "first")
    return path
