"""Configuration from the environment, checked at start-up as Maple checks it (behaviour §8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from maple_core.errors import ConfigurationError
from maple_entrypoints.settings import GateMode, StoreKind, load_settings, resolve_config

FORGE = {"GITHUB_TOKEN": "t", "MAPLE_GITHUB_OWNER": "acme", "MAPLE_GITHUB_REPO": "web"}


@pytest.mark.parametrize(
    ("env", "store"),
    [
        ({}, StoreKind.FILE),
        (FORGE, StoreKind.GITHUB),
        ({"MAPLE_STORE": "file", "GITHUB_TOKEN": "t"}, StoreKind.FILE),
        ({"MAPLE_STORE": "github", **FORGE}, StoreKind.GITHUB),
        (
            {
                "MAPLE_STORE": "route",
                "MAPLE_URL": "https://p.example/api/maple",
                "GITHUB_TOKEN": "t",
            },
            StoreKind.ROUTE,
        ),
    ],
)
def test_which_store(env: dict[str, str], store: StoreKind) -> None:
    assert resolve_config(load_settings(env)).store is store


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"MAPLE_GITHUB_REPO": "r"},
            r"^MAPLE_GITHUB_OWNER is not set; .* It is: The repository's owner\.",
        ),
        ({"GITHUB_TOKEN": "t", "MAPLE_GITHUB_REPO": "r"}, r"^MAPLE_GITHUB_OWNER is not set"),
        (
            {"MAPLE_GITHUB_OWNER": "o", "MAPLE_GITHUB_REPO": "r", "MAPLE_GITHUB_TRANSPORT": "api"},
            r"^GITHUB_TOKEN is not set",
        ),
        (
            {"MAPLE_STORE": "sqlite"},
            r'Unknown MAPLE_STORE sqlite; "github" and "file" exist',
        ),
        ({"MAPLE_STORE": "route"}, r"^MAPLE_URL is not set"),
        (
            {**FORGE, "MAPLE_URL": "https://x", "MAPLE_GATE_TOKEN": "g"},
            r"MAPLE_URL and MAPLE_GATE_TOKEN are both",
        ),
        ({"MAPLE_GATE_TOKEN": "g"}, r"^MAPLE_GITHUB_OWNER is not set"),
        ({"MAPLE_URL": "https://x"}, r"^GITHUB_TOKEN is not set"),
        (
            {"MAPLE_GITHUB_TRANSPORT": "ssh"},
            r"^Unknown MAPLE_GITHUB_TRANSPORT ssh; it must be auto, api or cli\.$",
        ),
    ],
)
def test_refusals(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        resolve_config(load_settings(env))


@pytest.mark.parametrize(
    ("env", "gate"),
    [
        ({}, GateMode.NONE),
        ({"MAPLE_STORE": "file", "MAPLE_URL": "https://x", "GITHUB_TOKEN": "t"}, GateMode.ROUTE),
        ({"MAPLE_URL": "", "MAPLE_GATE_TOKEN": ""}, GateMode.NONE),
        ({**FORGE, "MAPLE_GATE_TOKEN": "g"}, GateMode.DIRECT),
        ({"MAPLE_STORE": "route", "MAPLE_URL": "https://x", "GITHUB_TOKEN": "t"}, GateMode.NONE),
        ({"MAPLE_STORE": "route", "MAPLE_URL": "https://x"}, GateMode.NONE),
    ],
)
def test_which_gate(env: dict[str, str], gate: GateMode) -> None:
    assert resolve_config(load_settings(env)).gate is gate


def test_require_approval_is_exactly_true() -> None:
    assert resolve_config(load_settings({"MAPLE_REQUIRE_APPROVAL": "true"})).rules.require_approval
    yes = resolve_config(load_settings({"MAPLE_REQUIRE_APPROVAL": "yes"}))
    assert not yes.rules.require_approval


def test_tokens_are_secret_in_reprs() -> None:
    settings = load_settings({"GITHUB_TOKEN": "ghp_visible?", "MAPLE_GATE_TOKEN": "gate_visible?"})
    assert "ghp_visible?" not in repr(settings) + str(settings)
    assert "gate_visible?" not in repr(settings)
    assert settings.secrets() == ["ghp_visible?", "gate_visible?"]


def test_the_route_store_and_its_refresh_are_built_from_maple_url() -> None:
    from maple_adapters.route.refresh import RouteGateRefresher
    from maple_adapters.route.store import RouteCommentStore
    from maple_entrypoints.bootstrap.agent_loop import agent_loop

    def loop(env: dict[str, str]) -> Any:
        return agent_loop(Path.cwd(), settings=load_settings(env))

    url = "https://p.example/api/maple/"
    through_route = loop({"MAPLE_STORE": "route", "MAPLE_URL": url, "GITHUB_TOKEN": "t"})
    assert isinstance(through_route.store, RouteCommentStore)
    assert through_route.target.gate is None  # the route publishes after its own PATCH
    refresher = loop({"MAPLE_STORE": "file", "MAPLE_URL": url, "GITHUB_TOKEN": "t"}).target.gate
    assert isinstance(refresher, RouteGateRefresher)
    assert refresher.endpoint == "https://p.example/api/maple/gate/refresh"
    assert loop({}).target.gate is None


@pytest.mark.parametrize(("value", "share"), [(None, 0.2), ("20%", 0.2), ("5", 0.05), ("0%", 0.0)])
def test_the_github_reserve_is_a_percentage_of_the_limit(value: str | None, share: float) -> None:
    environ = {**FORGE, **({"MAPLE_GITHUB_RESERVE": value} if value is not None else {})}
    github = resolve_config(load_settings(environ)).github
    assert github.review is not None
    assert github.review.reserve == pytest.approx(share)
    assert (github.pr_review, github.review.trusted_bots) == ("agent", None)


def test_an_empty_trusted_bots_list_trusts_no_bot_and_is_not_unset() -> None:
    review = resolve_config(load_settings({**FORGE, "MAPLE_TRUSTED_BOTS": ""})).github.review
    assert review is not None
    assert review.trusted_bots == ""
