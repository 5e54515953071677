"""Small text helpers the gate and Stop hook messages share."""

from __future__ import annotations

import re
from collections.abc import Iterable

from maple_core.comments import Anchor

__all__ = ["flatten", "js_number", "scrub", "where_of"]

_WHITESPACE = re.compile(r"\s+")


def flatten(text: str) -> str:
    """Collapse every run of whitespace to one space and trim the ends."""
    return _WHITESPACE.sub(" ", text).strip()


def where_of(anchor: Anchor) -> str | None:
    """The first of the anchor's component, source and selector that is present."""
    return anchor.component or anchor.source or anchor.selector or None


def js_number(value: float) -> str:
    """Print a number as JavaScript does: ``2`` for 2.0, ``1.5`` for 1.5."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every (non-empty) secret replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text
