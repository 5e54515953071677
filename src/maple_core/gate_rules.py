"""The gate's configured rules: one value, built and checked once where the settings are read."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from maple_core.errors import ConfigurationError

__all__ = ["DEFAULT_RULES", "GateRules", "check_review_url"]


@dataclass(frozen=True, slots=True)
class GateRules:
    """The gate's configured rules: one value, built and checked where the settings are read.

    ``require_approval`` holds the gate until somebody approves the commit
    (``MAPLE_REQUIRE_APPROVAL``); ``require_confirmation`` until a reviewer confirmed every
    resolution (``MAPLE_REQUIRE_CONFIRMATION``); ``review_url`` is the check run's details link
    (``MAPLE_REVIEW_URL``), never one built from a request.

    Raises:
        ConfigurationError: ``review_url`` is not a plain http(s) URL (:func:`check_review_url`).
    """

    require_approval: bool = False
    require_confirmation: bool = False
    review_url: str | None = None

    def __post_init__(self) -> None:
        if self.review_url is not None:
            check_review_url(self.review_url)


DEFAULT_RULES = GateRules()
"""No approval, no confirmation, no review link: the gate Maple publishes unconfigured."""


def check_review_url(url: str, name: str = "review_url") -> str:
    """Return ``url`` when it is a plain http(s) URL the check run may link reviewers to.

    Raises:
        ConfigurationError: naming ``name`` (the option or variable it came from) and the fix.
    """
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        parts = None
    plain = (
        parts is not None
        and parts.scheme.lower() in ("http", "https")
        and bool(parts.hostname)
        and parts.username is None
        and parts.password is None
        and url.isprintable()
        and not any(c.isspace() for c in url)
    )
    if not plain:
        raise ConfigurationError(
            f"{name} must be an http or https URL without credentials or spaces, where reviewers "
            f"look at the preview, such as https://preview.example.com; got {url[:80]!r}."
        )
    return url
