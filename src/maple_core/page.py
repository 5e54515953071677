"""Putting the review overlay into an app's pages: the script tag, and only as much CSP as it needs.

Pure functions over bytes and strings, so the proxy's rewriting is tested without a browser:
:func:`inject_script` adds one tag before ``</body>``; :func:`relax_policy` widens a
Content-Security-Policy just enough for a same-origin script that fetches the same origin and
shows ``blob:`` images, and returns a policy that needs nothing unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Relaxed", "inject_script", "relax_header", "relax_meta_policies", "relax_policy"]

_BODY_END = re.compile(rb"</body\s*>", re.IGNORECASE)
_NONCE = re.compile(r"'nonce-([A-Za-z0-9+/_=-]+)'")
_META = re.compile(
    rb"<meta\b[^>]*http-equiv\s*=\s*[\"']?content-security-policy[\"']?[^>]*>", re.IGNORECASE
)
_CONTENT = re.compile(rb"(content\s*=\s*)(\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)


def inject_script(html: bytes, tag: bytes) -> bytes:
    """``html`` with ``tag`` inserted before its last ``</body>`` (at the end when it has none)."""
    matches = list(_BODY_END.finditer(html))
    if not matches:
        return html + tag
    at = matches[-1].start()
    return html[:at] + tag + html[at:]


@dataclass(frozen=True, slots=True)
class Relaxed:
    """A rewritten policy, and the nonce the overlay's script tag must carry (if any)."""

    policy: str
    nonce: str | None = None


def _directives(policy: str) -> list[tuple[str, list[str]]]:
    out = []
    for part in policy.split(";"):
        tokens = part.split()
        if tokens:
            out.append((tokens[0].lower(), tokens[1:]))
    return out


def _governing(directives: list[tuple[str, list[str]]], chain: tuple[str, ...]) -> int | None:
    names = [name for name, _ in directives]
    for name in chain:
        if name in names:
            return names.index(name)
    return None


def _allows(sources: list[str], needed: str) -> bool:
    lowered = [s.lower() for s in sources]
    if needed == "'self'":
        return "'self'" in lowered or "*" in lowered
    return needed in lowered


def relax_policy(policy: str, new_nonce: Callable[[], str]) -> Relaxed:
    """Widen one Content-Security-Policy just enough for the overlay.

    - Scripts (``script-src-elem``, else ``script-src``, else ``default-src``): reuse a nonce the
      page's policy already has; under ``'strict-dynamic'`` without one, add a new nonce; else
      make sure ``'self'`` is allowed.
    - ``connect-src`` (else ``default-src``): allow ``'self'`` (the route is same-origin).
    - ``img-src`` (else ``default-src``): allow ``blob:``.

    A policy that already allows all of that is returned as it was, character for character.
    """
    directives = _directives(policy)
    changed = False
    nonce: str | None = None

    def add(index: int, source: str) -> None:
        nonlocal changed
        name, sources = directives[index]
        kept = [s for s in sources if s.lower() != "'none'"]
        directives[index] = (name, [*kept, source])
        changed = True

    script = _governing(directives, ("script-src-elem", "script-src", "default-src"))
    if script is not None:
        sources = directives[script][1]
        found = next((m.group(1) for s in sources if (m := _NONCE.fullmatch(s))), None)
        if found is not None:
            nonce = found
        elif "'strict-dynamic'" in [s.lower() for s in sources]:
            nonce = new_nonce()
            add(script, f"'nonce-{nonce}'")
        elif not _allows(sources, "'self'"):
            add(script, "'self'")
    connect = _governing(directives, ("connect-src", "default-src"))
    if connect is not None and not _allows(directives[connect][1], "'self'"):
        add(connect, "'self'")
    image = _governing(directives, ("img-src", "default-src"))
    if image is not None and not _allows(directives[image][1], "blob:"):
        add(image, "blob:")
    if not changed:
        return Relaxed(policy, nonce)
    return Relaxed("; ".join(" ".join([name, *sources]) for name, sources in directives), nonce)


def relax_header(value: str, new_nonce: Callable[[], str]) -> Relaxed:
    """A ``Content-Security-Policy`` header value, which may hold several policies (commas)."""
    parts = value.split(",")
    relaxed = [relax_policy(part, new_nonce) for part in parts]
    nonce = next((r.nonce for r in relaxed if r.nonce), None)
    if all(r.policy == p for r, p in zip(relaxed, parts, strict=True)):
        return Relaxed(value, nonce)
    return Relaxed(",".join(r.policy for r in relaxed), nonce)


def relax_meta_policies(html: bytes, new_nonce: Callable[[], str]) -> tuple[bytes, str | None]:
    """``html`` with every ``<meta http-equiv="Content-Security-Policy">`` relaxed, and a nonce."""
    nonce: str | None = None

    def meta(match: re.Match[bytes]) -> bytes:
        nonlocal nonce

        def content(found: re.Match[bytes]) -> bytes:
            nonlocal nonce
            quoted = found.group(3) if found.group(3) is not None else found.group(4)
            relaxed = relax_header(quoted.decode("latin-1"), new_nonce)
            nonce = nonce or relaxed.nonce
            quote = b'"' if found.group(3) is not None else b"'"
            return found.group(1) + quote + relaxed.policy.encode("latin-1") + quote

        return _CONTENT.sub(content, match.group(0), count=1)

    return _META.sub(meta, html), nonce
