"""How maple reaches GitHub: the transport a configuration chooses, every one wrapped alike.

Every store and publisher talks to GitHub through :func:`wrapped`: bounded retries and clear
errors (``ResilientTransport``) under remembered ``ETag`` answers (``ConditionalTransport``).
Only the push-access check gets the bare transport, because it reads the 401, 403 and 404
answers a resilient transport turns into errors.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence

from maple_adapters.github.conditional import ConditionalTransport
from maple_adapters.github.transport import (
    GhCliTransport,
    GitHubTransport,
    PyGithubTransport,
    host_of,
)
from maple_adapters.github.wrappers import ResilientTransport
from maple_core.errors import ConfigurationError

__all__ = ["app_transport", "bare_transport", "chosen_transport", "token_transport", "wrapped"]


def wrapped(inner: GitHubTransport, secrets: Sequence[str]) -> GitHubTransport:
    """``inner`` with retries, scrubbed errors (of ``secrets``) and conditional GETs."""
    return ConditionalTransport(ResilientTransport(inner, secrets=[s for s in secrets if s]))


def token_transport(token: str, api_url: str | None) -> GitHubTransport:
    """The REST API acting with ``token``, wrapped (:func:`wrapped`)."""
    return wrapped(PyGithubTransport(token, api_url), [token])


def app_transport(
    app_id: int, private_key: str, installation_id: int, api_url: str | None
) -> GitHubTransport:
    """The REST API acting as a GitHub App installation, wrapped (:func:`wrapped`)."""
    inner = PyGithubTransport.for_github_app(
        str(app_id), private_key, installation_id, base_url=api_url
    )
    return wrapped(inner, [private_key])


def _gh_signed_in(host: str | None) -> bool:
    """True when a ``gh`` binary answers ``gh auth token`` (the token itself is discarded)."""
    env = {**os.environ, **({"GH_HOST": host} if host else {}), "GH_PROMPT_DISABLED": "1"}
    command = ["gh", "auth", "token", *(["--hostname", host] if host else [])]
    try:
        done = subprocess.run(command, capture_output=True, timeout=10, check=False, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def chosen_transport(token: str | None, api_url: str | None, choice: str) -> GitHubTransport:
    """The transport ``choice`` (``auto``, ``api`` or ``cli``) names, wrapped (:func:`wrapped`).

    Raises:
        ConfigurationError: the chosen transport cannot work here (see :func:`bare_transport`).
    """
    inner, secrets = bare_transport(token, api_url, choice)
    return wrapped(inner, secrets)


def bare_transport(
    token: str | None, api_url: str | None, choice: str
) -> tuple[GitHubTransport, list[str]]:
    """The transport ``choice`` names, unwrapped, and the secrets to scrub from it.

    ``auto``: a ``token`` means ``api``; else a ``gh`` that answers ``gh auth token`` means
    ``cli``; else it refuses, naming both remedies. An explicit choice is honoured as it is and
    never falls back. The ``cli`` transport hands ``token``, when there is one, to ``gh``.

    Raises:
        ConfigurationError: the chosen transport cannot work here.
    """
    host = host_of(api_url)
    if choice == "auto":
        if token:
            choice = "api"
        elif _gh_signed_in(host):
            choice = "cli"
        else:
            raise ConfigurationError(
                "GitHub cannot be reached: set GITHUB_TOKEN (a token that can read and write "
                "pull-request comments), or install gh and run `gh auth login`."
            )
    if choice == "api":
        if not token:
            raise ConfigurationError(
                "MAPLE_GITHUB_TRANSPORT=api needs GITHUB_TOKEN; set it, or use "
                "MAPLE_GITHUB_TRANSPORT=cli with a signed-in gh."
            )
        return PyGithubTransport(token, api_url), [token]
    if not _gh_signed_in(host):
        raise ConfigurationError(
            "MAPLE_GITHUB_TRANSPORT=cli needs gh signed in to "
            f"{host or 'github.com'}: install gh and run `gh auth login`"
            f"{' --hostname ' + host if host else ''}, or set GITHUB_TOKEN and use "
            "MAPLE_GITHUB_TRANSPORT=api."
        )
    inner = GhCliTransport(host=host, env={"GH_TOKEN": token} if token else None)
    return inner, [token] if token else []
