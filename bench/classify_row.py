"""Bench rows: what reading a reviewer's reply costs beyond the model's own time, and a reply
read before costing nothing.

The real ``claude`` (against the scripted model on loopback) reads a trusted reviewer's reply on
a resolved comment through ``classify_reply``, as the route does when the reply arrives. The
figure is the median wall time of one reading less the time the model itself took to answer
(measured at the model, from each request's arrival to its answer's end): the harness's start
plus maple's work (prompt, checks, the write that keeps the reading and confirms). The anchor,
in the same run, is ``claude --version``: the harness starting and doing nothing. The second row
reads each of those replies again: it must ask the harness nothing.
"""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import pytest

from bench.watch_row import _Finalizers
from maple_adapters.agents.classifiers import ClaudeClassifier
from maple_adapters.agents.process import scoped_environment, spawn
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.system import SystemClock
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.classifying import classify_reply
from maple_core.comments import NewComment
from maple_core.conversation import ReplyKind, Role, thread_of
from maple_core.feedback import OUTCOME_SCHEMA, HarnessAnswer
from maple_core.feedback_prompt import feedback_prompt
from maple_core.json_types import JsonObject
from maple_core.resolving import converse, resolve_comment
from maple_core.thread_events import ThreadEvent
from maple_entrypoints.configuration import SECRETS
from tests.harness_support import start_harness

TRIALS = 7
BUDGET = 1.3  # × the same claude -p by hand: maple adds little to the harness's own start


class _Timed:
    """ASGI middleware: the seconds the model spent on each request, arrival to answer's end."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.spent: list[float] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        started = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            if scope["type"] == "http":
                self.spent.append(time.perf_counter() - started)


class _Counting:
    def __init__(self, inner: FeedbackClassifier) -> None:
        self.inner = inner
        self.calls = 0
        self.name = inner.name

    def detect(self) -> Any:
        return self.inner.detect()

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        self.calls += 1
        return self.inner.classify(prompt, schema)


def _median_wall(argv: list[str], env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True, timeout=120)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def classify_rows() -> list[tuple[str, str, str, float, str, bool]]:
    finalizers = _Finalizers()
    try:
        with tempfile.TemporaryDirectory(prefix="maple-classify-bench-") as tmp:
            timed: list[_Timed] = []

            def timing(app: Any) -> _Timed:
                timed.append(_Timed(app))
                return timed[0]

            request = cast(pytest.FixtureRequest, finalizers)
            harness = start_harness("claude", Path(tmp), request, wrap=timing)
            harness.answer(lambda words: {"outcome": "approved", "remarks": []})
            return _measure(harness, timed[0])
    finally:
        finalizers.close()


def _by_hand(harness: Any, timed: _Timed, prompt: str, folder: str) -> float:
    """The same ``claude -p`` a reading runs, by hand: its wall less the model's time."""
    argv = ClaudeClassifier(harness.name, harness.env, hidden=SECRETS).argv(OUTCOME_SCHEMA)
    before = len(timed.spent)
    started = time.perf_counter()
    process = spawn(argv, folder, scoped_environment(harness.env, SECRETS))
    process.communicate(prompt.encode(), timeout=120)
    return time.perf_counter() - started - sum(timed.spent[before:])


def _measure(harness: Any, timed: _Timed) -> list[tuple[str, str, str, float, str, bool]]:
    clock = SystemClock()
    store = InMemoryCommentStore(clock)
    classifier = _Counting(harness.classifier())
    readings: list[tuple[Any, str]] = []
    overheads: list[float] = []
    by_hand: list[float] = []
    for trial in range(TRIALS + 1):  # the first warms the harness's caches: not counted
        comment = store.append(NewComment(branch="feat/bench", body=f"The total is cut ({trial})."))
        resolve_comment(store, comment.id, "a" * 40, "Widened the cell.", clock)
        event = ThreadEvent(
            ReplyKind.REPLY,
            Role.REVIEWER,
            "LGTM now",
            author={"id": "dana", "name": "Dana"},
            marks={"trust": "identified"},
        )
        replied = converse(store, comment.id, event)
        entry = thread_of(replied)[-1]
        with tempfile.TemporaryDirectory(prefix="maple-by-hand-") as folder:
            hand = _by_hand(harness, timed, feedback_prompt(replied, entry), folder)
        before = len(timed.spent)
        started = time.perf_counter()
        reading = classify_reply(store, replied, entry.id, classifier, clock)
        wall = time.perf_counter() - started
        assert reading.classification is not None
        assert reading.asked == 1
        if trial:
            overheads.append(wall - sum(timed.spent[before:]))
            by_hand.append(hand)
        readings.append((reading.comment, entry.id))
    anchor = _median_wall([harness.name, "--version"], {**harness.env}, TRIALS)
    overhead, hand = statistics.median(overheads), statistics.median(by_hand)
    first_calls = classifier.calls
    requests = len(harness.model.requests)
    for comment, entry_id in readings:
        again = classify_reply(store, comment, entry_id, classifier, clock)
        assert again.skipped == "read already"
    again_calls = classifier.calls - first_calls
    again_requests = len(harness.model.requests) - requests
    return [
        (
            "reading a reviewer's reply (claude), less the model's own time (median)",
            f"{overhead * 1000:.0f} ms",
            f"claude --version: {anchor * 1000:.0f} ms (the same claude -p by hand: "
            f"{hand * 1000:.0f} ms)",
            overhead / anchor,
            f"≤ {BUDGET:g} × by hand",
            overhead <= BUDGET * hand,
        ),
        (
            f"the same {len(readings)} replies read again: harness calls, model requests",
            f"{again_calls} calls, {again_requests} requests",
            f"first readings: {first_calls} calls",
            again_calls / first_calls,
            "0 calls",
            again_calls == 0 and again_requests == 0,
        ),
    ]


if __name__ == "__main__":
    for row in classify_rows():
        print(row)
