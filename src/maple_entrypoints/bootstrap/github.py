"""GitHub's parts: transports, the ledger store and the check-run publisher, wrapped alike.

Every store and publisher talks to GitHub through :func:`wrapped`: bounded retries and clear
errors (``ResilientTransport``) under remembered ``ETag`` answers (``ConditionalTransport``).
Only the push-access check gets the bare transport, because it reads the 401, 403 and 404
answers a resilient transport turns into errors.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.github.push_access import PushAnswer
from maple_core.errors import ConfigurationError
from maple_core.json_types import JsonValue
from maple_core.ports import Clock, CommentStore, FeedbackClassifier, GatePublisher

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.github.events import GitHubEvent, PullToLookUp
    from maple_adapters.github.pull_store import PullRequestStore
    from maple_adapters.github.store import GitHubLedgerStore
    from maple_adapters.github.transport import GitHubTransport

    # Read at run time only where needed: the settings load pydantic, which the route never does.
    from maple_entrypoints.settings import GitHubConfig, Transport

__all__ = [
    "CiGate",
    "PushAnswer",
    "app_transport",
    "build_transport",
    "check_run_publisher",
    "ci_gate",
    "head_of",
    "ledger_store",
    "push_access",
    "read_event",
    "review_store",
    "token_review_store",
    "token_transport",
    "wrapped",
]


def wrapped(inner: GitHubTransport, secrets: Sequence[str]) -> GitHubTransport:
    """``inner`` with retries, scrubbed errors (of ``secrets``) and conditional GETs."""
    from maple_adapters.github.transport import ConditionalTransport, ResilientTransport

    return ConditionalTransport(ResilientTransport(inner, secrets=[s for s in secrets if s]))


def token_transport(token: str, api_url: str | None) -> GitHubTransport:
    """The REST API acting with ``token``, wrapped (:func:`wrapped`)."""
    from maple_adapters.github.transport import PyGithubTransport

    return wrapped(PyGithubTransport(token, api_url), [token])


def app_transport(
    app_id: str, private_key: str, installation_id: int, api_url: str | None
) -> GitHubTransport:
    """The REST API acting as a GitHub App installation, wrapped (:func:`wrapped`)."""
    from maple_adapters.github.transport import PyGithubTransport

    inner = PyGithubTransport.for_github_app(app_id, private_key, installation_id, base_url=api_url)
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


def build_transport(github: GitHubConfig, transport: Transport) -> GitHubTransport:
    """The GitHub transport the settings choose, wrapped (:func:`wrapped`).

    Raises:
        ConfigurationError: the chosen transport cannot work here (see :func:`_bare_transport`).
    """
    inner, secrets = _bare_transport(github, transport)
    return wrapped(inner, secrets)


def _bare_transport(
    github: GitHubConfig, transport: Transport
) -> tuple[GitHubTransport, list[str]]:
    """The GitHub transport the settings choose, unwrapped, and the secrets to scrub from it.

    ``auto``: a ``GITHUB_TOKEN`` means ``api``; else a ``gh`` that answers ``gh auth token``
    means ``cli``; else it refuses, naming both remedies. An explicit choice is honoured as it
    is and never falls back.

    Raises:
        ConfigurationError: the chosen transport cannot work here.
    """
    from maple_adapters.github.transport import GhCliTransport, host_of
    from maple_entrypoints.settings import Transport

    token = github.token.get_secret_value() if github.token else None
    host = host_of(github.api_url)
    chosen = transport
    if chosen is Transport.AUTO:
        if token:
            chosen = Transport.API
        elif _gh_signed_in(host):
            chosen = Transport.CLI
        else:
            raise ConfigurationError(
                "GitHub cannot be reached: set GITHUB_TOKEN (a token that can read and write "
                "pull-request comments), or install gh and run `gh auth login`."
            )
    if chosen is Transport.API:
        if not token:
            raise ConfigurationError(
                "MAPLE_GITHUB_TRANSPORT=api needs GITHUB_TOKEN; set it, or use "
                "MAPLE_GITHUB_TRANSPORT=cli with a signed-in gh."
            )
        from maple_adapters.github.transport import PyGithubTransport

        return PyGithubTransport(token, github.api_url), [token]
    if not _gh_signed_in(host):
        raise ConfigurationError(
            "MAPLE_GITHUB_TRANSPORT=cli needs gh signed in to "
            f"{host or 'github.com'}: install gh and run `gh auth login`"
            f"{' --hostname ' + host if host else ''}, or set GITHUB_TOKEN and use "
            "MAPLE_GITHUB_TRANSPORT=api."
        )
    inner = GhCliTransport(host=host, env={"GH_TOKEN": token} if token else None)
    return inner, [token] if token else []


def ledger_store(
    transport: GitHubTransport, owner: str, repo: str, clock: Clock, app_id: str | None
) -> GitHubLedgerStore:
    """The pull request's ledger on ``owner/repo``, read and written through ``transport``."""
    from maple_adapters.github.store import GitHubLedgerStore

    return GitHubLedgerStore(transport, owner, repo, clock, app_id=app_id)


def review_store(
    github: GitHubConfig,
    transport: Transport,
    clock: Clock,
    *,
    gate: bool,
    classifier: FeedbackClassifier | None = None,
) -> PullRequestStore:
    """The ledger and the pull request's own review, on the machine's shared poll.

    Every process of this user watching ``owner/repo`` with the same token (or the same ``gh``
    sign-in) shares one folder under ``github.cache_root``: one set of conditional requests per
    poll interval, and the rate budget with its reserve (``github.reserve``).

    Raises:
        ConfigurationError: the transport cannot work here, or the shared folder cannot be made.
    """
    inner, secrets = _bare_transport(github, transport)
    return _review_store_over(inner, secrets, github, clock, gate=gate, classifier=classifier)


def token_review_store(
    token: str, github: GitHubConfig, clock: Clock, *, gate: bool
) -> PullRequestStore:
    """:func:`review_store` acting with ``token`` on the ``api`` transport (the route's callers).

    Raises:
        ConfigurationError: the shared folder cannot be made.
    """
    from dataclasses import replace

    from pydantic import SecretStr

    from maple_adapters.github.transport import PyGithubTransport

    identity = replace(github, token=SecretStr(token))
    inner = PyGithubTransport(token, github.api_url)
    return _review_store_over(inner, [token], identity, clock, gate=gate)


def _review_store_over(
    inner: GitHubTransport,
    secrets: list[str],
    github: GitHubConfig,
    clock: Clock,
    *,
    gate: bool,
    classifier: FeedbackClassifier | None = None,
) -> PullRequestStore:
    """:func:`review_store` over the bare transport ``inner`` (scrubbed of ``secrets``)."""
    from maple_adapters.github.pull_store import PrReview, PullRequestStore
    from maple_adapters.github.review_source import ReviewSource
    from maple_adapters.github.shared import (
        BudgetRecorder,
        SharedCache,
        SharedTransport,
        cache_folder,
    )
    from maple_adapters.github.store import GitHubLedgerStore
    from maple_adapters.github.transport import ResilientTransport, host_of
    from maple_core.trust import TrustPolicy

    owner, repo = github.owner or "", github.repo or ""
    token = github.token.get_secret_value() if github.token else None
    host = host_of(github.api_url)
    who = token or f"gh auth on {host or 'github.com'}"
    root = github.cache_root or Path.home() / ".cache" / "maple"
    folder = cache_folder(
        root, [who, github.api_url or "https://api.github.com", f"{owner}/{repo}"]
    )
    try:
        cache = SharedCache(folder, reserve=github.reserve)
    except OSError as exc:
        raise ConfigurationError(
            f"maple cannot keep its shared GitHub poll in {folder} ({exc.strerror}); make "
            "XDG_CACHE_HOME a folder of yours that only you can read, or set MAPLE_PR_REVIEW=off."
        ) from None
    shared = SharedTransport(
        ResilientTransport(BudgetRecorder(inner, cache), secrets=secrets), cache
    )
    web = "github.com" if host in (None, "api.github.com") else host
    policy = TrustPolicy.from_list(github.trusted_bots)
    source = ReviewSource(shared, owner, repo, host=web, policy=policy, cache=cache)
    ledger = GitHubLedgerStore(shared, owner, repo, clock, app_id=github.gate_app_id)
    mode = PrReview.GATE if gate else PrReview.AGENT
    return PullRequestStore(ledger, source, clock, mode, classifier=classifier)


def check_run_publisher(
    transport: GitHubTransport, owner: str, repo: str, clock: Clock, app_id: str | None
) -> GatePublisher:
    """The ``maple/visual-review`` check run on ``owner/repo``, written through ``transport``."""
    from maple_adapters.github.gate import GitHubCheckRunPublisher

    return GitHubCheckRunPublisher(transport, owner, repo, now=clock.now, app_id=app_id)


def push_access(
    owner: str, repo: str, api_url: str | None, clock: Clock
) -> Callable[[str], PushAnswer]:
    """Whether a caller's token can push to ``owner/repo``, each answer kept a minute."""
    from maple_adapters.github.push_access import PushAccess
    from maple_adapters.github.transport import PyGithubTransport

    return PushAccess(lambda token: PyGithubTransport(token, api_url), owner, repo, clock)


def read_event(name: str, payload: JsonValue) -> GitHubEvent | PullToLookUp:
    """What ``maple gate publish`` needs from the GitHub Actions event ``name``.

    Raises:
        InvalidInputError: the payload lacks what the event needs, or names another event.
    """
    from maple_adapters.github.events import read_event as read

    return read(name, payload)


def head_of(event: GitHubEvent | PullToLookUp, gate: CiGate, owner: str, repo: str) -> GitHubEvent:
    """``event`` with its head: a conversation comment's pull request is asked for it.

    Asked of GitHub with the gate's reading token; any other event is returned as it is.

    Raises:
        MapleError: GitHub did not answer, or not with a pull request that has a head.
    """
    from maple_adapters.github.events import PullToLookUp, looked_up

    if not isinstance(event, PullToLookUp):
        return event
    answer = gate.reader.request("GET", f"/repos/{owner}/{repo}/pulls/{event.number}")
    return looked_up(event, answer.data)


@dataclass(frozen=True, slots=True)
class CiGate:
    """What ``maple gate publish`` needs in CI: the ledger it reads, the check run it writes.

    ``reader`` is the reading token's transport, for a pull request's head.
    """

    store: CommentStore
    publisher: GatePublisher
    reader: GitHubTransport


def ci_gate(
    owner: str,
    repo: str,
    *,
    token: str | None,
    gate_token: str,
    api_url: str | None,
    app_id: str | None,
    clock: Clock,
    review: GitHubConfig | None = None,
) -> CiGate:
    """The CI gate publisher's parts from the job's tokens.

    The ledger is read with ``token`` (``GITHUB_TOKEN``), else ``gate_token``; the check run is
    written with ``gate_token`` (``MAPLE_GATE_TOKEN``, else ``GITHUB_TOKEN``). Both transports
    are scrubbed of both tokens. With ``review`` (``MAPLE_PR_REVIEW=gate``: its trusted bots,
    reserve and cache folder) the pull request's own review is read beside the ledger, and the
    gate holds on it too.
    """
    from maple_adapters.github.transport import PyGithubTransport

    secrets = [t for t in (token, gate_token) if t]
    read_as = PyGithubTransport(token or gate_token, api_url)
    writer = wrapped(PyGithubTransport(gate_token, api_url), secrets)
    if review is not None:
        from dataclasses import replace

        identity = replace(review, owner=owner, repo=repo, api_url=api_url)
        store: CommentStore = _review_store_over(read_as, secrets, identity, clock, gate=True)
    else:
        store = ledger_store(wrapped(read_as, secrets), owner, repo, clock, app_id)
    return CiGate(
        store=store,
        publisher=check_run_publisher(writer, owner, repo, clock, app_id),
        reader=wrapped(read_as, secrets),
    )
