"""Codex through ``codex app-server``: newline-delimited JSON-RPC over the child's stdio.

One app-server per agent. maple sends only the prompt, the working directory and one feature
flag (``default_mode_request_user_input``, so Codex can ask questions); Codex's own sandbox and
approval policy decide what it may do, and maple accepts every approval it asks for while the
turn runs (never ``acceptForSession``), and cancels any that arrives after.

The provider, which finds Codex and marks its MCP servers, is
:mod:`~maple_adapters.agents.codex_provider`.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from maple_adapters.agents.cli import CliSession, SessionStart
from maple_adapters.agents.process import Child
from maple_adapters.agents.session import AgentStartError
from maple_core.agents import AgentQuestion, AgentState

__all__ = ["CodexSession"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.agents.codex_provider import CodexProvider

_CLIENT_NAME = "codex_app_server_daemon"  # non-originating: the user's originator is kept
_FEATURE = "features.default_mode_request_user_input=true"
_REQUEST_TIMEOUT_S = 30.0
_APPROVALS = frozenset(
    {
        "item/commandExecution/requestApproval",
        "item/fileChange/requestApproval",
    }
)


_first_start_locks: dict[str, threading.Lock] = {}
_warmed: set[str] = set()
_guard = threading.Lock()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _codex_home(env: Mapping[str, str]) -> str:
    home = env.get("CODEX_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".codex")
    return str(Path(home).expanduser().resolve())


class CodexSession(CliSession):
    """One Codex thread, driven through its own ``codex app-server`` child."""

    name = "codex"
    _provider: CodexProvider

    def __init__(self, provider: CodexProvider, start: SessionStart) -> None:
        super().__init__(provider, start)
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._thread_id = start.thread_id  # a saved thread is resumed
        self._turn_id: str | None = None
        self._question_request: Any = None

    # -- the child and JSON-RPC ----------------------------------------------------------

    def _spawn(self) -> None:
        env = self._provider.child_environment()
        argv = [self._provider.binary, "app-server", "-c", _FEATURE]
        argv += self._provider.server_marks(self._cwd)
        home = _codex_home(env)
        with _guard:
            first = home not in _warmed
            lock = _first_start_locks.setdefault(home, threading.Lock())
        if first:
            with lock:  # concurrent first starts on a fresh CODEX_HOME kill each other
                self._start_child(argv, env)
                with _guard:
                    _warmed.add(home)
        else:
            self._start_child(argv, env)

    def _start_child(self, argv: list[str], env: Mapping[str, str]) -> None:
        self._generation += 1
        generation = self._generation

        def on_message(message: dict[str, Any]) -> None:
            if generation == self._generation:  # a killed app-server's last words are ignored
                self._on_message(message)

        def on_exit(code: int | None) -> None:
            if generation == self._generation:
                self._on_exit(code)

        try:
            self._child = Child(argv, self._cwd, env, on_message, on_exit)
        except OSError as exc:
            raise AgentStartError(
                f"Codex could not start ({exc.strerror or exc}); is `codex` installed?"
            ) from None
        self._request(
            "initialize",
            {
                "clientInfo": {"name": _CLIENT_NAME, "title": "maple", "version": "0.1.0"},
                "capabilities": {"experimentalApi": True},
            },
        )
        self._notify("initialized", None)

    def _notify(self, method: str, params: Any) -> None:
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        if self._child is not None:
            self._child.send(message)

    def _request(self, method: str, params: Any) -> dict[str, Any]:
        child = self._child
        if child is None:
            raise AgentStartError("Codex is not running.")
        request_id = next(self._ids)
        done = threading.Event()
        box: list[dict[str, Any]] = []
        self._pending[request_id] = (done, box)
        if not child.send({"id": request_id, "method": method, "params": params}):
            self._pending.pop(request_id, None)
            raise AgentStartError("Codex stopped answering.")
        if not done.wait(_REQUEST_TIMEOUT_S) or not box:
            self._pending.pop(request_id, None)
            raise AgentStartError(f"Codex did not answer {method}.")
        answer = box[0]
        if "error" in answer:
            raise AgentStartError(f"Codex refused {method}.")
        result = answer.get("result")
        return result if isinstance(result, dict) else {}

    def _reply(self, request_id: Any, result: Any) -> None:
        if self._child is not None:
            self._child.send({"id": request_id, "result": result})

    def _on_exit(self, code: int | None) -> None:
        for done, _ in list(self._pending.values()):
            done.set()
        self._pending.clear()
        super()._on_exit(code)

    def _on_message(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            waiting = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
            if waiting is not None:
                waiting[1].append(message)
                waiting[0].set()
            return
        params = _dict(message.get("params"))
        if "id" in message:
            self._on_server_request(message["id"], str(method), params)
        else:
            self._on_notification(str(method), params)

    def _on_server_request(self, request_id: Any, method: str, params: dict[str, Any]) -> None:
        running = self._state.snapshot().state in (AgentState.RUNNING, AgentState.WAITING)
        if method in _APPROVALS:
            # Any turn of this thread while it runs: the turn id may not be known yet (an
            # approval can arrive before turn/start's answer is read).
            ok = (
                running and not self._stopping and params.get("threadId") in (None, self._thread_id)
            )
            if ok and not self._provider.approve:
                self._reply(request_id, {"decision": "decline"})
                return
            self._reply(request_id, {"decision": "accept" if ok else "cancel"})
            return
        if method == "item/tool/requestUserInput" and running and not self._stopping:
            questions = []
            for raw in params.get("questions") or []:
                if not isinstance(raw, dict):
                    continue
                options = raw.get("options") or []
                labels = tuple(
                    str(o.get("label")) for o in options if isinstance(o, dict) and o.get("label")
                )
                questions.append(
                    AgentQuestion(str(raw.get("id", "")), str(raw.get("question", "")), labels)
                )
            self._question_request = (request_id, [q.id for q in questions])
            self._state.ask(tuple(questions))
            return
        if self._child is not None:
            self._child.send(
                {
                    "id": request_id,
                    "error": {"code": -32601, "message": f"maple does not handle {method}"},
                }
            )

    def _on_notification(self, method: str, params: dict[str, Any]) -> None:
        if method == "item/completed":
            item = _dict(params.get("item"))
            kind = item.get("type")
            if kind == "commandExecution":
                code = item.get("exitCode")
                self._state.add_command(
                    str(item.get("command", "")), code if isinstance(code, int) else None
                )
            elif kind == "fileChange" and item.get("status") != "declined":
                changes = item.get("changes") or []
                self._state.add_files(
                    [str(c.get("path", "")) for c in changes if isinstance(c, dict)]
                )
            elif kind == "agentMessage" and isinstance(item.get("text"), str):
                self._state.update(last_message=item["text"])
        elif method == "turn/completed":
            status = _dict(params.get("turn")).get("status")
            if status == "completed":
                self._state.end_turn(AgentState.IDLE)
            elif status == "interrupted":
                self._state.end_turn(AgentState.CANCELLED)
            else:
                self._state.end_turn(AgentState.FAILED, "Codex reported the turn failed.")

    # -- the session ---------------------------------------------------------------------

    def begin(self, text: str) -> None:
        """Start (or resume) the thread and its next turn with ``text``."""
        with self._lock:
            self._stopping = False
            self._state.begin_turn()
            try:
                if self._child is None or not self._child.alive():
                    self._spawn()
                    if self._thread_id is None:
                        params: dict[str, Any] = {"cwd": self._cwd}
                        if self._model:
                            params["model"] = self._model
                        started = self._request("thread/start", params)
                    else:
                        started = self._request("thread/resume", {"threadId": self._thread_id})
                    thread = started.get("thread") if isinstance(started, dict) else None
                    if isinstance(thread, dict) and isinstance(thread.get("id"), str):
                        self._thread_id = thread["id"]
                    self._state.update(thread_id=self._thread_id)
                turn_params: dict[str, Any] = {
                    "threadId": self._thread_id,
                    "input": [{"type": "text", "text": text}],
                }
                if self._effort:
                    turn_params["effort"] = self._effort
                if self._model:
                    turn_params["model"] = self._model
                turn = self._request("turn/start", turn_params).get("turn")
                self._turn_id = turn.get("id") if isinstance(turn, dict) else None
            except AgentStartError as exc:
                self._state.end_turn(AgentState.FAILED, str(exc))
                if self._child is not None:
                    self._child.kill(grace=0.2)

    def _answer(self, text: str) -> bool:
        pending = self._question_request
        if pending is None:
            return False
        request_id, ids = pending
        self._question_request = None
        self._state.update(state=AgentState.RUNNING, questions=())
        self._reply(request_id, {"answers": {qid: {"answers": [text]} for qid in ids}})
        return True

    def _interrupt(self, child: Child) -> bool:
        if not (self._thread_id and self._turn_id):
            return False
        child.send(
            {
                "id": next(self._ids),
                "method": "turn/interrupt",
                "params": {"threadId": self._thread_id, "turnId": self._turn_id},
            }
        )
        return True
