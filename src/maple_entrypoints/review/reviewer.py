"""Who this browser reviews as in ``maple review``: the overlay's own cookie, read back to it.

The overlay keeps the reviewer's name and view choices in a cookie on ``/__maple/``, so every
port of the proxy (each app reviewed on this machine) knows the same reviewer.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import Response

from maple_entrypoints.route.answers import json_answer

__all__ = ["reviewer_answer"]

_REVIEWER_COOKIE = "maple-reviewer"
_REVIEWER_ID = re.compile(r"[\w-]{1,100}")


async def reviewer_answer(request: Request) -> Response:
    """Who this browser reviewed as on any port of the proxy: the overlay's cookie, read back.

    The cookie is the browser's (path ``/__maple/``, so the app never receives it); only its
    shape is checked here, and nothing else is answered, so a page learns nothing it could not
    read from its own cookie jar through the overlay.
    """
    kept = unquote(request.cookies.get(_REVIEWER_COOKIE, ""))  # the overlay percent-encodes it
    reviewer: dict[str, Any] | None = None
    try:
        value = json.loads(kept) if 0 < len(kept) <= 1000 else None
    except ValueError:
        value = None
    if (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and _REVIEWER_ID.fullmatch(value["id"])
    ):
        name = value.get("name")
        reviewer = {
            "id": value["id"],
            "name": name[:80] if isinstance(name, str) else "",
            "hideResolved": value.get("hideResolved") is True,
            "folded": value.get("folded") is True,
        }
    return json_answer({"reviewer": reviewer}, 200)
