"""A deterministic stand-in for ``codex app-server``: the JSON-RPC shapes of Codex 0.163.

Turns are played from ``MAPLE_FAKE_SCRIPT``; threads are remembered under ``CODEX_HOME`` so a
new process can resume one.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fake_common import emit, run_shell, start_sleeper, turn_steps

HOME = Path(os.environ.get("CODEX_HOME", "/tmp/fake-codex-home"))
replies: dict[int, queue.Queue[dict[str, Any]]] = {}
server_ids = itertools.count(0)
interrupted = threading.Event()
state: dict[str, Any] = {"thread": None, "cwd": os.getcwd(), "initialized": False}


def thread_file(thread_id: str) -> Path:
    return HOME / "fake-threads" / f"{thread_id}.json"


def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
    request_id = next(server_ids)
    box: queue.Queue[dict[str, Any]] = queue.Queue()
    replies[request_id] = box
    emit({"id": request_id, "method": method, "params": params})
    return box.get()


def play(thread_id: str, turn_id: str, index: int) -> None:
    cwd = state["cwd"]
    status, error = "completed", None
    for step in turn_steps(index):
        if interrupted.is_set():
            status = "interrupted"
            break
        item_id = uuid.uuid4().hex
        if "say" in step:
            emit(
                {
                    "method": "item/completed",
                    "params": {
                        "threadId": thread_id,
                        "turnId": turn_id,
                        "item": {"type": "agentMessage", "id": item_id, "text": step["say"]},
                    },
                }
            )
        elif "run" in step:
            answer = ask(
                "item/commandExecution/requestApproval",
                {
                    "threadId": thread_id,
                    "turnId": turn_id,
                    "itemId": item_id,
                    "command": step["run"],
                },
            )
            decision = answer.get("result", {}).get("decision")
            if decision == "accept":
                code = run_shell(step["run"], cwd)
                item = {
                    "type": "commandExecution",
                    "id": item_id,
                    "command": step["run"],
                    "exitCode": code,
                    "status": "completed" if code == 0 else "failed",
                }
            else:
                item = {
                    "type": "commandExecution",
                    "id": item_id,
                    "command": step["run"],
                    "exitCode": None,
                    "status": "declined",
                }
            emit({"method": "item/completed", "params": {"threadId": thread_id, "item": item}})
        elif "write" in step:
            path = str(Path(cwd) / step["write"])
            answer = ask(
                "item/fileChange/requestApproval",
                {"threadId": thread_id, "turnId": turn_id, "itemId": item_id},
            )
            accepted = answer.get("result", {}).get("decision") == "accept"
            if accepted:
                Path(path).write_text(step.get("text", ""), encoding="utf-8")
            emit(
                {
                    "method": "item/completed",
                    "params": {
                        "threadId": thread_id,
                        "item": {
                            "type": "fileChange",
                            "id": item_id,
                            "status": "completed" if accepted else "declined",
                            "changes": [{"path": path, "kind": {"type": "add"}, "diff": ""}],
                        },
                    },
                }
            )
        elif "ask" in step:
            answer = ask(
                "item/tool/requestUserInput",
                {
                    "threadId": thread_id,
                    "turnId": turn_id,
                    "itemId": item_id,
                    "isBlocking": True,
                    "questions": [
                        {
                            "id": "q1",
                            "header": "Choose",
                            "question": step["ask"],
                            "isOther": False,
                            "isSecret": False,
                            "options": [
                                {"label": o, "description": ""} for o in step.get("options", [])
                            ],
                        }
                    ],
                },
            )
            chosen = answer.get("result", {}).get("answers", {}).get("q1", {}).get("answers", ["?"])
            emit(
                {
                    "method": "item/completed",
                    "params": {
                        "threadId": thread_id,
                        "item": {
                            "type": "agentMessage",
                            "id": item_id,
                            "text": f"You chose: {chosen[0]}",
                        },
                    },
                }
            )
        elif "sleep" in step:
            sleeper = start_sleeper(step["sleep"])
            while sleeper.poll() is None and not interrupted.wait(0.05):
                pass
            if interrupted.is_set():  # like Codex: the command keeps running after an interrupt
                status = "interrupted"
                break
        elif "fail" in step:
            status, error = "failed", {"message": step["fail"]}
            break
    record = json.loads(thread_file(thread_id).read_text())
    record["turns"] += 1
    thread_file(thread_id).write_text(json.dumps(record))
    turn: dict[str, Any] = {"id": turn_id, "status": status, "items": [], "error": error}
    emit({"method": "turn/completed", "params": {"threadId": thread_id, "turn": turn}})


def handle(message: dict[str, Any]) -> None:
    method, params, request_id = (
        message.get("method"),
        message.get("params") or {},
        message.get("id"),
    )
    if method is None:
        box = replies.pop(request_id, None)
        if box is not None:
            box.put(message)
        return
    if request_id is None:
        return
    if method != "initialize" and not state["initialized"]:
        emit({"id": request_id, "error": {"code": -32600, "message": "Not initialized"}})
        return
    if method == "initialize":
        state["initialized"] = True
        if os.environ.get("MAPLE_FAKE_ARGV_LOG"):
            with open(os.environ["MAPLE_FAKE_ARGV_LOG"], "a", encoding="utf-8") as log:
                log.write(json.dumps({"initialize": params}) + "\n")
        emit(
            {
                "id": request_id,
                "result": {
                    "userAgent": f"{params['clientInfo']['name']}/0.163.0",
                    "codexHome": str(HOME),
                    "platformFamily": "unix",
                    "platformOs": "linux",
                },
            }
        )
    elif method in ("thread/start", "thread/resume"):
        if method == "thread/start":
            thread_id = str(uuid.uuid4())
            state["cwd"] = params.get("cwd") or os.getcwd()
            thread_file(thread_id).parent.mkdir(parents=True, exist_ok=True)
            thread_file(thread_id).write_text(json.dumps({"turns": 0, "cwd": state["cwd"]}))
        else:
            thread_id = params.get("threadId", "")
            if not thread_file(thread_id).exists():
                emit({"id": request_id, "error": {"code": -32600, "message": "no rollout found"}})
                return
            state["cwd"] = json.loads(thread_file(thread_id).read_text())["cwd"]
        state["thread"] = thread_id
        emit(
            {
                "id": request_id,
                "result": {
                    "thread": {"id": thread_id, "status": "idle"},
                    "model": "fake",
                    "cwd": state["cwd"],
                },
            }
        )
    elif method == "turn/start":
        thread_id = params.get("threadId")
        turn_id = str(uuid.uuid4())
        interrupted.clear()
        index = json.loads(thread_file(thread_id).read_text())["turns"]
        emit(
            {
                "id": request_id,
                "result": {"turn": {"id": turn_id, "status": "inProgress", "items": []}},
            }
        )
        threading.Thread(target=play, args=(thread_id, turn_id, index), daemon=True).start()
    elif method == "turn/interrupt":
        interrupted.set()
        emit({"id": request_id, "result": {}})
    else:
        emit({"id": request_id, "error": {"code": -32601, "message": f"unknown method {method}"}})


def main() -> None:
    if sys.argv[1:2] == ["--version"]:
        print("codex-cli 0.163.0")
        return
    if sys.argv[1:3] == ["login", "status"]:
        signed = os.environ.get("MAPLE_FAKE_SIGNED_IN") == "1"
        print("Logged in using an API key" if signed else "Not logged in")
        raise SystemExit(0 if signed else 1)
    if sys.argv[1:4] == ["mcp", "list", "--json"]:  # the servers MAPLE_FAKE_MCP_SERVERS names
        servers = os.environ.get("MAPLE_FAKE_MCP_SERVERS", "[]")
        if servers == "fail":
            raise SystemExit("Error: failed to load configuration")
        print(servers)
        return
    if sys.argv[1:2] != ["app-server"]:
        raise SystemExit(f"fake codex: unexpected arguments {sys.argv[1:]}")
    if os.environ.get("MAPLE_FAKE_ARGV_LOG"):
        with open(os.environ["MAPLE_FAKE_ARGV_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps(sys.argv[1:]) + "\n")
    sys.stderr.write("fake codex: secret stderr that must never reach a caller\n")
    if os.environ.get("MAPLE_FAKE_ENV_LOG"):
        Path(os.environ["MAPLE_FAKE_ENV_LOG"]).write_text(json.dumps(dict(os.environ)))
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        threading.Thread(target=handle, args=(message,), daemon=True).start()


if __name__ == "__main__":
    main()
