"""GitHub's rate budget as values: what is left, what maple keeps back, when polling pauses.

A person's token serves them as well as maple, and several agents polling one token can spend
its 5,000 requests an hour. So maple keeps a **reserve** (``MAPLE_GITHUB_RESERVE``, 20% of the
limit by default) for the person's own use: once what is left falls to it, polling pauses until
the limit resets. A secondary limit (GitHub's ``Retry-After``, or a spent GraphQL budget) pauses
it until the time GitHub names. Acting for the agent (a reply, a resolve) is never held back by
the reserve; only polling is. Time is passed in as epoch seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from maple_core.errors import ConfigurationError
from maple_core.json_types import JsonObject, JsonValue

__all__ = [
    "Backoff",
    "Budget",
    "DEFAULT_RESERVE",
    "PollVerdict",
    "RateReading",
    "parse_reserve",
    "poll_verdict",
]

DEFAULT_RESERVE = 0.2
"""The share of the limit kept for the person's own use when ``MAPLE_GITHUB_RESERVE`` is unset."""


def parse_reserve(text: str | None) -> float:
    """``MAPLE_GITHUB_RESERVE`` as a share of the limit: ``20%``, ``20`` or ``0.2`` are 20%.

    Raises:
        ConfigurationError: not a percentage from 0 to 90.
    """
    if text is None or not text.strip():
        return DEFAULT_RESERVE
    raw = text.strip().removesuffix("%").strip()
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    share = value / 100 if value > 1 or text.strip().endswith("%") else value
    if not 0 <= share <= 0.9:
        raise ConfigurationError(
            f"MAPLE_GITHUB_RESERVE must be a percentage from 0 to 90 (like 20%), not {text!r}."
        )
    return share


def _clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%H:%M:%S UTC")


def _number(value: JsonValue, default: float = 0.0) -> float:
    return (
        float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default
    )


@dataclass(frozen=True, slots=True)
class RateReading:
    """One rate-limit resource as a response's ``X-RateLimit-*`` headers described it.

    Attributes:
        resource: ``core`` (REST), ``graphql``...
        limit: requests (or points) an hour.
        remaining: what was left.
        reset: when the window resets (epoch seconds).
        seen: when the answer came (epoch seconds).
    """

    resource: str
    limit: int
    remaining: int
    reset: float
    seen: float

    @classmethod
    def from_headers(cls, headers: Mapping[str, str], seen: float) -> RateReading | None:
        """The reading in a response's headers (lower-case names), or ``None`` without one."""
        try:
            return cls(
                headers.get("x-ratelimit-resource", "core"),
                int(headers["x-ratelimit-limit"]),
                int(headers["x-ratelimit-remaining"]),
                float(headers["x-ratelimit-reset"]),
                seen,
            )
        except (KeyError, ValueError):
            return None

    def to_json(self) -> JsonObject:
        """The reading as kept on disk: its fields, by name."""
        return asdict(self)

    @classmethod
    def from_json(cls, value: JsonValue) -> RateReading | None:
        """A kept reading, or ``None`` when it is not one."""
        if not isinstance(value, dict) or not isinstance(value.get("resource"), str):
            return None
        return cls(
            str(value["resource"]),
            int(_number(value.get("limit"))),
            int(_number(value.get("remaining"))),
            _number(value.get("reset")),
            _number(value.get("seen")),
        )


@dataclass(frozen=True, slots=True)
class Backoff:
    """GitHub asked maple to wait until ``until`` (epoch seconds), for ``reason``."""

    until: float
    reason: str


@dataclass(frozen=True, slots=True)
class Budget:
    """What maple knows of a token's rate limits: the latest reading per resource, a backoff."""

    readings: Mapping[str, RateReading] = field(default_factory=dict)
    backoff: Backoff | None = None

    def with_reading(self, reading: RateReading) -> Budget:
        """The budget after ``reading``; an older one than what is known changes nothing."""
        known = self.readings.get(reading.resource)
        if known is not None and known.seen > reading.seen:
            return self
        return Budget({**self.readings, reading.resource: reading}, self.backoff)

    def with_backoff(self, backoff: Backoff) -> Budget:
        """The budget after GitHub asked to wait (the later of two waits stands)."""
        if self.backoff is not None and self.backoff.until >= backoff.until:
            return self
        return Budget(self.readings, backoff)

    def to_json(self) -> JsonObject:
        """The budget as kept on disk (shared by every process polling with the token)."""
        out: JsonObject = {"readings": {k: r.to_json() for k, r in sorted(self.readings.items())}}
        if self.backoff is not None:
            out["backoff"] = {"until": self.backoff.until, "reason": self.backoff.reason}
        return out

    @classmethod
    def from_json(cls, value: JsonValue) -> Budget:
        """A kept budget; anything unreadable reads as knowing nothing."""
        if not isinstance(value, dict):
            return cls()
        raw = value.get("readings")
        readings: dict[str, RateReading] = {}
        if isinstance(raw, dict):
            for item in raw.values():
                reading = RateReading.from_json(item)
                if reading is not None:
                    readings[reading.resource] = reading
        backoff = value.get("backoff")
        kept = None
        if isinstance(backoff, dict) and isinstance(backoff.get("reason"), str):
            kept = Backoff(_number(backoff.get("until")), str(backoff["reason"]))
        return cls(readings, kept)

    def describe(self, reserve: float, now: float) -> list[str]:
        """One line per resource, and the pause if there is one (for ``maple doctor``)."""
        lines = []
        for resource, reading in sorted(self.readings.items()):
            lines.append(
                f"{resource}: {reading.remaining:,} of {reading.limit:,} left, resets at "
                f"{_clock(reading.reset)} (maple keeps {reserve:.0%} for you)"
            )
        verdict = poll_verdict(self, reserve, now)
        lines.append(verdict.reason if not verdict.poll else "polling: on")
        return lines


@dataclass(frozen=True, slots=True)
class PollVerdict:
    """Whether to poll GitHub now; when not, until when and why (said in the wait's progress)."""

    poll: bool
    until: float | None = None
    reason: str = ""


def poll_verdict(budget: Budget, reserve: float, now: float, resource: str = "core") -> PollVerdict:
    """Whether polling may spend ``resource`` now, keeping ``reserve`` of the limit back."""
    backoff = budget.backoff
    if backoff is not None and backoff.until > now:
        return PollVerdict(
            False,
            backoff.until,
            f"GitHub asked maple to slow down ({backoff.reason}); polling pauses until "
            f"{_clock(backoff.until)}.",
        )
    reading = budget.readings.get(resource)
    if reading is not None and reading.reset > now and reading.remaining <= reserve * reading.limit:
        return PollVerdict(
            False,
            reading.reset,
            f"GitHub's rate limit is down to {reading.remaining:,} of {reading.limit:,} "
            f"(maple keeps {reserve:.0%} for you); polling pauses until {_clock(reading.reset)}.",
        )
    return PollVerdict(True)
