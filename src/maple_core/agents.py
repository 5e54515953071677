"""External agents: what a run of Codex or Claude Code is, and how its result reads to a model.

The adapters in ``maple_adapters.agents`` drive the real CLIs; this module holds the values they
report and the text an MCP caller gets back (Paseo's shape): a status line, the agent and thread
ids, the files changed and commands run, the last message inside ``<agent-response>`` cut at
4,000 characters, and one line of guidance.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypedDict

from maple_core.errors import InvalidInputError
from maple_core.text import capped, one_line

__all__ = [
    "AgentQuestion",
    "AgentRun",
    "AgentState",
    "CommandRun",
    "MAX_AGENTS",
    "MAX_RESPONSE",
    "PROVIDERS",
    "ProviderInfo",
    "StartOptions",
    "check_provider",
    "render_run",
]

MAX_AGENTS = 4
"""The most external agents one server starts (an agent whose process never started is not
counted)."""

MAX_RESPONSE = 4_000
"""Characters of the agent's last message a result carries."""

PROVIDERS = ("codex", "claude")
"""The providers maple can drive, in the order they are listed."""


class AgentState(StrEnum):
    """Where an agent's current turn stands."""

    RUNNING = "running"
    WAITING = "waiting"  # asked a question; agent_send answers it
    IDLE = "idle"  # the turn finished; agent_send starts another
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class CommandRun:
    """A command the agent ran, and its exit code when the agent reported one."""

    command: str
    exit_code: int | None = None


@dataclass(frozen=True, slots=True)
class AgentQuestion:
    """A question the agent asked, with the choices it offered (none: free text)."""

    id: str
    question: str
    options: tuple[str, ...] = ()
    multi_select: bool = False


@dataclass(frozen=True, slots=True)
class AgentRun:
    """One agent as it stands: its ids, state, what it did this turn, and its last words."""

    provider: str
    agent_id: str
    thread_id: str | None
    state: AgentState
    files_changed: tuple[str, ...] = ()
    commands: tuple[CommandRun, ...] = ()
    last_message: str = ""
    questions: tuple[AgentQuestion, ...] = ()
    error: str | None = None
    turns: int = 0

    def to_json(self) -> dict[str, object]:
        """The run as JSON (the tools' structured content)."""
        return {
            "provider": self.provider,
            "agentId": self.agent_id,
            "threadId": self.thread_id,
            "status": self.state.value,
            "filesChanged": list(self.files_changed),
            "commands": [{"command": c.command, "exitCode": c.exit_code} for c in self.commands],
            "lastMessage": self.last_message,
            "questions": [
                {
                    "id": q.id,
                    "question": q.question,
                    "options": list(q.options),
                    "multiSelect": q.multi_select,
                }
                for q in self.questions
            ],
            "error": self.error,
            "turns": self.turns,
        }


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """What ``list_agent_providers`` says about one provider."""

    provider: str
    installed: bool
    version: str | None = None
    signed_in: bool | None = None  # None: the check was unavailable, malformed or timed out
    guidance: str = ""
    details: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """The provider as JSON."""
        return {
            "provider": self.provider,
            "installed": self.installed,
            "version": self.version,
            "signedIn": self.signed_in,
            "guidance": self.guidance,
        }


class StartOptions(TypedDict, total=False):
    """How a new agent runs, each unset by default (the provider's own choice).

    Attributes:
        model: the model it runs on.
        effort: its reasoning effort.
        on_turn_end: called with the agent's run each time a turn ends.
    """

    model: str | None
    effort: str | None
    on_turn_end: Callable[[AgentRun], None] | None


def check_provider(provider: str, allowed: Sequence[str]) -> str:
    """``provider`` when the server was started with it in ``MAPLE_AGENTS``.

    Raises:
        InvalidInputError: naming the providers this server offers.
    """
    if provider in allowed:
        return provider
    offered = ", ".join(allowed) or "none"
    raise InvalidInputError(
        f"The {provider} agent is not offered by this server (MAPLE_AGENTS offers: {offered})."
    )


_STATUS_LINES = {
    AgentState.RUNNING: "is still working",
    AgentState.WAITING: "asked a question and is waiting for the answer",
    AgentState.IDLE: "finished its turn",
    AgentState.FAILED: "failed",
    AgentState.CANCELLED: "was stopped",
}

_GUIDANCE = {
    AgentState.RUNNING: "Check on it later with agent_status, or stop it with agent_cancel.",
    AgentState.WAITING: "Answer with agent_send; the answer goes to the question above.",
    AgentState.IDLE: "Review the changes; agent_send gives it more instructions in the same "
    "thread.",
    AgentState.FAILED: "agent_send retries in the same thread; check the provider with "
    "list_agent_providers.",
    AgentState.CANCELLED: "The thread is kept: agent_send resumes it in a fresh process.",
}


def _cut(text: str) -> str:
    if len(text) <= MAX_RESPONSE:
        return text
    return text[:MAX_RESPONSE] + f"\n[…cut: {len(text) - MAX_RESPONSE} more characters]"


_FRAME_TAG = re.compile(r"<(\s*/?\s*agent-response)", re.I)
_FIELD_LIMIT = 300


def _defused(text: str) -> str:
    """``text`` unable to open or close the ``<agent-response>`` frame (``&lt;`` instead).

    A tag spelled with look-alike brackets or letters (fullwidth forms) or split by invisible
    characters reads as one to a model: such text is first brought to plain characters
    (NFKC, format characters dropped) so the tag is found and defused too.
    """
    plain = unicodedata.normalize(
        "NFKC", "".join(c for c in text if unicodedata.category(c) != "Cf")
    )
    if _FRAME_TAG.search(plain) and not _FRAME_TAG.search(text):
        text = plain
    return _FRAME_TAG.sub(r"&lt;\1", text)


def _field(text: str) -> str:
    """An agent-written field (a path, a command, a question): one capped line, no frame tags."""
    return _defused(capped(one_line(text), _FIELD_LIMIT))


def render_run(run: AgentRun) -> str:
    """The result text an MCP caller reads for ``run``.

    Everything the agent wrote is its own text, not maple's: fields are one line each, and its
    last message sits inside ``<agent-response>``, where it cannot spell the closing tag.
    """
    names = {"codex": "Codex", "claude": "Claude Code"}
    line = (
        f"{names.get(run.provider, run.provider)} agent {run.agent_id} {_STATUS_LINES[run.state]}."
    )
    if run.error:
        line += f" {_field(run.error)}"
    thread = _field(run.thread_id) if run.thread_id else "(not started)"
    parts = [line, f"Agent: {run.agent_id}\nThread: {thread}"]
    files = "\n".join(f"- {_field(path)}" for path in run.files_changed) or "- none"
    parts.append(f"Files changed:\n{files}")
    commands = (
        "\n".join(
            f"- {_field(c.command)}" + (f" (exit {c.exit_code})" if c.exit_code is not None else "")
            for c in run.commands
        )
        or "- none"
    )
    parts.append(f"Commands run:\n{commands}")
    if run.questions:
        asked = []
        for q in run.questions:
            choices = f" Options: {', '.join(_field(o) for o in q.options)}." if q.options else ""
            many = " (several may be chosen)" if q.multi_select else ""
            asked.append(f"- {_field(q.question)}{choices}{many}")
        parts.append("Questions:\n" + "\n".join(asked))
    parts.append(f"<agent-response>\n{_defused(_cut(run.last_message))}\n</agent-response>")
    parts.append(_GUIDANCE[run.state])
    return "\n\n".join(parts)
