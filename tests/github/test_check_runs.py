"""What the check run looks like on GitHub, and the App rule (behaviour §5.3)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contract_tests.github_peers import api_transport
from maple_adapters.github.gate import GitHubCheckRunPublisher
from maple_core.comments import Comment
from maple_core.gate import GatePolicy, GateReport, decide_gate
from maple_core.statuses import CommentStatus
from tests.github.fake_github import FakeGitHub, Served, serve

SHA = "9ab1c2d" * 5 + "abcde"
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    fake = FakeGitHub(tokens={"ghp_gate_app": 4242, "ghp_actions": 15368})
    fake.open_pull("feat/gate", head_sha=SHA)
    running = serve(fake, tmp_path)
    yield running
    running.stop()


def publish(
    served: Served,
    status: CommentStatus,
    token: str = "ghp_gate_app",
    app_id: int | None = 4242,
    url: str | None = None,
) -> None:
    gate = GitHubCheckRunPublisher(
        api_transport(served, token), "acme", "web", now=lambda: NOW, app_id=app_id
    )
    verdict = decide_gate(
        [Comment(id="x", branch="b", body="fix", status=status)], GatePolicy(commit=SHA)
    )
    gate.publish(GateReport("feat/gate", SHA, verdict, url))


def test_blocked_is_in_progress_and_a_resolve_completes_the_same_run(served: Served) -> None:
    publish(served, CommentStatus.OPEN, url="https://preview.example/review")
    [run] = served.fake.repo().check_runs
    assert run["name"] == "maple/visual-review"
    assert run["status"] == "in_progress"
    assert json.loads(run["external_id"]) == {"r": "comments-open", "o": 1, "t": 1}
    assert run["external_id"] == '{"r":"comments-open","o":1,"t":1}'
    assert run["details_url"] == "https://preview.example/review"
    assert run["output"]["title"] == "1 of 1 comment still open"
    assert run["started_at"] == "2026-01-01T12:00:00.000Z"
    publish(served, CommentStatus.RESOLVED)
    [run] = served.fake.repo().check_runs
    assert (run["status"], run["conclusion"]) == ("completed", "success")
    assert run["completed_at"] == "2026-01-01T12:00:00.000Z"


def test_a_completed_run_is_never_reopened(served: Served) -> None:
    publish(served, CommentStatus.RESOLVED)
    publish(served, CommentStatus.OPEN)
    runs = served.fake.repo().check_runs
    assert [r["status"] for r in runs] == ["completed", "in_progress"]


def test_another_apps_run_is_superseded_not_edited(served: Served) -> None:
    publish(served, CommentStatus.OPEN, token="ghp_actions", app_id=None)
    publish(served, CommentStatus.RESOLVED, token="ghp_gate_app", app_id=4242)
    runs = served.fake.repo().check_runs
    assert [(r["app"]["id"], r["status"]) for r in runs] == [
        (15368, "in_progress"),
        (4242, "completed"),
    ]
    assert all(status != 403 for _, _, status in served.fake.requests)
