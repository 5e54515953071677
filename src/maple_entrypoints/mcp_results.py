"""How every ``maple-mcp`` tool is registered and answers: one error boundary, results in two forms.

A tool is declared by its function: its name, its docstring (title and description) and its
arguments. A result carries structured content and the same JSON, two-space indented, as text;
maple's errors become tool errors whose messages name the fix.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from maple_core.errors import MapleError
from maple_core.inert_text import framed_json
from maple_core.text import without_lone_surrogates

__all__ = [
    "add_tool",
    "tool_errors",
    "tool_result",
]

P = ParamSpec("P")


R = TypeVar("R")


def tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """The tools' one error boundary: maple's errors become tool errors the model can read.

    Their messages name the fix. Wraps a plain or an ``async`` tool; anything other than a
    ``MapleError`` is left to the SDK.
    """
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def awaited(*args: P.args, **kwargs: P.kwargs) -> Any:
            try:
                return await fn(*args, **kwargs)
            except MapleError as exc:
                raise ToolError(str(exc)) from exc

        return cast(Callable[P, R], awaited)

    @functools.wraps(fn)
    def called(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except MapleError as exc:
            raise ToolError(str(exc)) from exc

    return called


def add_tool(
    server: MCPServer,
    tool: Callable[..., Any],
    annotations: ToolAnnotations,
    *,
    name: str | None = None,
) -> None:
    """Register ``tool`` on ``server``, behind :func:`tool_errors`, as its function declares it.

    Named as the function is (or ``name``); its docstring's first line, without the full stop,
    is the title, and the paragraphs after it, as one, are the description.
    """
    title, _, description = (inspect.getdoc(tool) or "").partition("\n\n")
    server.tool(
        name=name,
        title=title.removesuffix("."),
        description=" ".join(description.split()),
        annotations=annotations,
    )(tool_errors(tool))


def tool_result(
    text_value: object, structured: dict[str, Any], *, reviewers: bool = True
) -> CallToolResult:
    """Structured content, and the same JSON as text.

    When the result holds ``reviewers``' words, the text frames the JSON as their data (see
    :func:`~maple_core.text.framed_json`), which no comment can step outside of.
    """
    text = json.dumps(text_value, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # JavaScript can store half an emoji; the wire must be valid UTF-8 or the client drops us.
        text_value = without_lone_surrogates(text_value)
        structured = cast(dict[str, Any], without_lone_surrogates(structured))
        text = json.dumps(text_value, indent=2, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=framed_json(text) if reviewers else text)],
        structured_content=structured,
    )
