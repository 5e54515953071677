"""Bench row: a cold ``maple-stop-hook`` on a repository with 50 open comments.

Two anchors, timed in the same run and interleaved with the hook: ``node -e 0`` (the runtime
Maple's own hook needs; budget 0.5×) and ``python -c pass`` on the same interpreter (2.5×).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.system import SystemClock
from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from tests.support import HOOK

RUNS = 41
NODE = shutil.which("node") or "/usr/bin/node"
NODE_BUDGET = 0.5
PYTHON_BUDGET = 2.5


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
        hook, bare, node = [], [], []
        for _ in range(RUNS):  # interleaved, so all three see the same machine
            hook.append(_wall([str(HOOK)], payload, repo))
            bare.append(_wall([sys.executable, "-c", "pass"], b"", repo))
            node.append(_wall([NODE, "-e", "0"], b"", repo))
    median = statistics.median(hook)
    python, javascript = statistics.median(bare), statistics.median(node)
    to_python, to_node = median / python, median / javascript
    return (
        "maple-stop-hook, cold, 50 open comments (median)",
        f"{median * 1000:.1f} ms",
        f"python -c pass {python * 1000:.1f} ms (the ratio); "
        f"node -e 0 {javascript * 1000:.1f} ms ({to_node:.2f}×)",
        to_python,
        f"≤ {PYTHON_BUDGET}× python and ≤ {NODE_BUDGET}× node",
        to_python <= PYTHON_BUDGET and to_node <= NODE_BUDGET,
    )


TRICKS = {
    "the hook's imports": "",
    "+ dataclasses (instead of Frozen)": "import dataclasses",
    "+ json (instead of quickjson)": "import json",
    "+ hashlib (instead of _sha256)": "import hashlib",
    "+ typing": "import typing",
}
EAGER_FACADE = "import maple"


def hook_tricks() -> dict[str, str]:
    """What each start-up trick of the hook saves, as ratios to ``python -c pass``.

    Each figure is a cold interpreter importing the hook's modules plus what the trick avoids;
    the last is the library's facade, which imports every public name at once: what the hook
    would cost if its packages' ``__init__`` modules imported their names.
    """
    base = "import maple_entrypoints.stop_hook"
    commands = {name: f"{base}; {extra}" for name, extra in TRICKS.items()}
    commands["the facade, maple (instead of packages that import nothing)"] = EAGER_FACADE
    commands["python -c pass"] = "pass"
    samples: dict[str, list[float]] = {name: [] for name in commands}
    here = Path.cwd()
    for _ in range(RUNS):  # interleaved, so all see the same machine
        for name, code in commands.items():
            samples[name].append(_wall([sys.executable, "-c", code], b"", here))
    bare = statistics.median(samples["python -c pass"])
    return {name: f"{statistics.median(s) / bare:.2f}×" for name, s in samples.items()}
