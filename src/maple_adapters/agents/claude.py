"""Claude Code through its stream-json protocol, one ``claude`` process per turn.

Claude keeps its own system prompt, settings and permission rules. maple passes
``--permission-mode default --permission-prompt-tool stdio`` (never a bypass flag) and answers
every ``can_use_tool`` with allow, except after a stop, when it denies. ``AskUserQuestion`` goes
to the caller, and the answer comes back through ``updatedInput``. The first turn uses
``--session-id``; later turns ``--resume``, once a ``result`` (or the transcript) shows the CLI
kept the session.
Claude Code hands its environment to the MCP servers it starts, so a provider's ``marks`` reach
them as they reach its commands.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from maple_adapters.agents.process import Child, CliProvider, scoped_environment
from maple_adapters.agents.session import GENERIC_FAILURE, UNATTENDED, AgentStartError, SessionState
from maple_core.agents import AgentQuestion, AgentRun, AgentState, ProviderInfo

__all__ = ["ClaudeProvider", "ClaudeSession"]

_INTERRUPT_WAIT_S = 2.0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


_FILE_TOOLS = frozenset({"Edit", "Write", "NotebookEdit", "MultiEdit"})


class ClaudeSession:
    """One Claude Code session; each turn is a contained ``claude`` process."""

    def __init__(
        self,
        provider: ClaudeProvider,
        agent_id: str,
        cwd: str,
        model: str | None,
        effort: str | None,
        on_turn_end: Callable[[AgentRun], None] | None,
        thread_id: str | None = None,
    ) -> None:
        self._provider = provider
        self.agent_id = agent_id
        self._cwd = cwd
        self._model = model
        self._effort = effort
        self._state = SessionState("claude", agent_id, on_turn_end)
        self._session_id = thread_id or str(uuid.uuid4())
        self._confirmed = thread_id is not None  # a saved session is resumed
        self._child: Child | None = None
        self._lock = threading.RLock()
        self._stopping = False
        self._tools: dict[str, tuple[str, dict[str, Any]]] = {}
        self._question: tuple[str, dict[str, Any], list[AgentQuestion]] | None = None
        self._control_ids = 0
        self._generation = 0

    def _transcript(self) -> Path:
        home = Path(scoped_environment(self._provider.env).get("HOME", "~")).expanduser()
        folder = str(Path(self._cwd).resolve()).replace("/", "-")
        return home / ".claude" / "projects" / folder / f"{self._session_id}.jsonl"

    def _argv(self) -> list[str]:
        argv = [
            self._provider.binary,
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
            "--verbose",
            "--permission-mode",
            "default",
            "--permission-prompt-tool",
            "stdio",
        ]
        resume = self._confirmed or self._transcript().exists()
        argv.append(
            f"--resume={self._session_id}" if resume else f"--session-id={self._session_id}"
        )
        if self._model:
            argv += ["--model", self._model]
        if self._effort:
            argv += ["--effort", self._effort]
        return argv

    def begin(self, text: str) -> None:
        """Start a ``claude`` process for one turn on ``text``."""
        with self._lock:
            self._stopping = False
            self._state.begin_turn()
            env = scoped_environment(self._provider.env)
            self._generation += 1
            generation = self._generation

            def on_message(message: dict[str, Any]) -> None:
                if generation == self._generation:  # a finished turn's process is ignored
                    self._on_message(message)

            def on_exit(code: int | None) -> None:
                if generation == self._generation:
                    self._on_exit(code)

            try:
                self._child = Child(self._argv(), self._cwd, env, on_message, on_exit)
                self._state.update(thread_id=self._session_id)  # only once a process runs
            except OSError as exc:
                self._state.end_turn(
                    AgentState.FAILED,
                    f"Claude Code could not start ({exc.strerror or exc}); is `claude` installed?",
                )
                return
            self._child.send(
                {
                    "type": "user",
                    "message": {"role": "user", "content": text},
                    "parent_tool_use_id": None,
                    "session_id": self._session_id,
                }
            )

    def _control_reply(self, request_id: Any, body: dict[str, Any]) -> None:
        if self._child is not None:
            self._child.send(
                {
                    "type": "control_response",
                    "response": {"subtype": "success", "request_id": request_id, "response": body},
                }
            )

    def _on_exit(self, code: int | None) -> None:
        if self._stopping:
            self._state.end_turn(AgentState.CANCELLED)
        else:
            self._state.end_turn(AgentState.FAILED, GENERIC_FAILURE)

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "assistant":
            self._on_assistant(message)
        elif kind == "user":
            self._on_tool_results(message)
        elif kind == "control_request":
            self._on_control_request(message)
        elif kind == "control_cancel_request":
            if self._question is not None and self._question[0] == message.get("request_id"):
                self._question = None
        elif kind == "result":
            self._on_result(message)

    def _on_assistant(self, message: dict[str, Any]) -> None:
        body = message.get("message") if isinstance(message.get("message"), dict) else {}
        texts = []
        for block in (body or {}).get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_use":
                tool_input = block.get("input") if isinstance(block.get("input"), dict) else {}
                self._tools[str(block.get("id"))] = (str(block.get("name")), tool_input or {})
        if texts:
            self._state.update(last_message="\n".join(texts))

    def _on_tool_results(self, message: dict[str, Any]) -> None:
        body = message.get("message") if isinstance(message.get("message"), dict) else {}
        content = (body or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            name, tool_input = self._tools.pop(str(block.get("tool_use_id")), ("", {}))
            failed = block.get("is_error") is True
            if name == "Bash":
                self._state.add_command(str(tool_input.get("command", "")), 1 if failed else None)
            elif name in _FILE_TOOLS and not failed:
                path = tool_input.get("file_path") or tool_input.get("notebook_path")
                if isinstance(path, str):
                    self._state.add_files([path])

    def _on_control_request(self, message: dict[str, Any]) -> None:
        request_id = str(message.get("request_id", ""))
        request = _dict(message.get("request"))
        if request.get("subtype") != "can_use_tool":
            if self._child is not None:
                self._child.send(
                    {
                        "type": "control_response",
                        "response": {
                            "subtype": "error",
                            "request_id": request_id,
                            "error": "maple does not handle this request",
                        },
                    }
                )
            return
        tool_input = _dict(request.get("input"))
        if self._stopping:
            self._control_reply(
                request_id, {"behavior": "deny", "message": "The agent was stopped."}
            )
            return
        if request.get("tool_name") == "AskUserQuestion":
            questions = []
            for index, raw in enumerate(tool_input.get("questions") or []):
                if not isinstance(raw, dict):
                    continue
                labels = tuple(
                    str(o.get("label"))
                    for o in raw.get("options") or []
                    if isinstance(o, dict) and o.get("label")
                )
                questions.append(
                    AgentQuestion(
                        str(index),
                        str(raw.get("question", "")),
                        labels,
                        bool(raw.get("multiSelect")),
                    )
                )
            self._question = (request_id, tool_input, questions)
            self._state.ask(tuple(questions))
            return
        if not self._provider.approve:
            self._control_reply(request_id, {"behavior": "deny", "message": UNATTENDED})
            return
        self._control_reply(request_id, {"behavior": "allow", "updatedInput": tool_input})

    def _on_result(self, message: dict[str, Any]) -> None:
        finished = self._child  # this turn's process: the next turn may replace it below
        if message.get("session_id") == self._session_id:
            self._confirmed = True
        final = message.get("result")
        if isinstance(final, str) and final:
            self._state.update(last_message=final)
        if self._stopping:
            state, error = AgentState.CANCELLED, None
        elif message.get("is_error") is True:
            state, error = AgentState.FAILED, "Claude Code reported the turn failed."
        else:
            state, error = AgentState.IDLE, None
        self._state.end_turn(state, error)
        if finished is not None:
            finished.close_stdin()  # the turn is over; its process exits

    def snapshot(self) -> AgentRun:
        """The agent as it stands."""
        return self._state.snapshot()

    def send(self, text: str) -> None:
        """Answer a pending question, or start the next turn (resuming the session)."""
        pending = self._question
        if pending is not None and self._state.snapshot().state is AgentState.WAITING:
            request_id, tool_input, questions = pending
            self._question = None
            self._state.update(state=AgentState.RUNNING, questions=())
            answers = {q.question: text for q in questions}
            self._control_reply(
                request_id,
                {"behavior": "allow", "updatedInput": {**tool_input, "answers": answers}},
            )
            return
        if self._state.snapshot().state is AgentState.RUNNING:
            raise AgentStartError(
                f"{self.agent_id} is still working; wait with agent_status or stop it with "
                "agent_cancel first."
            )
        self.begin(text)

    def wait(self, timeout: float | None = None) -> AgentRun:
        """Block until the turn ends or asks a question."""
        return self._state.wait(timeout)

    def cancel(self) -> AgentRun:
        """Interrupt the turn, wait briefly, then kill the process group."""
        with self._lock:
            self._stopping = True
            child = self._child
            if child is not None and child.alive():
                self._control_ids += 1
                child.send(
                    {
                        "type": "control_request",
                        "request_id": f"maple-interrupt-{self._control_ids}",
                        "request": {"subtype": "interrupt"},
                    }
                )
                self._state.wait(_INTERRUPT_WAIT_S)
                child.kill()
            self._child = None
            self._state.end_turn(AgentState.CANCELLED)
            return self._state.snapshot()

    def close(self) -> None:
        """Kill the turn's process and everything it started."""
        self._stopping = True
        if self._child is not None:
            self._child.kill(grace=0.5)
            self._child = None


class ClaudeProvider(CliProvider[ClaudeSession]):
    """Claude Code, found as ``binary`` on the ``PATH`` (``claude`` by default)."""

    def __init__(
        self,
        binary: str = "claude",
        env: Mapping[str, str] | None = None,
        *,
        approve: bool = True,
        marks: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(binary, env, approve=approve, marks=marks)

    @property
    def name(self) -> str:
        """``claude``."""
        return "claude"

    def detect(self) -> ProviderInfo:
        """``claude --version`` and ``claude auth status --json`` (only the signed-in flag)."""
        version = self.run_quietly("--version")
        if version is None or version.returncode != 0:
            return ProviderInfo(
                "claude",
                installed=False,
                guidance="Install Claude Code (npm install -g @anthropic-ai/claude-code), then "
                "run `claude auth login`.",
            )
        words = version.stdout.strip().split()
        status = self.run_quietly("auth", "status", "--json")
        signed_in: bool | None = None
        if status is not None:
            try:
                data = json.loads(status.stdout or "null")
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("loggedIn"), bool):
                signed_in = data["loggedIn"]
        guidance = {
            True: "Ready.",
            False: "Run `claude auth login` in a terminal.",
            None: "Could not tell whether Claude Code is signed in; run `claude auth status`.",
        }[signed_in]
        return ProviderInfo("claude", True, words[0] if words else None, signed_in, guidance)

    def _session(
        self,
        agent_id: str,
        cwd: str,
        model: str | None,
        effort: str | None,
        on_turn_end: Callable[[AgentRun], None] | None,
        thread_id: str | None,
    ) -> ClaudeSession:
        return ClaudeSession(self, agent_id, cwd, model, effort, on_turn_end, thread_id)
