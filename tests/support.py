"""What many tests share: the programs under test, a clean environment, and running ``maple``.

Fixtures shared by several test files are in ``tests/conftest.py``; helpers for one area stay
beside it (``mcp_support.py`` for MCP clients, ``route_support.py`` for a live route).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.github.fake_github import Served

__all__ = [
    "APP_ID",
    "HOOK",
    "INSTALLATION",
    "MAPLE",
    "MAPLE_MCP",
    "clean_env",
    "gate_app_environment",
    "maple",
    "publish_gate",
    "start_maple",
]

MAPLE = Path(sys.executable).with_name("maple")
EVENTS = Path(__file__).parent / "github" / "events"
"""Recorded GitHub Actions event payloads (``pull_request.json``, ``push.json``, …)."""
MAPLE_MCP = Path(sys.executable).with_name("maple-mcp")
HOOK = Path(sys.executable).with_name("maple-stop-hook")

APP_ID = 4242
"""The gate App the fake GitHub installs (``app_key`` in ``tests/conftest.py`` is its key)."""
INSTALLATION = 77
"""Its installation on ``acme/web``."""


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without any MAPLE_ or GITHUB_ variable, plus ``extra``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))}
    return {**base, **extra}


def maple(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60, **extra: str
) -> subprocess.CompletedProcess[str]:
    """Run ``maple args…`` in ``cwd`` and capture its output (it may fail).

    The environment is ``env`` when given, else the test's own without maple's variables, plus
    ``extra``.
    """
    return subprocess.run(
        [str(MAPLE), *args],
        cwd=cwd,
        env={**(env if env is not None else clean_env()), **extra},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_maple(cwd: Path, *args: str) -> subprocess.Popen[str]:
    """Start ``maple args…`` in ``cwd``, without maple's variables, its output piped as text (a
    long-running command the test reads from and then interrupts)."""
    return subprocess.Popen(
        [str(MAPLE), *args],
        cwd=cwd,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def gate_app_environment(api_url: str, private_key: str, **extra: str) -> dict[str, str]:
    """A route server's variables for ``acme/web`` on the GitHub at ``api_url``, as the gate App."""
    return {
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "MAPLE_GITHUB_API": api_url,
        "MAPLE_GATE_APP_ID": str(APP_ID),
        "MAPLE_GATE_INSTALLATION_ID": str(INSTALLATION),
        "MAPLE_GATE_PRIVATE_KEY": private_key,
        **extra,
    }


def publish_gate(
    served: Served, event: str = "pull_request.json", *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``maple gate publish --json args…`` as a workflow on the recorded ``event`` runs it,
    against the fake GitHub ``served`` for ``acme/web``, plus ``env`` (it may fail)."""
    from contract_tests.github_peers import TOKEN

    name = event.removesuffix(".json")
    for variant in ("_fork", "_bot", "_stranger", "_issue"):
        name = name.removesuffix(variant)
    return subprocess.run(
        [str(MAPLE), "gate", "publish", "--json", *args],
        env=clean_env(
            **{
                "GITHUB_EVENT_NAME": name,
                "GITHUB_EVENT_PATH": str(EVENTS / event),
                "GITHUB_TOKEN": TOKEN,
                "GITHUB_API_URL": served.base_url,
                "GITHUB_REPOSITORY": "acme/web",
                "REQUESTS_CA_BUNDLE": served.ca_file,
                **env,
            }
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
