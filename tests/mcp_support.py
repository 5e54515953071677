"""Start ``maple-mcp`` as a subprocess and talk to it with the official MCP client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from maple_core.text import REVIEW_DATA_NOTE, REVIEW_DATA_NOTICE

MAPLE_MCP = Path(sys.executable).with_name("maple-mcp")


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without any MAPLE_ or GITHUB_ variable, plus ``extra``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))}
    return {**base, **extra}


@asynccontextmanager
async def stdio_server(cwd: Path, **env: str) -> AsyncIterator[Client]:
    """A connected client of a ``maple-mcp`` process started in ``cwd``."""
    params = StdioServerParameters(command=str(MAPLE_MCP), cwd=cwd, env=clean_env(**env))
    async with Client(params) as connected:
        yield connected


def text_json(text: str) -> Any:
    """The JSON a tool's text carries: framed as reviewers' data, or bare."""
    if text.startswith(REVIEW_DATA_NOTE):
        head, _, rest = text.partition("\n<maple-review-data>\n")
        assert head == REVIEW_DATA_NOTE
        inner, _, tail = rest.rpartition("\n</maple-review-data>")
        assert tail == ""
        assert not {"<", ">"} & set(inner)  # nothing can close the frame early
        return json.loads(inner)
    return json.loads(text)


def structured(result: Any) -> Any:
    """The structured content of a successful tool result, checked against its text."""
    assert not result.is_error, result.content
    text = text_json(result.content[0].text)
    data = result.structured_content
    if "notice" in data:  # results that carry reviewers' words say so first, for every client
        assert data["notice"] == REVIEW_DATA_NOTICE
        assert next(iter(data)) == "notice"
        data = {k: v for k, v in data.items() if k != "notice"}
    assert (data["result"] if set(data) == {"result"} else data) == text
    return data["result"] if set(data) == {"result"} else data


def error_text(result: Any) -> str:
    """The message of a tool error."""
    assert result.is_error, result.structured_content
    return str(result.content[0].text)
