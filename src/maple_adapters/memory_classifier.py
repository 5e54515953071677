"""The reference feedback classifier: answers as its script says, for tests and embedding."""

from __future__ import annotations

import threading
from collections.abc import Callable

from maple_core.agents import ProviderInfo
from maple_core.feedback import HarnessAnswer
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["HANG", "ScriptedClassifier"]

HANG = object()
"""What a script answers to play a harness that never answers: it is cut off at the bound."""

Script = Callable[[str], "JsonValue | HarnessAnswer | object"]
"""Given the prompt: the structured answer, a whole :class:`HarnessAnswer`, or :data:`HANG`."""


class ScriptedClassifier:
    """Answers each prompt with what ``script`` gives, as a harness would.

    Args:
        script: see :data:`Script`; without one, every answer is ``wait``.
        signed_in: what :meth:`detect` says of the sign-in.
        timeout_s: the bound a :data:`HANG` answer is cut off at.
        model: the model it says it used.
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        signed_in: bool = True,
        timeout_s: float = 5.0,
        model: str = "scripted",
    ) -> None:
        self.script: Script = script or (lambda prompt: {"outcome": "wait", "remarks": []})
        self.signed_in = signed_in
        self.timeout_s = timeout_s
        self.model = model
        self.prompts: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()

    @property
    def name(self) -> str:
        """``memory``."""
        return "memory"

    def detect(self) -> ProviderInfo:
        """Installed; signed in as :attr:`signed_in` says."""
        guidance = "Ready." if self.signed_in else "Sign the scripted classifier in."
        return ProviderInfo("memory", True, "1", self.signed_in, guidance)

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        """The script's answer to ``prompt`` (kept in :attr:`prompts`)."""
        with self._lock:
            self.prompts.append(prompt)
        if not self.signed_in:
            return HarnessAnswer(failure="the scripted classifier is signed out")
        said = self.script(prompt)
        if said is HANG:
            self._stop.wait(self.timeout_s)
            return HarnessAnswer(failure=f"no answer within {self.timeout_s:g} s")
        if isinstance(said, HarnessAnswer):
            return said
        return HarnessAnswer(structured=said, model=self.model)  # type: ignore[arg-type]

    def close(self) -> None:
        """Cut every hanging answer short now."""
        self._stop.set()
