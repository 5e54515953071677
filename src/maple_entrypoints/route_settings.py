"""``maple route serve``'s settings, checked at start-up: the store, repository and gate App."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maple_core.gate_rules import GateRules
from maple_entrypoints.configuration import (
    MAPLE_DATABASE_URL,
    MAPLE_GATE_APP_ID,
    MAPLE_GATE_INSTALLATION_ID,
    MAPLE_GATE_PRIVATE_KEY,
    MAPLE_GITHUB_API,
    MAPLE_GITHUB_OWNER,
    MAPLE_GITHUB_REPO,
    Settings,
)
from maple_entrypoints.settings import (
    ReviewReading,
    StoreKind,
    gate_review,
    gate_rules,
    missing,
    present,
    repository_of,
    required,
    review_url_of,
)
from maple_entrypoints.variables import Secret

__all__ = [
    "GateApp",
    "RouteConfig",
    "RouteStoreKind",
    "route_config",
    "route_store",
]

RouteStoreKind = Literal[StoreKind.FILE, StoreKind.GITHUB, StoreKind.SQL]
"""The stores ``maple route serve --store`` can keep comments in: all but another route."""


@dataclass(frozen=True, slots=True)
class GateApp:
    """The gate App the route publishes as: its id, installation and private key."""

    app_id: int
    installation_id: int
    private_key: Secret


@dataclass(frozen=True, slots=True)
class RouteConfig:
    """``maple route serve``'s checked configuration.

    ``owner`` and ``repo`` name the repository (both, or neither on a file store); ``app`` is
    the gate App, when configured. On the sql store, ``database_url`` names the database and
    ``repository`` the repository its comments belong to. With ``review`` (on GitHub with
    ``MAPLE_PR_REVIEW=gate``: how it is read) each caller's store reads the pull request's own
    review beside the ledger, so the gate the route publishes agrees with every other
    publisher's; in ``agent`` and ``off`` the route keeps the ledger alone, since the gate
    ignores the review there.
    """

    store: RouteStoreKind
    owner: str | None
    repo: str | None
    api_url: str | None
    app: GateApp | None
    rules: GateRules
    secrets: tuple[str, ...]
    database_url: Secret | None = None
    repository: str = "default"
    review: ReviewReading | None = None


def route_store(named: str) -> RouteStoreKind:
    """The store ``named`` (``--store``), one a route can keep comments in.

    Raises:
        ValueError: ``named`` is no store, or is ``route`` (a route does not forward to another).
    """
    store = StoreKind(named)
    if store is StoreKind.ROUTE:
        raise ValueError(f"a route cannot keep its comments in another route: {named}")
    return store


def _gate_app(settings: Settings) -> GateApp | None:
    """The gate App's three variables, all set, or ``None`` when none is."""
    given = (MAPLE_GATE_APP_ID, MAPLE_GATE_INSTALLATION_ID, MAPLE_GATE_PRIVATE_KEY)
    if not any(settings.text(v) for v in given):
        return None
    why = "the route needs the gate App's id, installation id and private key together"
    for variable in given:
        if not settings.text(variable):
            missing(variable, why)
    return GateApp(
        present(settings, MAPLE_GATE_APP_ID, why),
        present(settings, MAPLE_GATE_INSTALLATION_ID, why),
        present(settings, MAPLE_GATE_PRIVATE_KEY, why),
    )


def route_config(
    settings: Settings, store: RouteStoreKind, review_url: str | None = None
) -> RouteConfig:
    """The route server's configuration; ``review_url`` (``--review-url``) wins over the variable.

    Raises:
        ConfigurationError: a variable the chosen store or gate needs is unset or malformed.
    """
    rules = gate_rules(settings, review_url_of(settings, review_url, "--review-url"))
    owner, repo = settings[MAPLE_GITHUB_OWNER], settings[MAPLE_GITHUB_REPO]
    if store is StoreKind.GITHUB:
        why = "the route keeps comments on that repository's pull requests"
        owner = required(settings, MAPLE_GITHUB_OWNER, why)
        repo = required(settings, MAPLE_GITHUB_REPO, why)
    app = _gate_app(settings) if owner and repo else None
    return RouteConfig(
        store=store,
        owner=owner,
        repo=repo,
        api_url=settings[MAPLE_GITHUB_API],
        app=app,
        rules=rules,
        secrets=tuple(settings.secrets()),
        database_url=settings[MAPLE_DATABASE_URL],
        repository=repository_of(settings),
        review=gate_review(settings) if store is StoreKind.GITHUB else None,
    )
