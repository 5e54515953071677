"""One poll per pull request per machine: GitHub's answers and rate budget, shared on disk.

Every maple process a person runs (MCP servers in several worktrees, Stop hooks, ``maple
watch``) that watches a repository with the same token shares one folder under the user's cache
directory, named by a SHA-256 of the token, the API root and the repository (the token itself is
never written). In it:

- each GET's last answer, its ``ETag`` and when it was last checked. A GET answered less than
  ``max_age`` seconds ago (the poll interval) is served from the folder with no request, so
  however many processes and waiters watch, one set of conditional requests goes out per
  interval; whoever asks first after that refreshes it, under a lock, and a ``304`` (free against
  the rate limit) only moves the check time. No process owns the polling: if the one refreshing
  is killed, its lock goes with it and the next to ask takes over, within one interval;
- the rate budget: the latest ``X-RateLimit-*`` reading per resource (``core``, ``graphql``) and
  any backoff GitHub asked for (``Retry-After``, a secondary limit, a spent budget). While the
  budget says pause (:func:`~maple_core.rate_budget.poll_verdict`), a GET that has an answer
  keeps it rather than asking again; acting for the agent goes ahead;
- small JSON states other parts keep per pull request (first-sight stamps, GraphQL memos).

A write (any method but GET, or a GraphQL mutation) marks every answer stale, so the writer and
every other process read it back fresh. Files are created ``0600`` in a ``0700`` folder, replaced
atomically and never through a symbolic link.

This module is the folder (:class:`SharedCache`); the transport that answers from it is
``shared_transport.py``, and the recorder that notes the rate budget in it
``budget_recorder.py``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.github.transport import GitHubResponse
from maple_core.json_types import JsonObject
from maple_core.rate_budget import (
    DEFAULT_RESERVE,
    Backoff,
    Budget,
    PollVerdict,
    RateReading,
    poll_verdict,
)

__all__ = ["KEPT_HEADERS", "KeptAnswer", "SharedCache", "cache_folder"]

_LOCK_WAIT_S = 15.0  # longer than one request with its retries; then go ahead unlocked
_PRUNE_AFTER_S = 86_400.0
KEPT_HEADERS = ("etag", "link", "last-modified")
"""The headers kept with an answer (a ``304`` that changes one of them is kept again)."""


def cache_folder(root: Path, identity: Sequence[str]) -> Path:
    """The folder for ``identity`` (token, API root, repository) under ``root``, by hash only."""
    digest = hashlib.sha256(b"maple-github-cache\0" + "\0".join(identity).encode()).hexdigest()
    return root / "github" / digest[:32]


@dataclass(frozen=True, slots=True)
class KeptAnswer:
    """A kept GET answer: its ``ETag``, when it was last checked, and the response."""

    etag: str
    checked: float
    response: GitHubResponse


class SharedCache:
    """The folder every process watching with one token shares (see the module docstring).

    Args:
        folder: the folder (see :func:`cache_folder`); created ``0700`` if missing.
        reserve: the share of the rate limit kept for the person (``MAPLE_GITHUB_RESERVE``).
        now: epoch seconds (tests give their own).

    Raises:
        OSError: the folder cannot be made or is not a private folder of this user.
    """

    def __init__(
        self,
        folder: Path,
        *,
        reserve: float = DEFAULT_RESERVE,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.folder = folder
        self.reserve = reserve
        self._now = now
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        if not os.path.isdir(folder) or os.path.islink(folder) or info.st_uid != os.getuid():
            raise OSError(errno.EPERM, "not a private folder of this user", str(folder))
        os.chmod(folder, 0o700)
        self._memo: dict[str, tuple[tuple[int, int], JsonObject]] = {}
        self._budget_seen: tuple[str, int, float] | None = None
        self._prune()

    # -- files ---------------------------------------------------------------------------

    def _path(self, name: str) -> Path:
        return self.folder / name

    def read_json(self, name: str) -> JsonObject | None:
        """A kept JSON object, or ``None`` when absent or unreadable (parsed once per version)."""
        path = self._path(name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as file:
            info = os.fstat(file.fileno())
            version = (info.st_ino, info.st_mtime_ns)
            memo = self._memo.get(name)
            if memo is not None and memo[0] == version:
                return memo[1]
            try:
                value = json.loads(file.read())
            except ValueError:
                return None
        if not isinstance(value, dict):
            return None
        self._memo[name] = (version, value)
        return value

    def write_json(self, name: str, value: JsonObject) -> None:
        """Replace a kept JSON object atomically (a temporary file, ``fsync``-free, renamed)."""
        path = self._path(name)
        temp = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(json.dumps(value, separators=(",", ":")).encode())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    @contextlib.contextmanager
    def locked(self, name: str) -> Iterator[None]:
        """Hold ``name``'s lock (``flock``) across processes; released if the holder dies.

        Waits at most 15 s, then goes ahead without it: a hung holder never stops the others.
        """
        fd = os.open(self._path(f"{name}.lock"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            deadline = time.monotonic() + _LOCK_WAIT_S
            held = False
            while not held:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = True
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        break
                    time.sleep(0.01)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    @contextlib.contextmanager
    def state(self, name: str) -> Iterator[JsonObject]:
        """Read, change and write back a kept JSON object under its lock."""
        with self.locked(name):
            value = dict(self.read_json(name) or {})
            yield value
            self.write_json(name, value)

    def _prune(self) -> None:
        """Forget answers nobody checked for a day (a folder per token stays small)."""
        cutoff = self._now() - _PRUNE_AFTER_S
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.folder):
                name = entry.name
                if name.startswith("a-") and name.endswith(".meta"):
                    if entry.stat(follow_symlinks=False).st_mtime >= cutoff:
                        continue
                    stem = name.removesuffix(".meta")
                    for suffix in (".meta", ".json", ".lock"):
                        with contextlib.suppress(OSError):
                            os.unlink(self._path(stem + suffix))

    # -- answers -------------------------------------------------------------------------

    def answer(self, key: str) -> KeptAnswer | None:
        """The kept answer for ``key``, when its check time and its body agree."""
        meta = self.read_json(f"a-{key}.meta")
        body = self.read_json(f"a-{key}.json")
        if meta is None or body is None or meta.get("etag") != body.get("etag"):
            return None
        etag, checked = meta.get("etag"), meta.get("checked")
        headers = body.get("headers")
        if not isinstance(etag, str) or not isinstance(checked, (int, float)):
            return None
        kept = {str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {}
        return KeptAnswer(etag, float(checked), GitHubResponse(200, kept, body.get("data")))

    def keep(self, key: str, response: GitHubResponse, checked: float) -> None:
        """Keep a ``200`` answer (its ``ETag``, a few headers, the body), checked at ``checked``."""
        etag = response.headers.get("etag", "")
        headers: JsonObject = {
            k: response.headers[k] for k in KEPT_HEADERS if k in response.headers
        }
        self.write_json(f"a-{key}.json", {"etag": etag, "headers": headers, "data": response.data})
        self.checked(key, etag, checked)

    def checked(self, key: str, etag: str, at: float) -> None:
        """GitHub said the answer for ``key`` is unchanged (a ``304``) at ``at``.

        The meta names the process that asked (``by``), so ``maple doctor`` and the bench can
        tell who polled last.
        """
        self.write_json(f"a-{key}.meta", {"etag": etag, "checked": at, "by": os.getpid()})

    def invalidate(self) -> None:
        """Mark every kept answer stale: something was written."""
        self.write_json("invalidated", {"at": self._now()})

    def invalidated_at(self) -> float:
        """When the last write marked the answers stale (0 if never)."""
        kept = self.read_json("invalidated")
        at = kept.get("at") if kept else None
        return float(at) if isinstance(at, (int, float)) else 0.0

    # -- the budget ----------------------------------------------------------------------

    def budget(self) -> Budget:
        """What the processes sharing this folder know of the token's rate limits."""
        return Budget.from_json(self.read_json("budget"))

    def note_reading(self, reading: RateReading) -> None:
        """Keep a rate-limit reading, unless it says nothing new."""
        said = (reading.resource, reading.remaining, reading.reset)
        if self._budget_seen == said:
            return
        self._budget_seen = said
        with self.state("budget") as kept:
            kept.update(Budget.from_json(kept).with_reading(reading).to_json())

    def note_backoff(self, backoff: Backoff) -> None:
        """Keep GitHub's request to wait, for every process sharing the folder."""
        with self.state("budget") as kept:
            kept.update(Budget.from_json(kept).with_backoff(backoff).to_json())

    def verdict(self, resource: str = "core") -> PollVerdict:
        """Whether polling may spend ``resource`` now (see the module docstring)."""
        return poll_verdict(self.budget(), self.reserve, self._now(), resource)
