"""A scripted loopback model for the real ``codex`` and ``claude`` binaries.

It answers OpenAI's Responses API (``POST /v1/responses``, what Codex calls) and Anthropic's
Messages API (``POST /v1/messages``, what Claude Code calls) with server-sent events, playing a
scenario (see ``contract_tests/agent_peers.py``). Which step comes next is read from the request
itself (how many user turns, how many tool calls since the last one), so concurrent agents and
resumed threads each get their own place in the script.

A step may be ``{"stall": seconds, "then": step}``: the answer waits that long first (a model
that hangs). :attr:`ScriptedModel.answer` (a function of the first prompt and the step's index),
when set, chooses every step instead of the scenario.

For Claude Code a step may also be ``{"use": tool name, "input": {...}}`` (any tool, such as an
MCP server's ``mcp__<server>__<tool>``), and a step may be a function of the tool calls made so
far in the whole conversation (:func:`exchanges`) that returns the step to play, so a scripted
model can act on what its tools actually answered.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

Step = dict[str, Any] | Callable[[list[dict[str, Any]]], dict[str, Any]]
Scenario = list[list[Step]]


def _sse(events: list[tuple[str, dict[str, Any]]]) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        for name, data in events:
            yield f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

    return StreamingResponse(body(), media_type="text/event-stream")


def _patch(path: str, text: str) -> str:
    added = "".join(f"+{line}\n" for line in text.splitlines())
    return (
        f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch\nEOF\n"
    )


class ScriptedModel:
    """The scenario being played, and the requests seen (for assertions)."""

    def __init__(self, pids: Path, workspace: Path) -> None:
        self.scenario: Scenario = []
        # A conversation whose first prompt holds one of these marks plays its scenario instead
        # (an agent that another agent started, say, talking to the same model).
        self.by_prompt: dict[str, Scenario] = {}
        self.pids = pids
        self.workspace = workspace
        self.requests: list[dict[str, Any]] = []
        self.arrivals: list[float] = []  # time.monotonic() as each request arrived
        self.fail_when: str | None = None  # every request holding this text fails while set
        self.sleep_marks: list[str] = []  # a sandboxed command's pid is not ours: find it by mark
        self.answer: Callable[[str, int], Step] | None = None
        self.app = Starlette(
            routes=[
                Route("/v1/responses", self.responses, methods=["POST"]),
                Route("/v1/messages", self.messages, methods=["POST"]),
                Route("/v1/messages/count_tokens", self.count_tokens, methods=["POST"]),
            ]
        )

    def _sleeper(self, seconds: float) -> str:
        mark = f"{int(seconds)}.{uuid.uuid4().int % 10**6:06d}"
        self.sleep_marks.append(mark)
        return f"timeout {mark} tail -f /dev/null"  # Claude Code's Bash refuses a bare sleep

    def _record(self, body: dict[str, Any]) -> None:
        self.requests.append(body)
        self.arrivals.append(time.monotonic())

    def _forced_failure(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """A failing step when the request holds :attr:`fail_when` (a client may retry it)."""
        mark = self.fail_when
        if mark is None or mark not in json.dumps(body, ensure_ascii=False):
            return None
        return {"fail": f"scripted failure on {mark}"}

    def _step(self, turn: int, step: int, first_prompt: str = "") -> Step | None:
        if self.answer is not None:
            return self.answer(first_prompt, step)
        scenario = next(
            (s for mark, s in self.by_prompt.items() if mark in first_prompt), self.scenario
        )
        steps = scenario[turn] if turn < len(scenario) else [{"say": "(unscripted)"}]
        return steps[step] if step < len(steps) else None

    # -- Codex: the Responses API ---------------------------------------------------------

    async def responses(self, request: Request) -> Response:
        body = await request.json()
        self._record(body)
        items = body.get("input") or []
        users = [
            i
            for i, item in enumerate(items)
            if item.get("type") == "message"
            and item.get("role") == "user"
            and not _text_of(item).lstrip().startswith("<")
        ]
        turn = len(users) - 1
        since = items[users[-1] + 1 :] if users else []
        calls = [i for i in since if i.get("type") == "function_call"]
        step = self._step(turn, len(calls), _text_of(items[users[0]]) if users else "")
        outputs = [i for i in since if i.get("type") == "function_call_output"]
        rid = "resp_" + uuid.uuid4().hex[:12]
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        if step is None:
            last = calls[-1] if calls else {}
            if last.get("name") == "request_user_input" and outputs:
                step = {"say": f"You chose: {_first_answer(outputs[-1].get('output'))}"}
            else:
                step = {"say": "Done."}
        step = self._forced_failure(body) or await _stalled(step)
        if "fail" in step:
            failed = {
                "id": rid,
                "status": "failed",
                "error": {"code": "server_error", "message": step["fail"]},
            }
            return _sse(
                [
                    ("response.created", {"type": "response.created", "response": {"id": rid}}),
                    ("response.failed", {"type": "response.failed", "response": failed}),
                ]
            )
        if "say" in step:
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": "msg_" + uuid.uuid4().hex[:8],
                "content": [{"type": "output_text", "text": step["say"], "annotations": []}],
            }
        else:
            namespace = None
            if "use" in step:  # an MCP tool, named as Claude Code names it: mcp__<server>__<tool>
                _, server, name = step["use"].split("__", 2)
                namespace, arguments = f"mcp__{server}", step.get("input", {})
            elif "run" in step:
                name, arguments = "exec_command", {"cmd": step["run"]}
                if step.get("escalate"):  # outside the sandbox: Codex asks for approval first
                    arguments |= {
                        "sandbox_permissions": "require_escalated",
                        "justification": "The reviewer asked for it.",
                    }
            elif "write" in step:
                name, arguments = (
                    "exec_command",
                    {"cmd": _patch(step["write"], step.get("text", ""))},
                )
            elif "sleep" in step:
                name, arguments = (
                    "exec_command",
                    {"cmd": self._sleeper(step["sleep"]), "yield_time_ms": 600000},
                )
            else:  # ask
                name = "request_user_input"
                arguments = {
                    "questions": [
                        {
                            "id": "q1",
                            "header": "Choose",
                            "question": step["ask"],
                            "options": [
                                {"label": o, "description": o} for o in step.get("options", [])
                            ],
                        }
                    ]
                }
            item = {
                "type": "function_call",
                "id": "fc_" + uuid.uuid4().hex[:8],
                "call_id": "call_" + uuid.uuid4().hex[:8],
                "name": name,
                "arguments": json.dumps(arguments),
            }
            if namespace is not None:  # Codex offers an MCP server's tools as one namespace
                item["namespace"] = namespace
        return _sse(
            [
                ("response.created", {"type": "response.created", "response": {"id": rid}}),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {"type": "response.completed", "response": {"id": rid, "usage": usage}},
                ),
            ]
        )

    # -- Claude Code: the Messages API ----------------------------------------------------

    async def count_tokens(self, request: Request) -> Response:
        return JSONResponse({"input_tokens": 10})

    async def messages(self, request: Request) -> Response:
        body = await request.json()
        self._record(body)
        messages = body.get("messages") or []
        users = [i for i, m in enumerate(messages) if m.get("role") == "user" and _is_prompt(m)]
        turn = len(users) - 1
        since = messages[users[-1] + 1 :] if users else []
        uses = [
            b
            for m in since
            if m.get("role") == "assistant"
            for b in _blocks(m)
            if b.get("type") == "tool_use"
        ]
        results = [
            b
            for m in since
            if m.get("role") == "user"
            for b in _blocks(m)
            if b.get("type") == "tool_result"
        ]
        scripted = self._step(turn, len(uses), _text_of(messages[users[0]]) if users else "")
        step = scripted(exchanges(messages)) if callable(scripted) else scripted
        if step is None:
            last = uses[-1] if uses else {}
            if last.get("name") == "AskUserQuestion" and results:
                options = last.get("input", {}).get("questions", [{}])[0].get("options", [])
                content = results[-1].get("content")
                said = content if isinstance(content, str) else _text_of({"content": content})
                chosen = next((o["label"] for o in options if f'"{o["label"]}"' in said), "?")
                step = {"say": f"You chose: {chosen}"}
            else:
                step = {"say": "Done."}
        step = self._forced_failure(body) or await _stalled(step)
        if "fail" in step:
            return JSONResponse(
                {
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": step["fail"]},
                },
                status_code=400,
            )
        model = body.get("model", "claude-fake")
        message_id = "msg_" + uuid.uuid4().hex[:12]
        start = {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
        if "say" in step:
            block_start = {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
            delta = {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": step["say"]},
            }
            stop_reason = "end_turn"
        else:
            if "use" in step:
                name, tool_input = step["use"], step.get("input", {})
            elif "run" in step:
                name, tool_input = "Bash", {"command": step["run"], "description": "Run it"}
            elif "write" in step:
                path = str(self.workspace / step["write"])  # Claude's Write takes absolute paths
                name, tool_input = "Write", {"file_path": path, "content": step.get("text", "")}
            elif "sleep" in step:
                name, tool_input = (
                    "Bash",
                    {
                        "command": self._sleeper(step["sleep"]),
                        "description": "Wait",
                        "timeout": 600000,
                    },
                )
            else:
                name, tool_input = (
                    "AskUserQuestion",
                    {
                        "questions": [
                            {
                                "question": step["ask"],
                                "header": "Choose",
                                "multiSelect": False,
                                "options": [
                                    {"label": o, "description": o} for o in step.get("options", [])
                                ],
                            }
                        ]
                    },
                )
            block_start = {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_" + uuid.uuid4().hex[:12],
                    "name": name,
                    "input": {},
                },
            }
            delta = {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool_input)},
            }
            stop_reason = "tool_use"
        return _sse(
            [
                ("message_start", start),
                ("content_block_start", block_start),
                ("content_block_delta", delta),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )


async def _stalled(step: dict[str, Any]) -> dict[str, Any]:
    """The step to play once a ``stall`` step has waited (any other step as it is)."""
    if "stall" not in step:
        return step
    await asyncio.sleep(float(step["stall"]))
    then = step.get("then")
    return then if isinstance(then, dict) else {"say": "Done."}


def exchanges(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call in a Messages-API conversation, oldest first, with what it returned.

    Each is ``{"name", "input", "result" (the result's text), "is_error"}``; a call not answered
    yet has ``result`` ``None``.
    """
    results = {
        b.get("tool_use_id"): b
        for m in messages
        if m.get("role") == "user"
        for b in _blocks(m)
        if b.get("type") == "tool_result"
    }
    calls = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for block in _blocks(message):
            if block.get("type") != "tool_use":
                continue
            result = results.get(block.get("id"))
            content = None if result is None else result.get("content")
            calls.append(
                {
                    "name": block.get("name"),
                    "input": block.get("input") or {},
                    "result": content
                    if isinstance(content, str) or content is None
                    else _text_of({"content": content}),
                    "is_error": bool(result and result.get("is_error")),
                }
            )
    return calls


def _text_of(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content or [] if isinstance(c, dict))


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _is_prompt(message: dict[str, Any]) -> bool:
    blocks = _blocks(message)
    if any(b.get("type") == "tool_result" for b in blocks):
        return False
    return any(
        b.get("type") == "text" and not b.get("text", "").lstrip().startswith("<") for b in blocks
    )


def _first_answer(output: Any) -> str:
    try:
        data = json.loads(output) if isinstance(output, str) else output
        return str(data["answers"]["q1"]["answers"][0])
    except (ValueError, KeyError, TypeError, IndexError):
        return "?"
