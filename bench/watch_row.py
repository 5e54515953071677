"""Bench row: a reviewer's comment to the agent's next model request, through ``maple watch``.

Another process appends a comment to the file store; ``maple watch --agent claude`` (the real
``claude`` binary against a scripted model on loopback) wakes, resumes the session and Claude
Code sends its next request to the model: the figure is the time from the append to the request
holding the comment (median). The anchor, in the same run, is the same append seen by a
``wait_for_comments`` already waiting in this process.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from contract_tests.agent_peers import real_peer
from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.waiting import wait_for_comments
from tests.mcp_support import OutputLines
from tests.support import MAPLE, clean_env

BRANCH = "feat/wake"
TRIALS = 5
BUDGET_S = 3.0
APPEND = """
import sys, time
from pathlib import Path
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
store = FileCommentStore(SystemClock(), Path(sys.argv[1]))
store.append(NewComment(branch=sys.argv[2], body=sys.argv[3]))
print(time.monotonic())
"""


def append_from_another_process(repo: Path, body: str) -> float:
    """Append one comment in a new process; the monotonic time its append finished."""
    done = subprocess.run(
        [sys.executable, "-c", APPEND, str(repo), BRANCH, body],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


class _Finalizers:
    """What ``real_peer`` needs of a pytest request: somewhere to put its clean-ups."""

    def __init__(self) -> None:
        self.done: list[Callable[[], object]] = []

    def addfinalizer(self, finalizer: Callable[[], object]) -> None:
        self.done.append(finalizer)

    def close(self) -> None:
        for finalizer in reversed(self.done):
            finalizer()


def _arrival(model: Any, mark: str, timeout: float = 60.0) -> float:
    """When the first request holding ``mark`` reached the model (monotonic)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for body, arrived in zip(list(model.requests), list(model.arrivals), strict=False):
            if mark in str(body):
                return float(arrived)
        time.sleep(0.005)
    raise SystemExit(f"the model never saw {mark}")


def watch_wakeups(base: Path) -> list[float]:
    finalizers = _Finalizers()
    try:
        peer = real_peer("claude", base, cast(pytest.FixtureRequest, finalizers))
        repo = make_repo(peer.workspace, BRANCH)
        provider: Any = peer.provider
        folder = base / "agent-bin"
        folder.mkdir()
        (folder / "claude").symlink_to(provider.binary)
        env = clean_env(**provider.env, MAPLE_STORE="file")
        env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
        process = subprocess.Popen(
            [str(MAPLE), "watch", "--agent", "claude"],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        lines = OutputLines(process.stdout)  # type: ignore[arg-type]
        delays: list[float] = []
        try:
            for trial in range(TRIALS + 1):  # the first starts the session: not counted
                mark = f"wake-{trial}-{uuid.uuid4().hex[:8]}"
                appended = append_from_another_process(repo, f"{mark}: the header wraps")
                arrived = _arrival(peer.extra["model"], mark)
                if "done" not in lines.next(60):
                    raise SystemExit("a watched turn failed")
                if trial:
                    delays.append(arrived - appended)
        finally:
            process.terminate()
            process.wait(timeout=30)
            lines.close()
        return delays
    finally:
        finalizers.close()


def waiting_wakeups(repo: Path) -> list[float]:
    """The anchor: a ``wait_for_comments`` already waiting here sees the same append."""
    store = FileCommentStore(SystemClock(), repo)
    cursor = wait_for_comments(store, BRANCH, None, 1, SystemClock()).cursor
    delays: list[float] = []
    for trial in range(TRIALS):
        appended: list[float] = []
        writer = threading.Timer(
            0.3,
            lambda into=appended, t=trial: into.append(
                append_from_another_process(repo, f"anchor-{t}")
            ),
        )
        writer.start()
        found = wait_for_comments(store, BRANCH, cursor, 20_000, SystemClock())
        woke = time.monotonic()
        writer.join()
        cursor = found.cursor
        delays.append(woke - appended[0])
    return delays


def watch_row() -> tuple[str, str, str, float, str, bool]:
    with tempfile.TemporaryDirectory(prefix="maple-watch-") as tmp:
        ours = watch_wakeups(Path(tmp) / "watch")
        anchor_delays = waiting_wakeups(make_repo(Path(tmp) / "anchor", BRANCH))
    median, anchor = statistics.median(ours), statistics.median(anchor_delays)
    return (
        "maple watch: reviewer append → claude's next model request with the comment (median)",
        f"{median * 1000:.0f} ms",
        f"a wait_for_comments already waiting, same append: {anchor * 1000:.1f} ms",
        median / anchor,
        f"≤ {BUDGET_S:g} s",
        median <= BUDGET_S,
    )


if __name__ == "__main__":
    print(watch_row())
