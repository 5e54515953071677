"""Bench row: a cold ``maple-stop-hook`` on a repository with 50 open comments."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from contract_tests.support import make_repo
from maple_adapters.files import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import Anchor, NewComment

HOOK = Path(sys.executable).with_name("maple-stop-hook")
RUNS = 41


def _wall(command: list[str], stdin: bytes, cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=stdin, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - started


def hook_row() -> tuple[str, str, str, float, str, bool]:
    with tempfile.TemporaryDirectory(prefix="maple-hook-") as tmp:
        repo = make_repo(Path(tmp) / "repo", "feat/hook")
        store = FileCommentStore(SystemClock(), repo)
        store.append_many(
            [
                NewComment(
                    branch="feat/hook",
                    body=f"Comment {i}: the card's padding is off at 375px.",
                    anchor=Anchor(source=f"src/Card.tsx:{i}:3", component="Card"),
                )
                for i in range(50)
            ]
        )
        payload = json.dumps(
            {
                "session_id": "bench-session",
                "cwd": str(repo),
                "hook_event_name": "Stop",
                "stop_hook_active": False,
            }
        ).encode()
        check = subprocess.run([str(HOOK)], input=payload, capture_output=True, check=True)
        assert json.loads(check.stdout)["decision"] == "block"
        hook, bare = [], []
        for _ in range(RUNS):  # interleaved, so both see the same machine
            hook.append(_wall([str(HOOK)], payload, repo))
            bare.append(_wall([sys.executable, "-c", "pass"], b"", repo))
    median, anchor = statistics.median(hook), statistics.median(bare)
    ratio = median / anchor
    return (
        "maple-stop-hook, cold, 50 open comments (median)",
        f"{median * 1000:.1f} ms",
        f"python -c pass, same interpreter: {anchor * 1000:.1f} ms",
        ratio,
        "≤ 2.0×",
        ratio <= 2.0,
    )
