"""``maple gate publish``'s settings, checked once the event was read: repository and tokens."""

from __future__ import annotations

from dataclasses import dataclass

from maple_core.errors import ConfigurationError
from maple_core.gate_rules import GateRules
from maple_entrypoints.configuration import (
    GITHUB_API_URL,
    GITHUB_REPOSITORY,
    GITHUB_TOKEN,
    MAPLE_GATE_APP_ID,
    MAPLE_GATE_TOKEN,
    MAPLE_GITHUB_API,
    MAPLE_GITHUB_OWNER,
    MAPLE_GITHUB_REPO,
    Settings,
)
from maple_entrypoints.settings import ReviewReading, gate_review, gate_rules, review_url_of

__all__ = [
    "CiConfig",
    "ci_config",
]


@dataclass(frozen=True, slots=True)
class CiConfig:
    """``maple gate publish``'s checked configuration.

    The ledger is read with ``token`` (``GITHUB_TOKEN``), else ``gate_token``; the check run is
    written with ``gate_token`` (``MAPLE_GATE_TOKEN``, else ``GITHUB_TOKEN``). With ``review``
    (``MAPLE_PR_REVIEW=gate``: how it is read) the pull request's own review is read beside the
    ledger, and the gate holds on it too.
    """

    owner: str
    repo: str
    token: str | None
    gate_token: str
    api_url: str | None
    app_id: int | None
    rules: GateRules
    review: ReviewReading | None = None


def ci_config(
    settings: Settings, event_repository: str | None, review_url: str | None = None
) -> CiConfig:
    """The CI gate's configuration, once the event (naming ``event_repository``) was read.

    The repository is ``MAPLE_GITHUB_OWNER``/``MAPLE_GITHUB_REPO`` when both are set, else the
    event's, else ``GITHUB_REPOSITORY``; ``review_url`` (``--review-url``) wins over the
    variable.

    Raises:
        ConfigurationError: no repository, no token to write the check run with, or a review URL
            that is not a plain http(s) URL.
    """
    owner, repo = settings[MAPLE_GITHUB_OWNER], settings[MAPLE_GITHUB_REPO]
    repository = (
        f"{owner}/{repo}" if owner and repo else event_repository or settings[GITHUB_REPOSITORY]
    )
    secret = settings[GITHUB_TOKEN]
    token = secret.get_secret_value() if secret else None
    gate = settings[MAPLE_GATE_TOKEN]
    gate_token = (gate.get_secret_value() if gate else None) or token
    if not repository or "/" not in repository:
        raise ConfigurationError(
            f"no repository: set {MAPLE_GITHUB_OWNER.name} and {MAPLE_GITHUB_REPO.name} (GitHub "
            f"Actions sets {GITHUB_REPOSITORY.name})."
        )
    if not gate_token:
        raise ConfigurationError(
            f"{GITHUB_TOKEN.name} is not set; give the job `permissions: checks: write, "
            "pull-requests: read` and `env: GITHUB_TOKEN: ${{ github.token }}`, or set "
            f"{MAPLE_GATE_TOKEN.name} to a gate App's token."
        )
    rules = gate_rules(settings, review_url_of(settings, review_url, "--review-url"))
    owner, repo = repository.split("/", 1)
    return CiConfig(
        owner=owner,
        repo=repo,
        token=token,
        gate_token=gate_token,
        api_url=settings[MAPLE_GITHUB_API] or settings[GITHUB_API_URL],
        app_id=settings[MAPLE_GATE_APP_ID],
        rules=rules,
        review=gate_review(settings),
    )
