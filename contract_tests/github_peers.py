"""The GitHub adapters against the fake GitHub: PyGithub directly, and the real ``gh`` binary."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from maple_adapters.github.transport import (
    ConditionalTransport,
    GhCliTransport,
    GitHubTransport,
    PyGithubTransport,
    ResilientTransport,
)
from tests.github.fake_github import Served

TOKEN = "ghp_fake_token"


def api_transport(served: Served, token: str = TOKEN) -> GitHubTransport:
    inner = PyGithubTransport(token, base_url=served.base_url, verify=served.ca_file)
    return ConditionalTransport(ResilientTransport(inner, secrets=[token]))


def cli_transport(served: Served, config_dir: Path, token: str = TOKEN) -> GitHubTransport:
    if shutil.which("gh") is None:
        pytest.skip("the gh CLI is not installed: apt-get install -y gh (.ci/run does)")
    env = {
        "GH_ENTERPRISE_TOKEN": token,
        "GH_TOKEN": token,
        "SSL_CERT_FILE": served.ca_file,
        "GH_CONFIG_DIR": str(config_dir),
    }
    inner = GhCliTransport(host=served.host, env=env)
    return ConditionalTransport(ResilientTransport(inner, secrets=[token]))
