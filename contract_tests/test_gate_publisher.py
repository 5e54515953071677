"""The gate-publisher contract (behaviour §10.14) over the memory gate and GitHub check runs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contract_tests.github_peers import api_transport, cli_transport
from maple_adapters.github.gate import GitHubCheckRunPublisher
from maple_adapters.memory_gate import InMemoryGatePublisher
from maple_core.comments import Comment
from maple_core.gate import GateConclusion, GatePolicy, GateReason, GateReport, decide_gate
from maple_core.gate_ports import GatePublisher
from maple_core.statuses import CommentStatus
from tests.github.fake_github import Served

SHA = "9ab1c2d" * 5 + "abcde"
OTHER_SHA = "1234567" * 5 + "89abc"
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
GateFactory = Callable[[pytest.FixtureRequest, Path], GatePublisher]


def _memory(request: pytest.FixtureRequest, tmp: Path) -> GatePublisher:
    return InMemoryGatePublisher()


def _github(request: pytest.FixtureRequest, tmp: Path, transport_name: str) -> GatePublisher:
    served: Served = request.getfixturevalue("github_server")
    served.fake.reset()
    served.fake.open_pull("feat/gate", head_sha=SHA)
    transport = (
        api_transport(served) if transport_name == "api" else cli_transport(served, tmp / "gh")
    )
    return GitHubCheckRunPublisher(transport, "acme", "web", now=lambda: NOW)


GATE_ADAPTERS = [
    pytest.param(_memory, id="memory"),
    pytest.param(lambda r, t: _github(r, t, "api"), id="github-api"),
    pytest.param(lambda r, t: _github(r, t, "cli"), id="github-cli"),
]


@pytest.fixture(params=GATE_ADAPTERS)
def gate(request: pytest.FixtureRequest, tmp_path: Path) -> GatePublisher:
    factory: GateFactory = request.param
    return factory(request, tmp_path)


def report(comments: list[Comment], sha: str = SHA, **policy: object) -> GateReport:
    verdict = decide_gate(comments, GatePolicy(commit=sha, **policy))  # type: ignore[arg-type]
    return GateReport(branch="feat/gate", sha=sha, verdict=verdict, review_url=None)


def c(status: CommentStatus) -> Comment:
    return Comment(id="x", branch="feat/gate", body="b", status=status)


class TestGatePublisherContract:
    def test_publishing_succeeds(self, gate: GatePublisher) -> None:
        gate.publish(report([c(CommentStatus.OPEN)]))

    def test_blocked_then_clear_on_one_commit_reads_clear(self, gate: GatePublisher) -> None:
        gate.publish(report([c(CommentStatus.OPEN)]))
        blocked = gate.read("feat/gate", SHA)
        assert blocked is not None
        assert (blocked.conclusion, blocked.reason, blocked.open) == (
            GateConclusion.BLOCKED,
            GateReason.COMMENTS_OPEN,
            1,
        )
        gate.publish(report([c(CommentStatus.RESOLVED)]))
        clear = gate.read("feat/gate", SHA)
        assert clear is not None
        assert (clear.conclusion, clear.reason, clear.total) == (
            GateConclusion.CLEAR,
            GateReason.ALL_RESOLVED,
            1,
        )
        assert clear.title == "Every comment is resolved"

    def test_a_blocked_verdict_with_a_review_url_reads_back(self, gate: GatePublisher) -> None:
        blocked = report([c(CommentStatus.OPEN), c(CommentStatus.OPEN), c(CommentStatus.RESOLVED)])
        gate.publish(GateReport("feat/gate", SHA, blocked.verdict, "https://preview.example/"))
        read = gate.read("feat/gate", SHA)
        assert read is not None
        assert (read.conclusion, read.open, read.total) == (GateConclusion.BLOCKED, 2, 3)
        assert read.summary == blocked.verdict.summary

    def test_no_review_reads_neutral(self, gate: GatePublisher) -> None:
        gate.publish(report([], has_review=False))
        read = gate.read("feat/gate", SHA)
        assert read is not None
        assert (read.conclusion, read.reason) == (GateConclusion.NEUTRAL, GateReason.NO_REVIEW)

    def test_an_unknown_commit_has_no_verdict(self, gate: GatePublisher) -> None:
        assert gate.read("feat/gate", OTHER_SHA) is None

    def test_two_commits_keep_separate_verdicts(self, gate: GatePublisher) -> None:
        gate.publish(report([c(CommentStatus.OPEN)]))
        gate.publish(report([], sha=OTHER_SHA))
        first, second = gate.read("feat/gate", SHA), gate.read("feat/gate", OTHER_SHA)
        assert first is not None
        assert second is not None
        assert (first.conclusion, second.conclusion) == (
            GateConclusion.BLOCKED,
            GateConclusion.CLEAR,
        )
