"""maple's benchmarks: each row is a figure and its ratio to an anchor measured in the same run.

Run with ``make bench``. Exits non-zero when a row is outside its budget.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from contract_tests.support import make_repo  # noqa: E402
from maple_adapters.files.store import FileCommentStore  # noqa: E402
from maple_adapters.system import SystemClock  # noqa: E402
from maple_core.anchors import Anchor  # noqa: E402
from maple_core.comments import NewComment  # noqa: E402
from maple_core.listing import list_all  # noqa: E402
from maple_core.page_context import Context  # noqa: E402

WORKER = ROOT / "tests" / "append_worker.py"


@dataclass
class Row:
    name: str
    figure: str
    anchor: str
    ratio: float
    budget: str
    ok: bool


def median_seconds(action: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def comment(i: int) -> NewComment:
    return NewComment(
        branch="feat/bench",
        body=f"Comment {i}: the header wraps at 375px and the logo overlaps the menu.",
        anchor=Anchor(source="src/Header.tsx:12:5", component="Header", selector="header > nav"),
        context=Context(
            url="https://preview.example.com/dashboard",
            viewport_width=1440,
            viewport_height=900,
            device_pixel_ratio=2,
            color_scheme="light",
        ),
        created_at="2026-01-01T12:00:00.000Z",
    )


def bench_list(base: Path) -> Row:
    repo = make_repo(base / "list", "feat/bench")
    FileCommentStore(SystemClock(), repo).append_many([comment(i) for i in range(10_000)])
    path = repo / ".maple" / "feat-bench" / "comments.json"

    def load() -> object:
        return json.loads(path.read_bytes())

    def listing() -> object:
        comments = list_all(FileCommentStore(SystemClock(), repo), "feat/bench")
        assert len(comments) == 10_000
        return comments

    listing()
    anchor = median_seconds(load, 15)
    figure = median_seconds(listing, 15)
    ratio = figure / anchor
    return Row(
        "list 10,000 comments, file store (median)",
        f"{figure * 1000:.1f} ms",
        f"json.loads of the file: {anchor * 1000:.1f} ms",
        ratio,
        "≤ 3.0×",
        ratio <= 3.0,
    )


def run_writers(where: Path | str, processes: int, each: int) -> float:
    """Seconds from telling started writers to go until the last one finishes.

    ``where`` is a checkout (the file store) or a database URL (the sql store).
    """
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(where), str(each), f"w{i}", "--on-go"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    for worker in workers:
        assert worker.stdout is not None
        if worker.stdout.readline().strip() != "ready":
            raise SystemExit("a writer failed to start")
    start = time.perf_counter()
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    for worker in workers:
        worker.communicate()
        if worker.returncode != 0:
            raise SystemExit("a writer failed")
    return time.perf_counter() - start


def bench_appends(base: Path) -> Row:
    solo_repo = make_repo(base / "solo", "feat/load")
    solo = run_writers(solo_repo, 1, 2000)
    repo = make_repo(base / "eight", "feat/load")
    elapsed = run_writers(repo, 8, 250)
    data = json.loads((repo / ".maple" / "feat-load" / "comments.json").read_text())
    count = len(data["comments"])
    rate = count / elapsed
    solo_rate = 2000 / solo
    return Row(
        "8 processes × 250 appends, one branch",
        f"{count} comments, {rate:.0f} appends/s",
        f"1 process × 2,000 appends: {solo_rate:.0f} appends/s",
        rate / solo_rate,
        "2,000 comments, ≥ 500/s",
        count == 2000 and rate >= 500,
    )


def main() -> int:
    from bench.capture_row import capture_row
    from bench.claim_row import file_claim_row, github_claim_row
    from bench.classify_row import classify_rows
    from bench.github_row import github_requests_row, github_row
    from bench.hook_row import hook_row
    from bench.mcp_rows import startup_rows, wake_row
    from bench.poll_rows import reserve_row, shared_poll_row, takeover_row
    from bench.refind_row import refind_row
    from bench.review_row import review_requests_row
    from bench.route_row import route_row
    from bench.solo_row import solo_row
    from bench.sql_rows import sql_appends_row, sql_list_rows
    from bench.task_wake_row import task_wake_row
    from bench.watch_row import watch_row
    from bench.workers_rows import memory_row
    from bench.workers_rows import wake_row as workers_wake_row

    with tempfile.TemporaryDirectory(prefix="maple-bench-") as tmp:
        rows = [bench_list(Path(tmp)), bench_appends(Path(tmp))]
    rows += [Row(*hook_row()), Row(*wake_row()), *(Row(*r) for r in startup_rows())]
    rows += [Row(*github_row())]
    rows += [Row(*github_requests_row()), Row(*route_row()), Row(*solo_row())]
    rows += [Row(*capture_row()), Row(*refind_row()), Row(*task_wake_row()), Row(*watch_row())]
    rows += [Row(*review_requests_row()), Row(*shared_poll_row()), Row(*takeover_row())]
    rows += [Row(*reserve_row())]
    rows += [Row(*r) for r in sql_list_rows()] + [Row(*sql_appends_row())]
    rows += [Row(*workers_wake_row()), Row(*memory_row())]
    rows += [Row(*file_claim_row()), Row(*github_claim_row())]
    rows += [Row(*row) for row in classify_rows()]
    headers = ("benchmark", "figure", "anchor (same run)", "ratio", "budget", "")
    table = [
        (r.name, r.figure, r.anchor, f"{r.ratio:.3g}×", r.budget, "ok" if r.ok else "OVER BUDGET")
        for r in rows
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *table, strict=True)]
    for line in (headers, tuple("-" * w for w in widths), *table):
        print(" | ".join(str(x).ljust(w) for x, w in zip(line, widths, strict=True)).rstrip())
    return 0 if all(r.ok for r in rows) else 1


SINGLE_ROWS = {
    "hook": ("bench.hook_row", "hook_row"),
    "startup": ("bench.mcp_rows", "startup_rows"),
    "hook-tricks": ("bench.hook_row", "hook_tricks"),
    "github": ("bench.github_row", "github_row"),
    "github-requests": ("bench.github_row", "github_requests_row"),
    "route": ("bench.route_row", "route_row"),
    "solo": ("bench.solo_row", "solo_row"),
    "capture": ("bench.capture_row", "capture_row"),
    "refind": ("bench.refind_row", "refind_row"),
    "task-wake": ("bench.task_wake_row", "task_wake_row"),
    "watch": ("bench.watch_row", "watch_row"),
    "review-requests": ("bench.review_row", "review_requests_row"),
    "shared-poll": ("bench.poll_rows", "shared_poll_row"),
    "takeover": ("bench.poll_rows", "takeover_row"),
    "reserve": ("bench.poll_rows", "reserve_row"),
    "sql-list": ("bench.sql_rows", "sql_list_rows"),
    "sql-appends": ("bench.sql_rows", "sql_appends_row"),
    "workers-wake": ("bench.workers_rows", "wake_row"),
    "wait-memory": ("bench.workers_rows", "memory_row"),
    "claims-file": ("bench.claim_row", "file_claim_row"),
    "claims-github": ("bench.claim_row", "github_claim_row"),
    "classify": ("bench.classify_row", "classify_rows"),
}


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] in SINGLE_ROWS:
        import importlib

        module, name = SINGLE_ROWS[sys.argv[1]]
        print(getattr(importlib.import_module(module), name)())
        raise SystemExit(0)
    raise SystemExit(main())
