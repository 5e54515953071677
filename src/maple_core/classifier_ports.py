"""The feedback classifier's port: a coding harness run headless to read a reviewer's words.

maple asks it with a prompt and a JSON schema (the use cases that ask are ``classifying.py``);
the external agents ``maple-mcp`` drives are ``agent_ports.py``.
"""

from __future__ import annotations

from typing import Protocol

from maple_core.agents import ProviderInfo
from maple_core.feedback import HarnessAnswer
from maple_core.json_types import JsonObject

__all__ = ["FeedbackClassifier"]


class FeedbackClassifier(Protocol):
    """A harness that reads a reviewer's words and answers in a schema (Claude Code, Codex).

    maple implements no model protocol: the harness is the client, run headless with nothing
    it could run, each run bounded in time.
    """

    @property
    def name(self) -> str:
        """``claude`` or ``codex`` (``memory`` for the reference)."""
        ...

    def detect(self) -> ProviderInfo:
        """Whether the harness is installed and signed in, and what to do if not."""
        ...

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        """Ask once: the answer in ``schema``'s place (unchecked), or why there is none."""
        ...
