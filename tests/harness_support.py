"""The real ``claude`` or ``codex`` as a feedback classifier's harness, against a scripted model.

:func:`start_harness` gives the harness on a private ``PATH`` folder (as a user has it, so a
``maple`` process with ``MAPLE_CLASSIFIER`` set finds it by name) with a private home pointing it
at the scripted loopback model, signed in as a user would be. The model answers by the reply the
prompt frames (:func:`reply_in`), so a test says what the model makes of each reply.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from contract_tests.agent_peers import CODEX_CONFIG, _bundled
from maple_adapters.agents.classifiers import ClaudeClassifier, CodexClassifier
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.inert_text import DATA_CLOSE, DATA_OPEN
from maple_entrypoints.configuration import SECRETS
from tests.agents.model_server import ScriptedModel
from tests.loopback import serve_asgi

HARNESSES = ["claude", "codex"]

Said = Any  # a JSON answer in the schema, or {"text": words} for words outside it


@dataclass
class Harness:
    """A real harness ready to read replies.

    Attributes:
        name: ``claude`` or ``codex``.
        model: the scripted model it talks to (``requests`` holds what it was sent).
        env: what a process needs to find and use it: ``PATH`` with its folder first, its home.
        signed_out_env: the same with nobody signed in.
    """

    name: str
    model: ScriptedModel
    env: dict[str, str]
    signed_out_env: dict[str, str]

    def classifier(self, timeout_s: float = 60.0) -> FeedbackClassifier:
        """The classifier MAPLE_CLASSIFIER names, as maple builds it, bounded at ``timeout_s``."""
        kind = ClaudeClassifier if self.name == "claude" else CodexClassifier
        return kind(self.name, self.env, timeout_s=timeout_s, hidden=SECRETS)

    def answer(self, by_reply: Callable[[str], Said]) -> None:
        """Script the model: given the words of the reply a prompt frames, what it answers."""

        def step(prompt: str, index: int) -> dict[str, Any]:
            said = by_reply(reply_in(prompt) or "")
            if isinstance(said, dict) and "text" in said:
                return {"say": said["text"]}
            if self.name == "claude":
                return {"use": "StructuredOutput", "input": said}
            return {"say": json.dumps(said)}

        self.model.answer = step

    def readings(self) -> int:
        """How many requests the model got (a reading is one or more)."""
        return len(self.model.requests)


def reply_in(prompt: str) -> str | None:
    """The reviewer's words a classification prompt frames (a reply, or a review's body), or
    ``None`` for another prompt."""
    opened = f"\n{DATA_OPEN}\n"
    if opened not in prompt:
        return None
    framed = prompt.split(opened, 1)[1].rsplit(DATA_CLOSE, 1)[0]
    try:
        data = json.loads(framed)
        said = (data.get("reply") or data["review"])["said"]  # a reply, or a review's body
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return said if isinstance(said, str) else None


def start_harness(
    name: str,
    tmp: Path,
    request: pytest.FixtureRequest,
    wrap: Callable[[Any], Any] | None = None,
) -> Harness:
    """The real ``name`` on a private PATH folder, pointed at a new scripted model.

    ``wrap`` (ASGI middleware) goes around the model's app, to time it, say.
    """
    binary = _bundled(name)
    folder = tmp / f"{name}-bin"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).symlink_to(binary)
    home = tmp / f"{name}-home"
    home.mkdir(exist_ok=True)
    model = ScriptedModel(tmp / "pids", tmp)
    running = serve_asgi(wrap(model.app) if wrap else model.app)
    request.addfinalizer(running.stop)
    path = f"{folder}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    base = {"PATH": path, "HOME": str(home), "NO_COLOR": "1", "RUST_LOG": "warn"}
    if name == "claude":
        env = {
            **base,
            "ANTHROPIC_BASE_URL": running.url,
            "ANTHROPIC_API_KEY": "sk-ant-scripted-model",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
        }
        signed_out = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
        return Harness(name, model, env, signed_out)
    signed_in_home, bare_home = tmp / "codex-home", tmp / "codex-home-signed-out"
    for codex_home in (signed_in_home, bare_home):
        codex_home.mkdir(exist_ok=True)
        (codex_home / "config.toml").write_text(CODEX_CONFIG.format(url=running.url))
    env = {**base, "CODEX_HOME": str(signed_in_home)}
    subprocess.run(  # a key on stdin signs Codex in, as a user's `codex login` would
        [str(binary), "login", "--with-api-key"],
        input="sk-scripted-model",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return Harness(name, model, env, {**base, "CODEX_HOME": str(bare_home)})


def harness_fixture(by_reply: Callable[[str], Said]) -> Any:
    """A module's ``harness`` fixture: each of the :data:`HARNESSES` started once for the module,
    its model answering by ``by_reply`` (see :meth:`Harness.answer`)."""

    @pytest.fixture(scope="module", params=HARNESSES)
    def harness(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> Harness:
        started = start_harness(request.param, tmp_path_factory.mktemp(request.param), request)
        started.answer(by_reply)
        return started

    return harness


def model_reads(words: str) -> Said:
    """What the scripted model makes of a reply: it obeys any words that tell it what to say."""
    if "spacing is still off" in words:
        return {
            "outcome": "approved-with-comments",
            "remarks": ["the spacing is still off on mobile"],
        }
    if "still broken" in words:
        return {"outcome": "changes-requested", "remarks": []}
    if "dark mode?" in words:
        return {"outcome": "wait", "remarks": []}
    if "garbled" in words:
        return {"text": "Looks fine to me, I guess?"}
    if "ship it" in words:
        return {"outcome": "merged", "remarks": []}
    return {"outcome": "approved", "remarks": []}
