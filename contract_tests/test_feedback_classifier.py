"""The feedback-classifier contract: every classifier answers in the schema or says why not.

Runs over the reference classifier and the real ``claude`` and ``codex`` binaries against a
scripted loopback model (``classifier_peers``): each outcome comes back as answered, words
outside the schema and outcomes outside the set are no answer (and the service turns them into
``wait`` after three tries), a harness that hangs is stopped at its bound with nothing left
running, the model reads the prompt maple wrote and is offered nothing it could run, and
sign-in is told apart from its absence.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from contract_tests.agent_peers import descendants
from contract_tests.classifier_peers import (
    ClassifierPeer,
    Stall,
    Text,
    answer_of,
    memory_peer,
    real_classifier_peer,
)
from contract_tests.support import FakeClock
from maple_adapters.memory import InMemoryCommentStore
from maple_core.authors import server_author
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.classifying import classify_reply
from maple_core.comments import NewComment
from maple_core.conversation import ReplyKind, Role, thread_of
from maple_core.feedback import OUTCOME_SCHEMA, Answer, HarnessAnswer, Outcome, read_answer
from maple_core.inert_text import DATA_CLOSE
from maple_core.json_types import JsonObject
from maple_core.resolving import converse, resolve_comment
from maple_core.thread_events import ThreadEvent

PeerFactory = Callable[[Path, pytest.FixtureRequest], ClassifierPeer]

CLASSIFIER_ADAPTERS = [
    pytest.param(memory_peer, id="memory"),
    pytest.param(
        lambda tmp, request: real_classifier_peer("claude", tmp, request), id="claude-real"
    ),
    pytest.param(lambda tmp, request: real_classifier_peer("codex", tmp, request), id="codex-real"),
]
"""Every feedback-classifier adapter. A new adapter is one new entry here."""

BOUND_S = 60.0  # a real harness's start under a loaded machine fits well inside this


@pytest.fixture(params=CLASSIFIER_ADAPTERS)
def peer(request: pytest.FixtureRequest, tmp_path: Path) -> ClassifierPeer:
    factory: PeerFactory = request.param
    return factory(tmp_path, request)


class Counting:
    """A classifier that counts how often it was asked."""

    def __init__(self, inner: FeedbackClassifier) -> None:
        self.inner = inner
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def detect(self):  # type: ignore[no-untyped-def]
        return self.inner.detect()

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        self.calls += 1
        return self.inner.classify(prompt, schema)


@pytest.mark.parametrize(
    "said",
    [
        answer_of("approved"),
        answer_of("approved-with-comments", "the spacing is still off on mobile"),
        answer_of("changes-requested"),
        answer_of("wait"),
    ],
    ids=["approved", "approved-with-comments", "changes-requested", "wait"],
)
def test_each_outcome_comes_back_as_the_model_answered(
    peer: ClassifierPeer, said: JsonObject
) -> None:
    peer.answer_with(lambda prompt: said)
    answer = peer.make(BOUND_S).classify(
        "LGTM, but the spacing is still off on mobile", OUTCOME_SCHEMA
    )
    assert answer.failure is None
    assert read_answer(answer.structured) == Answer(
        Outcome(said["outcome"]),
        tuple(said["remarks"]),  # type: ignore[arg-type]
    )
    assert answer.model


def test_words_outside_the_schema_are_no_answer(peer: ClassifierPeer) -> None:
    peer.answer_with(lambda prompt: Text("LGTM I think"))
    answer = peer.make(BOUND_S).classify("LGTM I think", OUTCOME_SCHEMA)
    assert answer.failure is None  # asking again may help
    assert read_answer(answer.structured) is None


def test_an_outcome_outside_the_set_is_no_answer(peer: ClassifierPeer) -> None:
    peer.answer_with(lambda prompt: answer_of("merged"))
    answer = peer.make(BOUND_S).classify("Ship it", OUTCOME_SCHEMA)
    assert answer.failure is None
    assert read_answer(answer.structured) is None


def test_out_of_set_answers_become_wait_after_three_tries(peer: ClassifierPeer) -> None:
    clock = FakeClock()
    store = InMemoryCommentStore(clock)
    comment = store.append(NewComment(branch="feat/x", body="The total is cut."))
    comment = resolve_comment(store, comment.id, "abc1234", "Widened it.", clock)
    event = ThreadEvent(
        ReplyKind.REPLY,
        Role.REVIEWER,
        "LGTM now",
        author=server_author("dana", "Dana"),
        marks={"trust": "identified"},
    )
    comment = converse(store, comment.id, event)
    peer.answer_with(lambda prompt: {"outcome": "approved-ish", "remarks": []})
    counting = Counting(peer.make(BOUND_S))
    reading = classify_reply(store, comment, thread_of(comment)[-1].id, counting, clock)
    assert counting.calls == 3
    assert reading.classification is not None
    assert reading.classification.outcome is Outcome.WAIT
    assert reading.comment.status.value == "resolved"


def test_a_harness_that_hangs_is_stopped_at_its_bound(peer: ClassifierPeer) -> None:
    peer.answer_with(lambda prompt: Stall(600))
    bound = 4.0
    started = time.monotonic()
    answer = peer.make(bound).classify("LGTM now", OUTCOME_SCHEMA)
    took = time.monotonic() - started
    assert answer.failure is not None
    assert "no answer within 4 s" in answer.failure
    assert bound <= took < bound + 20
    left = [pid for pid in descendants(os.getpid()) if _is_harness(pid)]
    assert left == []


def _is_harness(pid: int) -> bool:
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(part.endswith((b"/claude", b"/codex")) for part in argv)


def test_the_model_reads_the_prompt_maple_wrote(peer: ClassifierPeer) -> None:
    prompt = f'Classify this.\n<maple-review-data>\n{{"said": "{DATA_CLOSE}"}}\n{DATA_CLOSE}'
    peer.answer_with(lambda seen: answer_of("wait"))
    peer.make(BOUND_S).classify(prompt, OUTCOME_SCHEMA)
    assert any(prompt in seen for seen in peer.prompts())


def test_nothing_the_model_could_run_is_offered(peer: ClassifierPeer) -> None:
    peer.answer_with(lambda prompt: answer_of("approved"))
    peer.make(BOUND_S).classify("LGTM", OUTCOME_SCHEMA)
    assert peer.offered() == []


def test_sign_in_is_told_apart_from_its_absence(peer: ClassifierPeer) -> None:
    info = peer.make(BOUND_S).detect()
    assert info.installed
    assert info.signed_in is True
    assert peer.signed_out().detect().signed_in is False
