"""The peers the feedback-classifier contract runs against: one scripted answer, played by each.

An answer is written once, harness-neutral: a JSON value (what the model puts in the schema's
place), :class:`Text` (words outside any schema) or :class:`Stall` (a model that does not answer
for that long). The reference classifier plays it directly; the real ``claude`` and ``codex``
get it from the scripted loopback model as their own wire expects it (Claude's
``StructuredOutput`` tool call, Codex's assistant message).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from maple_adapters.agents.classifiers import ClaudeClassifier, CodexClassifier
from maple_adapters.memory_classifier import HANG, ScriptedClassifier
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.feedback import HarnessAnswer
from maple_core.json_types import JsonObject
from maple_entrypoints.configuration import SECRETS


@dataclass(frozen=True)
class Text:
    """The model answers in words, not in the schema."""

    words: str


@dataclass(frozen=True)
class Stall:
    """The model does not answer for ``seconds``."""

    seconds: float


Said = Any  # a JSON value, Text or Stall
Answering = Callable[[str], Said]


@dataclass
class ClassifierPeer:
    """A classifier wired to a peer, and what the peer saw.

    Attributes:
        make: the classifier, bounded at ``timeout_s`` seconds a reading.
        answer_with: script the model: given the prompt it read, what it says.
        prompts: the prompts the model read, one per request it got.
        offered: the tools the model was offered that could run something (the answer's own
            channel, and tools that refuse to run in a headless reading, left out).
        signed_out: the classifier as it is with nobody signed in.
    """

    name: str
    make: Callable[[float], FeedbackClassifier]
    answer_with: Callable[[Answering], None]
    prompts: Callable[[], list[str]]
    offered: Callable[[], list[str]]
    signed_out: Callable[[], FeedbackClassifier]
    extra: dict[str, Any] = field(default_factory=dict)


def memory_peer(tmp: Path, request: pytest.FixtureRequest) -> ClassifierPeer:
    """The reference classifier, scripted directly."""
    answering: list[Answering] = [lambda prompt: {"outcome": "wait", "remarks": []}]
    made: list[ScriptedClassifier] = []

    def played(prompt: str) -> Any:
        said = answering[0](prompt)
        if isinstance(said, Stall):
            return HANG
        if isinstance(said, Text):
            return HarnessAnswer(structured=said.words, model="scripted")
        return said

    def make(timeout_s: float) -> FeedbackClassifier:
        classifier = ScriptedClassifier(played, timeout_s=timeout_s)
        made.append(classifier)
        request.addfinalizer(classifier.close)
        return classifier

    return ClassifierPeer(
        "memory",
        make,
        lambda fn: answering.__setitem__(0, fn),
        lambda: [p for c in made for p in c.prompts],
        list,
        lambda: ScriptedClassifier(played, signed_in=False),
    )


_INERT = {
    # Claude: the answer's channel, and a placeholder it must never call.
    "claude": {"StructuredOutput", "DeferredToolPlaceholder"},
    # Codex: asking the user, which a headless exec refuses ("unavailable in Default mode").
    "codex": {"request_user_input"},
}


def real_classifier_peer(name: str, tmp: Path, request: pytest.FixtureRequest) -> ClassifierPeer:
    """The real ``claude`` or ``codex`` against a scripted model on loopback."""
    from tests.agents.model_server import _blocks, _text_of
    from tests.harness_support import start_harness

    harness = start_harness(name, tmp, request)
    model = harness.model
    answering: list[Answering] = [lambda prompt: {"outcome": "wait", "remarks": []}]

    def step(prompt: str, index: int) -> dict[str, Any]:
        said = answering[0](prompt)
        if isinstance(said, Stall):
            wait = _step_of(name, {"outcome": "wait", "remarks": []})
            return {"stall": said.seconds, "then": wait}
        return _step_of(name, said)

    model.answer = step
    kind = ClaudeClassifier if name == "claude" else CodexClassifier

    def prompts() -> list[str]:
        seen = []
        for body in model.requests:
            if name == "claude":
                users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
                seen.append("".join(b.get("text", "") for b in _blocks(users[0])) if users else "")
            else:
                items = [i for i in body.get("input") or [] if i.get("role") == "user"]
                texts = [_text_of(i) for i in items]
                seen.append(next((t for t in texts if not t.lstrip().startswith("<")), ""))
        return seen

    def offered() -> list[str]:
        names = {
            str(t.get("name") or t.get("type"))
            for body in model.requests
            for t in body.get("tools") or []
        }
        return sorted(names - _INERT[name])

    return ClassifierPeer(
        f"{name}-real",
        harness.classifier,
        lambda fn: answering.__setitem__(0, fn),
        prompts,
        offered,
        lambda: kind(name, harness.signed_out_env, hidden=SECRETS),
        {"model": model},
    )


def _step_of(name: str, said: Any) -> dict[str, Any]:
    """One harness-neutral answer as the scripted model plays it for ``name``."""
    if isinstance(said, Text):
        return {"say": said.words}
    if name == "claude":
        return {"use": "StructuredOutput", "input": said}
    return {"say": json.dumps(said)}


def answer_of(outcome: str, *remarks: str) -> JsonObject:
    """An answer in the schema."""
    return {"outcome": outcome, "remarks": list(remarks)}
