"""The agent-provider contract: every peer in ``AGENT_PEERS`` must pass every test here."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from contract_tests.agent_peers import Peer, fake_peer, process_alive, real_peer
from maple_core.agent_ports import AgentSession
from maple_core.agents import AgentState

AGENT_PEERS = [
    pytest.param(lambda tmp, request: fake_peer("codex", tmp), id="codex-fake"),
    pytest.param(lambda tmp, request: fake_peer("claude", tmp), id="claude-fake"),
    pytest.param(lambda tmp, request: real_peer("codex", tmp, request), id="codex-real"),
    pytest.param(lambda tmp, request: real_peer("claude", tmp, request), id="claude-real"),
]
"""Every provider against every peer. A new peer is one new entry here."""

TURN_S = 60.0


@pytest.fixture(params=AGENT_PEERS)
def peer(request: pytest.FixtureRequest, tmp_path: Path) -> Peer:
    made: Peer = request.param(tmp_path, request)
    return made


@pytest.fixture
def sessions() -> Iterator[list[AgentSession]]:
    started: list[AgentSession] = []
    yield started
    for session in started:
        session.close()


def start(peer: Peer, sessions: list[AgentSession], briefing: str = "Do the task.") -> AgentSession:
    session = peer.provider.start(
        f"{peer.provider.name}-{len(sessions) + 1}", briefing, str(peer.workspace)
    )
    sessions.append(session)
    return session


class TestAgentProviderContract:
    def test_a_reply_ends_the_turn_idle_with_the_last_message(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install([[{"say": "Hello from the agent."}]])
        run = start(peer, sessions).wait(TURN_S)
        assert run.state is AgentState.IDLE, run
        assert run.last_message == "Hello from the agent."
        assert run.thread_id
        assert run.turns == 1

    def test_commands_and_file_changes_are_approved_and_reported(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install(
            [
                [
                    {"run": "echo ran > ran.txt"},
                    {"write": "notes.txt", "text": "written by the agent\n"},
                    {"say": "Both done."},
                ]
            ]
        )
        run = start(peer, sessions).wait(TURN_S)
        assert run.state is AgentState.IDLE, run
        assert any("echo ran > ran.txt" in c.command for c in run.commands), run.commands
        assert (peer.workspace / "ran.txt").read_text().strip() == "ran"
        assert (peer.workspace / "notes.txt").read_text() == "written by the agent\n"
        assert str(peer.workspace / "notes.txt") in run.files_changed
        assert run.last_message == "Both done."

    def test_more_instructions_continue_the_same_thread(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install([[{"say": "first"}], [{"say": "second"}]])
        session = start(peer, sessions)
        first = session.wait(TURN_S)
        session.send("Now the second part.")
        second = session.wait(TURN_S)
        assert (second.state, second.last_message, second.turns) == (AgentState.IDLE, "second", 2)
        assert second.thread_id == first.thread_id

    def test_cancel_kills_every_process_and_send_resumes_the_thread(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install([[{"sleep": 120}], [{"say": "resumed"}]])
        session = start(peer, sessions)
        deadline = time.monotonic() + 20
        while not peer.sleepers() and time.monotonic() < deadline:
            time.sleep(0.05)
        [sleeper] = peer.sleepers()
        assert process_alive(sleeper)
        thread = session.snapshot().thread_id
        cancelled = session.cancel()
        assert cancelled.state is AgentState.CANCELLED
        deadline = time.monotonic() + 5
        while process_alive(sleeper) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not process_alive(sleeper)  # the command the agent started, not only the agent
        session.send("Carry on.")
        resumed = session.wait(TURN_S)
        assert (resumed.state, resumed.last_message) == (AgentState.IDLE, "resumed")
        assert resumed.thread_id == thread

    def test_a_question_waits_for_the_answer_sent_back(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install([[{"ask": "Which colour?", "options": ["red", "blue"]}]])
        session = start(peer, sessions)
        asked = session.wait(TURN_S)
        assert asked.state is AgentState.WAITING, asked
        [question] = asked.questions
        assert question.question == "Which colour?"
        assert question.options == ("red", "blue")
        session.send("blue")
        answered = session.wait(TURN_S)
        assert answered.state is AgentState.IDLE
        assert "blue" in answered.last_message

    def test_a_failed_turn_is_failed_without_the_childs_stderr(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install([[{"fail": "the model exploded"}]])
        run = start(peer, sessions).wait(TURN_S)
        assert run.state is AgentState.FAILED
        assert run.error
        assert "secret stderr" not in run.error

    def test_two_agents_keep_their_own_threads(
        self, peer: Peer, sessions: list[AgentSession]
    ) -> None:
        peer.install([[{"say": "one"}], [{"say": "two"}]])
        a, b = start(peer, sessions), start(peer, sessions)
        first_a, first_b = a.wait(TURN_S), b.wait(TURN_S)
        assert first_a.thread_id != first_b.thread_id
        a.send("again")
        again = a.wait(TURN_S)
        assert (again.last_message, again.turns) == ("two", 2)
        assert b.snapshot().turns == 1

    def test_detection_reports_the_installation(self, peer: Peer) -> None:
        info = peer.provider.detect()
        assert info.installed
        assert info.version
        assert info.guidance
