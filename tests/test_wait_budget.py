"""Maple's ``timeout.test.ts``: the wait budget."""

from __future__ import annotations

import math

import pytest

from maple_core.wait import (
    DEFAULT_WAIT_MS,
    MAX_WAIT_MS,
    MIN_WAIT_MS,
    PROGRESS_INTERVAL_MS,
    clamp_wait_ms,
)


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        (None, 30_000),
        (20_000, 20_000),
        (120_000, 55_000),
        (5, 1_000),
        (-1, 1_000),
        (math.nan, 30_000),
        (math.inf, 30_000),
        (-math.inf, 30_000),
        (20_000.9, 20_000),
        (1_000.5, 1_000),
    ],
)
def test_clamp(requested: float | None, expected: int) -> None:
    assert clamp_wait_ms(requested) == expected


def test_constants_stay_under_every_clients_ceiling() -> None:
    assert (DEFAULT_WAIT_MS, MIN_WAIT_MS, MAX_WAIT_MS) == (30_000, 1_000, 55_000)
    assert MAX_WAIT_MS < 60_000
    assert 2 * PROGRESS_INTERVAL_MS < MAX_WAIT_MS
