"""The official MCP client over Streamable HTTP, carrying a bearer token, as a cloud agent is."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.client import Client
from mcp.client.extension import ClientExtension
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

__all__ = ["http_client"]


@asynccontextmanager
async def http_client(
    url: str, token: str | None, *, extensions: list[ClientExtension] | None = None
) -> AsyncIterator[Client]:
    """A connected client of the MCP endpoint at ``url``, sending ``token`` on every request."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, extensions=extensions) as client:
            yield client
