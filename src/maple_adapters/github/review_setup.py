"""The ledger and the pull request's own review, on the machine's shared poll, from plain values.

Every process of this user watching ``owner/repo`` with the same token (or the same ``gh``
sign-in) shares one folder under ``cache_root``: one set of conditional requests per poll
interval, and the rate budget with its reserve.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.github.budget_recorder import BudgetRecorder
from maple_adapters.github.pull_store import PrReview, PullRequestStore
from maple_adapters.github.review_source import ReviewSource
from maple_adapters.github.shared import SharedCache, cache_folder
from maple_adapters.github.shared_transport import SharedTransport
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.transport import GitHubTransport, host_of
from maple_adapters.github.wrappers import ResilientTransport
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.errors import ConfigurationError
from maple_core.ports import Clock
from maple_core.trust import TrustPolicy

__all__ = ["ReviewPlace", "review_store"]


@dataclass(frozen=True, slots=True)
class ReviewPlace:
    """Where the pull request's review is read, and how.

    Attributes:
        owner, repo: the repository.
        api_url: GitHub's REST root (``None``: github.com).
        token: the token read with (``None``: ``gh``'s sign-in), naming the shared folder.
        app_id: the gate App whose bot writes ledgers too, if any.
        trusted_bots: ``MAPLE_TRUSTED_BOTS`` as written (``None``: every App's bot).
        reserve: the share of the rate limit left alone (``MAPLE_GITHUB_RESERVE``).
        cache_root: the folder the shared polls are kept under.
    """

    owner: str
    repo: str
    api_url: str | None
    token: str | None
    app_id: str | int | None
    trusted_bots: str | None
    reserve: float
    cache_root: Path


def review_store(
    inner: GitHubTransport,
    secrets: Sequence[str],
    place: ReviewPlace,
    clock: Clock,
    *,
    gate: bool,
    classifier: FeedbackClassifier | None = None,
) -> PullRequestStore:
    """The ledger and the review over the bare transport ``inner`` (scrubbed of ``secrets``).

    ``classifier`` reads trusted reviewers' replies in the pull request's review threads;
    without it they reopen, as before.

    Raises:
        ConfigurationError: the shared folder cannot be made.
    """
    host = host_of(place.api_url)
    who = place.token or f"gh auth on {host or 'github.com'}"
    folder = cache_folder(
        place.cache_root,
        [who, place.api_url or "https://api.github.com", f"{place.owner}/{place.repo}"],
    )
    try:
        cache = SharedCache(folder, reserve=place.reserve)
    except OSError as exc:
        raise ConfigurationError(
            f"maple cannot keep its shared GitHub poll in {folder} ({exc.strerror}); make "
            "XDG_CACHE_HOME a folder of yours that only you can read, or set MAPLE_PR_REVIEW=off."
        ) from None
    shared = SharedTransport(
        ResilientTransport(BudgetRecorder(inner, cache), secrets=list(secrets)), cache
    )
    web = "github.com" if host in (None, "api.github.com") else host
    policy = TrustPolicy.from_list(place.trusted_bots)
    source = ReviewSource(shared, place.owner, place.repo, host=web, policy=policy, cache=cache)
    ledger = GitHubLedgerStore(shared, place.owner, place.repo, clock, app_id=place.app_id)
    mode = PrReview.GATE if gate else PrReview.AGENT
    return PullRequestStore(ledger, source, clock, mode, classifier=classifier)
