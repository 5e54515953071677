"""Concurrent writers in separate OS processes all land, and a killed writer loses nothing."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contract_tests.support import make_repo

WORKER = Path(__file__).with_name("append_worker.py")


def ledger(repo: Path) -> dict[str, object]:
    data = json.loads((repo / ".maple" / "feat-load" / "comments.json").read_text())
    assert isinstance(data, dict)
    return data


def test_eight_processes_times_250_appends_all_land(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "feat/load")
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(repo), "250", f"w{i}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    acknowledged: set[str] = set()
    for worker in workers:
        out, _ = worker.communicate(timeout=300)
        assert worker.returncode == 0
        acknowledged.update(out.split())
    comments = ledger(repo)["comments"]
    assert isinstance(comments, list)
    assert len(comments) == 2000
    assert {c["id"] for c in comments} == acknowledged
    assert len(acknowledged) == 2000


@pytest.mark.slow
def test_a_writer_killed_at_random_points_never_corrupts_or_loses_an_acknowledged_comment(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo", "feat/load")
    rng = random.Random(1234)
    acknowledged: set[str] = set()
    kills = 0
    for round_ in range(60):
        worker = subprocess.Popen(
            [sys.executable, str(WORKER), str(repo), "100000", f"k{round_}"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert worker.stdout is not None
        first = worker.stdout.readline()  # the writer is in its append loop now
        assert first, "the writer died before its first append"
        time.sleep(rng.uniform(0, 0.03))
        os.kill(worker.pid, signal.SIGKILL)
        out, _ = worker.communicate(timeout=30)
        assert worker.returncode == -signal.SIGKILL
        kills += 1
        acknowledged.update([first.strip(), *out.split()])
        stored = {c["id"] for c in ledger(repo)["comments"]}  # type: ignore[union-attr]
        missing = acknowledged - stored
        assert not missing, f"round {round_}: acknowledged comments lost: {sorted(missing)[:5]}"
    assert kills >= 50
