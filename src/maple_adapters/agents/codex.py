"""Codex through ``codex app-server``: newline-delimited JSON-RPC over the child's stdio.

One app-server per agent. maple sends only the prompt, the working directory and one feature
flag (``default_mode_request_user_input``, so Codex can ask questions); Codex's own sandbox and
approval policy decide what it may do, and maple accepts every approval it asks for while the
turn runs (never ``acceptForSession``), and cancels any that arrives after.

Codex hands an MCP server only the variables its configuration names, so a provider's
``marks`` reach each of the servers ``codex mcp list`` names as a ``-c`` override of that
server's ``env``.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from maple_adapters.agents.process import Child, CliProvider, scoped_environment
from maple_adapters.agents.session import GENERIC_FAILURE, AgentStartError, SessionState
from maple_core.agents import AgentQuestion, AgentRun, AgentState, ProviderInfo

__all__ = ["CodexProvider", "CodexSession"]

_CLIENT_NAME = "codex_app_server_daemon"  # non-originating: the user's originator is kept
_FEATURE = "features.default_mode_request_user_input=true"
_REQUEST_TIMEOUT_S = 30.0
_INTERRUPT_WAIT_S = 2.0
_APPROVALS = frozenset(
    {
        "item/commandExecution/requestApproval",
        "item/fileChange/requestApproval",
    }
)

_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a bare TOML key: one a -c path can name

_first_start_locks: dict[str, threading.Lock] = {}
_warmed: set[str] = set()
_guard = threading.Lock()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _codex_home(env: Mapping[str, str]) -> str:
    home = env.get("CODEX_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".codex")
    return str(Path(home).expanduser().resolve())


class CodexSession:
    """One Codex thread, driven through its own ``codex app-server`` child."""

    def __init__(
        self,
        provider: CodexProvider,
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
        self._state = SessionState("codex", agent_id, on_turn_end)
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self._child: Child | None = None
        self._thread_id = thread_id  # a saved thread is resumed
        self._turn_id: str | None = None
        self._question_request: Any = None
        self._stopping = False
        self._generation = 0

    # -- the child and JSON-RPC ----------------------------------------------------------

    def _spawn(self) -> None:
        env = scoped_environment(self._provider.env)
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
        if self._stopping:
            self._state.end_turn(AgentState.CANCELLED)
        else:
            self._state.end_turn(AgentState.FAILED, GENERIC_FAILURE)

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

    def snapshot(self) -> AgentRun:
        """The agent as it stands."""
        return self._state.snapshot()

    def send(self, text: str) -> None:
        """Answer a pending question, or start another turn in the same thread."""
        pending = self._question_request
        if pending is not None and self._state.snapshot().state is AgentState.WAITING:
            request_id, ids = pending
            self._question_request = None
            self._state.update(state=AgentState.RUNNING, questions=())
            self._reply(request_id, {"answers": {qid: {"answers": [text]} for qid in ids}})
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
        """Interrupt the turn, wait briefly, then kill the app-server's process group."""
        with self._lock:
            self._stopping = True
            child = self._child
            if child is not None and child.alive():
                if self._thread_id and self._turn_id:
                    child.send(
                        {
                            "id": next(self._ids),
                            "method": "turn/interrupt",
                            "params": {"threadId": self._thread_id, "turnId": self._turn_id},
                        }
                    )
                    self._state.wait(_INTERRUPT_WAIT_S)
                child.kill()
            self._child = None
            self._state.end_turn(AgentState.CANCELLED)
            return self._state.snapshot()

    def close(self) -> None:
        """Kill the app-server and everything it started."""
        self._stopping = True
        if self._child is not None:
            self._child.kill(grace=0.5)
            self._child = None


class CodexProvider(CliProvider[CodexSession]):
    """Codex, found as ``binary`` on the ``PATH`` (``codex`` by default).

    Args:
        binary: the executable to run.
        env: extra environment for the child (tests point ``CODEX_HOME`` at a private folder).
        approve: see :class:`~maple_adapters.agents.process.CliProvider`.
        marks: variables for the agent, its commands and every stdio MCP server it starts.
    """

    def __init__(
        self,
        binary: str = "codex",
        env: Mapping[str, str] | None = None,
        *,
        approve: bool = True,
        marks: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(binary, env, approve=approve, marks=marks)

    @property
    def name(self) -> str:
        """``codex``."""
        return "codex"

    def server_marks(self, cwd: str) -> list[str]:
        """The ``-c`` overrides that set :attr:`marks` in every stdio MCP server's ``env``.

        Raises:
            AgentStartError: the servers cannot be listed, or one has a name no override can
                reach: an agent that must carry the marks is not started without them.
        """
        if not self.marks:
            return []
        listed = self.run_quietly("mcp", "list", "--json", cwd=cwd)
        try:
            servers = json.loads(listed.stdout) if listed and listed.returncode == 0 else None
        except ValueError:
            servers = None
        if not isinstance(servers, list):
            raise AgentStartError(
                "`codex mcp list --json` did not list Codex's MCP servers, so maple cannot tell "
                "them nobody watches this agent; upgrade Codex (0.163 or later)."
            )
        overrides: list[str] = []
        for server in servers:
            stdio = (
                isinstance(server, dict) and _dict(server.get("transport")).get("type") == "stdio"
            )
            if not stdio:
                continue
            name = str(server.get("name"))
            if not _SERVER_NAME.fullmatch(name):
                raise AgentStartError(
                    f"Codex's MCP server {name[:60]!r} has a name maple cannot configure, so it "
                    "cannot be told nobody watches this agent; rename it with letters, digits, "
                    "'-' and '_' only."
                )
            for variable, value in sorted(self.marks.items()):
                overrides += ["-c", f"mcp_servers.{name}.env.{variable}={json.dumps(value)}"]
        return overrides

    def detect(self) -> ProviderInfo:
        """``codex --version`` and ``codex login status``."""
        version = self.run_quietly("--version")
        if version is None or version.returncode != 0:
            return ProviderInfo(
                "codex",
                installed=False,
                guidance="Install Codex (npm install -g @openai/codex), then run `codex login`.",
            )
        text = version.stdout.strip().split()
        number = text[-1] if text else None
        status = self.run_quietly("login", "status")
        signed_in = None if status is None else status.returncode == 0
        guidance = (
            "Ready." if signed_in else "Run `codex login` in a terminal; maple cannot sign in."
        )
        if signed_in is None:
            guidance = "Could not tell whether Codex is signed in; run `codex login status`."
        return ProviderInfo("codex", True, number, signed_in, guidance)

    def _session(
        self,
        agent_id: str,
        cwd: str,
        model: str | None,
        effort: str | None,
        on_turn_end: Callable[[AgentRun], None] | None,
        thread_id: str | None,
    ) -> CodexSession:
        return CodexSession(self, agent_id, cwd, model, effort, on_turn_end, thread_id)
