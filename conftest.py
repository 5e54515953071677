"""Repository-wide pytest set-up: strict mode turns a skipped test into a failure."""

from __future__ import annotations

import os

import pytest

STRICT = os.environ.get("MAPLE_TEST_STRICT") == "1"


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
