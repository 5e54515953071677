"""The rate budget: what is left, the reserve kept for the person, when polling pauses."""

from __future__ import annotations

import pytest

from maple_core.errors import ConfigurationError
from maple_core.rate_budget import (
    DEFAULT_RESERVE,
    Backoff,
    Budget,
    RateReading,
    parse_reserve,
    poll_verdict,
)

NOW = 1_800_000_000.0


def reading(
    remaining: int, reset: float = NOW + 600, seen: float = NOW, resource: str = "core"
) -> RateReading:
    return RateReading(resource, 5000, remaining, reset, seen)


@pytest.mark.parametrize(
    ("text", "share"),
    [(None, 0.2), ("", 0.2), ("20%", 0.2), ("20", 0.2), ("0.4", 0.4), ("0", 0.0), ("1%", 0.01)],
)
def test_the_reserve_reads_as_a_share_of_the_limit(text: str | None, share: float) -> None:
    assert parse_reserve(text) == pytest.approx(share)


@pytest.mark.parametrize("text", ["lots", "95%", "-5", "200"])
def test_a_reserve_that_is_not_a_percentage_is_refused_naming_the_variable(text: str) -> None:
    with pytest.raises(ConfigurationError, match="MAPLE_GITHUB_RESERVE"):
        parse_reserve(text)


def test_polling_pauses_at_the_reserve_until_the_reset() -> None:
    assert poll_verdict(Budget({"core": reading(1001)}), DEFAULT_RESERVE, NOW).poll
    paused = poll_verdict(Budget({"core": reading(1000)}), DEFAULT_RESERVE, NOW)
    assert not paused.poll
    assert paused.until == NOW + 600
    assert "down to 1,000 of 5,000 (maple keeps 20% for you)" in paused.reason
    after_reset = poll_verdict(Budget({"core": reading(10)}), DEFAULT_RESERVE, NOW + 601)
    assert after_reset.poll
    graphql = Budget({"graphql": reading(0, resource="graphql")})
    assert poll_verdict(graphql, DEFAULT_RESERVE, NOW).poll  # REST polling is not GraphQL's
    assert not poll_verdict(graphql, DEFAULT_RESERVE, NOW, "graphql").poll


def test_a_backoff_pauses_until_githubs_time_and_the_later_one_stands() -> None:
    budget = Budget().with_backoff(Backoff(NOW + 60, "a secondary rate limit"))
    budget = budget.with_backoff(Backoff(NOW + 30, "a shorter one"))
    verdict = poll_verdict(budget, DEFAULT_RESERVE, NOW)
    assert (verdict.poll, verdict.until) == (False, NOW + 60)
    assert "secondary rate limit" in verdict.reason
    assert poll_verdict(budget, DEFAULT_RESERVE, NOW + 61).poll


def test_an_older_reading_never_replaces_a_newer_one_and_the_budget_round_trips() -> None:
    budget = (
        Budget().with_reading(reading(4000, seen=NOW)).with_reading(reading(4500, seen=NOW - 5))
    )
    assert budget.readings["core"].remaining == 4000
    kept = Budget.from_json(budget.with_backoff(Backoff(NOW + 9, "x")).to_json())
    assert kept.readings["core"] == budget.readings["core"]
    assert kept.backoff == Backoff(NOW + 9, "x")
    assert Budget.from_json({"readings": {"core": "broken"}, "backoff": 3}) == Budget()
    assert RateReading.from_headers({"x-ratelimit-limit": "5000"}, NOW) is None


def test_describe_says_what_is_left_and_whether_polling_is_on() -> None:
    lines = Budget({"core": reading(1000)}).describe(DEFAULT_RESERVE, NOW)
    assert lines[0].startswith("core: 1,000 of 5,000 left, resets at ")
    assert "polling pauses until" in lines[-1]
