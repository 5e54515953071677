"""``maple review``: a reverse proxy that puts the comment overlay on a running app."""

from __future__ import annotations

from maple_entrypoints.review.proxy import API_PATH, OVERLAY_PATH, review_app

__all__ = ["API_PATH", "OVERLAY_PATH", "review_app"]
