"""Who may talk to a solo bridge, and the link that pairs a preview with it.

A solo bridge lets a deployed preview, open in the reviewer's own browser, write comments into
this machine's ``.maple/`` folder. Anything on the machine, and any page the browser has open,
can reach ``127.0.0.1``, so every request must prove three things before the route sees it: it
was addressed to the bridge (``Host``, against DNS rebinding), it carries the pairing token
(``x-maple-solo``), and it comes from the paired preview (``Origin``). The decision is a pure
function of the request's headers so it can be tested as a table.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from maple_core.errors import InvalidInputError
from maple_entrypoints.route.answers import RouteRefusalError
from maple_entrypoints.route.app import DEFAULT_BASE_PATH

__all__ = [
    "MEDIA_PATH",
    "SoloRequest",
    "SoloRules",
    "origin_of",
    "pairing_of",
    "solo_link",
    "solo_refusal",
]

MEDIA_PATH = DEFAULT_BASE_PATH + "/media/"
"""Where the bridge serves screenshots (the one path a query token may open)."""

_NOT_THE_BRIDGE = "This is not the bridge's address."
_NOT_PAIRED = "This origin is not paired."
_TOKEN_REQUIRED = "A pairing token is required."
_NOT_A_ROUTE = "Not a Maple route."


def origin_of(address: str) -> str:
    """The origin (``scheme://host[:port]``) of an http or https address.

    Raises:
        InvalidInputError: the address is not an absolute http or https URL.
    """
    try:
        parts = urlsplit(address.strip())
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InvalidInputError(
            f"{address} is not an http or https address; give the preview's URL, such as "
            "https://feat-login.preview.example."
        )
    scheme = parts.scheme.lower()
    host = parts.hostname
    if ":" in host:
        host = f"[{host}]"
    default = {"http": 80, "https": 443}[scheme]
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


@dataclass(frozen=True, slots=True)
class SoloRules:
    """What one bridge accepts: its port, its pairing token and the paired origin."""

    port: int
    token: str
    origin: str

    @property
    def hosts(self) -> frozenset[str]:
        """The ``Host`` values addressed to the bridge."""
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})


@dataclass(frozen=True, slots=True)
class SoloRequest:
    """The parts of a request the bridge judges (header values ``None`` when absent).

    An empty header value counts as absent, as Maple's bridge reads it: an empty ``Origin`` on
    a screenshot ``GET`` leaves the ``Referer`` to decide, and an empty ``x-maple-solo`` leaves
    the query's token to.
    """

    method: str
    path: str
    host: str | None = None
    origin: str | None = None
    referer: str | None = None
    token_header: str | None = None
    token_query: str | None = None


def _same_token(given: str | None, expected: str) -> bool:
    if not given:
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


def _referer_origin(referer: str | None) -> str | None:
    if not referer:
        return None
    try:
        return origin_of(referer)
    except InvalidInputError:
        return None


def solo_refusal(request: SoloRequest, rules: SoloRules) -> RouteRefusalError | None:
    """Why ``request`` must be refused, or ``None`` when it may reach the route.

    The refusal is the route's own (its status and error), answered as the route answers it.
    In order: the ``Host`` must be the bridge's (403); a preflight needs only the paired
    ``Origin`` (it carries no token); the token must match, from ``x-maple-solo`` or, for a
    ``GET`` of a screenshot only, the ``maple-solo`` query parameter (401); the ``Origin`` must
    be the paired one, or for a screenshot ``GET`` without one the ``Referer``'s (403); and the
    path must be the route's (403). An empty header counts as none.
    """
    if not request.host or request.host not in rules.hosts:
        return RouteRefusalError(403, _NOT_THE_BRIDGE)
    origin = request.origin or None
    if request.method == "OPTIONS":
        return None if origin == rules.origin else RouteRefusalError(403, _NOT_PAIRED)
    media_get = request.method == "GET" and request.path.startswith(MEDIA_PATH)
    token = request.token_header or (request.token_query if media_get else None)
    if not _same_token(token, rules.token):
        return RouteRefusalError(401, _TOKEN_REQUIRED)
    if origin is None and media_get:
        origin = _referer_origin(request.referer)
    if origin != rules.origin:
        return RouteRefusalError(403, _NOT_PAIRED)
    if request.path != DEFAULT_BASE_PATH and not request.path.startswith(DEFAULT_BASE_PATH + "/"):
        return RouteRefusalError(403, _NOT_A_ROUTE)
    return None


def solo_link(preview_url: str, token: str, bridge_url: str) -> str:
    """The preview's URL with its fragment replaced by the pairing (path and query kept).

    ``#maple-solo=<token>&maple-bridge=<bridge URL, form-encoded>``.
    """
    parts = urlsplit(preview_url)
    fragment = urlencode([("maple-solo", token), ("maple-bridge", bridge_url)])
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, fragment))


def pairing_of(link: str) -> tuple[str, str] | None:
    """The token and bridge URL a link carries, or ``None`` (what an overlay reads)."""
    pairs = dict(parse_qsl(urlsplit(link).fragment))
    token, bridge = pairs.get("maple-solo"), pairs.get("maple-bridge")
    return (token, bridge) if token and bridge else None
