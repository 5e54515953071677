"""Concurrent writers in separate OS processes all land, and a killed writer loses nothing."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from contract_tests.support import make_repo
from tests.append_worker import append_concurrently, append_until_killed


def ledger(repo: Path) -> dict[str, object]:
    data = json.loads((repo / ".maple" / "feat-load" / "comments.json").read_text())
    assert isinstance(data, dict)
    return data


def test_eight_processes_times_250_appends_all_land(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "feat/load")
    acknowledged = append_concurrently(str(repo))
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
        acknowledged |= append_until_killed(str(repo), f"k{round_}", rng)
        kills += 1
        stored = {c["id"] for c in ledger(repo)["comments"]}  # type: ignore[union-attr]
        missing = acknowledged - stored
        assert not missing, f"round {round_}: acknowledged comments lost: {sorted(missing)[:5]}"
    assert kills >= 50
