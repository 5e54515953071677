"""The external-agent tools' result shapes, as the MCP client reads their structured content."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

__all__ = [
    "AgentCommandModel",
    "AgentQuestionModel",
    "AgentRunModel",
    "ProviderModel",
    "ProvidersModel",
]


class AgentCommandModel(BaseModel):
    """A command the agent ran."""

    command: str
    exitCode: int | None = None  # noqa: N815 - the JSON key


class AgentQuestionModel(BaseModel):
    """A question the agent asked."""

    id: str
    question: str
    options: list[str]
    multiSelect: bool  # noqa: N815 - the JSON key


class AgentRunModel(BaseModel):
    """An agent as it stands; the text content is the same run as the model reads it."""

    provider: str
    agentId: str  # noqa: N815
    threadId: str | None  # noqa: N815
    status: Literal["running", "waiting", "idle", "failed", "cancelled"]
    filesChanged: list[str]  # noqa: N815
    commands: list[AgentCommandModel]
    lastMessage: str  # noqa: N815
    questions: list[AgentQuestionModel]
    error: str | None
    turns: int


class ProviderModel(BaseModel):
    """One provider: installed, version, signed in, and what to do next."""

    provider: str
    installed: bool
    version: str | None
    signedIn: bool | None  # noqa: N815
    guidance: str


class ProvidersModel(BaseModel):
    """``list_agent_providers``' result."""

    providers: list[ProviderModel]
