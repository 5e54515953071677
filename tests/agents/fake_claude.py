"""A deterministic stand-in for ``claude`` in stream-json mode (Claude Code 2.1.332's shapes).

One process per turn; the session's turns are counted in a transcript under
``$HOME/.claude/projects`` so ``--resume`` works (and fails) as the real CLI does.
"""

from __future__ import annotations

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

replies: dict[str, queue.Queue[dict[str, Any]]] = {}
interrupted = threading.Event()


def transcript(session: str) -> Path:
    folder = str(Path.cwd().resolve()).replace("/", "-")
    return Path(os.environ["HOME"]) / ".claude" / "projects" / folder / f"{session}.jsonl"


def permission(tool: str, tool_input: dict[str, Any], tool_use_id: str) -> dict[str, Any]:
    request_id = uuid.uuid4().hex
    box: queue.Queue[dict[str, Any]] = queue.Queue()
    replies[request_id] = box
    emit(
        {
            "type": "control_request",
            "request_id": request_id,
            "request": {
                "subtype": "can_use_tool",
                "tool_name": tool,
                "input": tool_input,
                "tool_use_id": tool_use_id,
                "permission_suggestions": [],
            },
        }
    )
    answer = box.get()
    return answer.get("response", {}).get("response", {})


def assistant(session: str, content: dict[str, Any]) -> None:
    """One assistant message of ``session`` holding ``content`` (a text or a tool use)."""
    emit(
        {
            "type": "assistant",
            "session_id": session,
            "message": {"role": "assistant", "content": [content]},
        }
    )


def tool_result(tool_use_id: str, text: str, is_error: bool) -> None:
    emit(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_use_id,
                        "content": text,
                        "is_error": is_error,
                    }
                ],
            },
        }
    )


def play(session: str, index: int) -> None:
    last, is_error, subtype = "", False, "success"
    for step in turn_steps(index):
        if interrupted.is_set():
            break
        use_id = "toolu_" + uuid.uuid4().hex[:12]
        if "say" in step:
            last = step["say"]
            assistant(session, {"type": "text", "text": last})
        elif "run" in step or "write" in step:
            if "run" in step:
                name, tool_input = "Bash", {"command": step["run"]}
            else:
                path = str(Path.cwd() / step["write"])
                name, tool_input = "Write", {"file_path": path, "content": step.get("text", "")}
            assistant(
                session, {"type": "tool_use", "id": use_id, "name": name, "input": tool_input}
            )
            answer = permission(name, tool_input, use_id)
            if answer.get("behavior") != "allow":
                tool_result(use_id, answer.get("message", "denied"), True)
                continue
            if name == "Bash":
                code = run_shell(answer["updatedInput"]["command"], str(Path.cwd()))
                tool_result(use_id, f"exit {code}", code != 0)
            else:
                Path(answer["updatedInput"]["file_path"]).write_text(
                    answer["updatedInput"]["content"], encoding="utf-8"
                )
                tool_result(use_id, "File created", False)
        elif "ask" in step:
            tool_input = {
                "questions": [
                    {
                        "question": step["ask"],
                        "header": "Choose",
                        "options": [
                            {"label": o, "description": ""} for o in step.get("options", [])
                        ],
                        "multiSelect": False,
                    }
                ]
            }
            assistant(
                session,
                {"type": "tool_use", "id": use_id, "name": "AskUserQuestion", "input": tool_input},
            )
            answer = permission("AskUserQuestion", tool_input, use_id)
            chosen = answer.get("updatedInput", {}).get("answers", {}).get(step["ask"], "?")
            tool_result(use_id, f"User answered: {chosen}", False)
            last = f"You chose: {chosen}"
            assistant(session, {"type": "text", "text": last})
        elif "sleep" in step:
            sleeper = start_sleeper(step["sleep"])
            while sleeper.poll() is None and not interrupted.wait(0.05):
                pass
        elif "fail" in step:
            is_error, last = True, step["fail"]
            break
    if interrupted.is_set():
        is_error, subtype = True, "error_during_execution"
    path = transcript(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"turn": index}) + "\n")
    emit(
        {
            "type": "result",
            "subtype": subtype,
            "is_error": is_error,
            "result": None if interrupted.is_set() else last,
            "session_id": session,
            "num_turns": index + 1,
        }
    )


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"]:
        print("2.1.332 (Claude Code)")
        return
    if args[:3] == ["auth", "status", "--json"]:
        signed = os.environ.get("MAPLE_FAKE_SIGNED_IN") == "1"
        print(
            json.dumps(
                {
                    "loggedIn": signed,
                    "authMethod": "api_key" if signed else "none",
                    "email": "someone@example.com",
                }
            )
        )
        raise SystemExit(0 if signed else 1)
    if os.environ.get("MAPLE_FAKE_ARGV_LOG"):
        with open(os.environ["MAPLE_FAKE_ARGV_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps(args) + "\n")
    if any("dangerously" in a or a == "bypassPermissions" for a in args):
        raise SystemExit("fake claude: refusing a bypass-permissions flag")
    session = next(
        (a.split("=", 1)[1] for a in args if a.startswith(("--session-id=", "--resume="))), ""
    )
    resume = any(a.startswith("--resume=") for a in args)
    if resume and not transcript(session).exists():
        sys.stderr.write(f"No conversation found with session ID: {session}\n")
        raise SystemExit(1)
    if not resume and transcript(session).exists():
        sys.stderr.write(f"Session ID {session} is already in use.\n")
        raise SystemExit(1)
    index = sum(1 for _ in transcript(session).open()) if resume else 0
    sys.stderr.write("fake claude: secret stderr that must never reach a caller\n")
    if os.environ.get("MAPLE_FAKE_ENV_LOG"):
        Path(os.environ["MAPLE_FAKE_ENV_LOG"]).write_text(json.dumps(dict(os.environ)))
    started = False
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "user" and not started:
            started = True
            emit(
                {
                    "type": "system",
                    "subtype": "init",
                    "session_id": session,
                    "permissionMode": "default",
                    "cwd": str(Path.cwd()),
                }
            )
            threading.Thread(target=play, args=(session, index), daemon=True).start()
        elif kind == "control_response":
            box = replies.pop(message.get("response", {}).get("request_id"), None)
            if box is not None:
                box.put(message)
        elif kind == "control_request" and message.get("request", {}).get("subtype") == "interrupt":
            interrupted.set()
            emit(
                {
                    "type": "control_response",
                    "response": {
                        "subtype": "success",
                        "request_id": message.get("request_id"),
                        "response": {"still_queued": []},
                    },
                }
            )


if __name__ == "__main__":
    main()
