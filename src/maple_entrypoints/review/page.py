"""Putting the review overlay into an app's pages: the script tag, and only as much CSP as it needs.

Pure functions over bytes and strings, so the proxy's rewriting is tested without a browser:
:func:`inject_script` adds one tag before ``</body>``; :func:`relax_policy` lets a
Content-Security-Policy load the overlay's one script and fetch its one API, and nothing else.

The overlay needs exactly two things from a page's policies: its ``<script>`` element must load
(the page's nonce, a new nonce under ``'strict-dynamic'``, or else the script's own URL), and it
must fetch its API (the API's URL prefix). Both URLs are on the proxy's origin and are added as
path-scoped sources, never ``'self'``, so the app's own scripts, fetches, images and frames are
allowed exactly what they were. Nothing else is ever added: no ``*``, scheme, ``'unsafe-…'``
keyword or other origin; no directive or source is dropped but a ``'none'`` that a new source
replaces (``'none'`` beside another source means nothing); and a policy that already allows the
overlay passes byte for byte.
"""

from __future__ import annotations

import html as html_text
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = [
    "OverlayNeeds",
    "allows_capture",
    "inject_script",
    "meta_policies",
    "overlay_nonce",
    "relax_header",
    "relax_meta_policies",
    "relax_policy",
]

_BODY_END = re.compile(rb"</body\s*>", re.IGNORECASE)
_NONCE = re.compile(r"'(?i:nonce)-([A-Za-z0-9+/_-]+={0,2})'")
_META = re.compile(
    rb"<meta\b[^>]*?\bhttp-equiv\s*=\s*([\"']?)content-security-policy\1(?=[\s/>])[^>]*>",
    re.IGNORECASE,
)
_CONTENT = re.compile(rb"(?<![\w-])(content\s*=\s*)(\"([^\"]*)\"|'([^']*)')", re.IGNORECASE)
_SCRIPTS = ("script-src-elem", "script-src", "default-src")
_CONNECTS = ("connect-src", "default-src")
_IMAGES = ("img-src", "default-src")


def inject_script(html: bytes, tag: bytes) -> bytes:
    """``html`` with ``tag`` inserted before its last ``</body>`` (at the end when it has none)."""
    matches = list(_BODY_END.finditer(html))
    if not matches:
        return html + tag
    at = matches[-1].start()
    return html[:at] + tag + html[at:]


@dataclass(frozen=True, slots=True)
class OverlayNeeds:
    """The two URLs the overlay needs a page's policy to allow, both on the proxy's origin.

    ``script`` is the overlay script's URL (``http://127.0.0.1:8123/__maple/overlay.js``), matched
    exactly; ``api`` is its API's prefix, ending in ``/`` (``http://127.0.0.1:8123/__maple/api/``).
    """

    script: str
    api: str


def _directives(policy: str) -> list[tuple[str, list[str]]]:
    out = []
    for part in policy.split(";"):
        tokens = part.split()
        if tokens:
            out.append((tokens[0].lower(), tokens[1:]))
    return out


def _governing(directives: list[tuple[str, list[str]]], chain: tuple[str, ...]) -> int | None:
    """The index of the directive governing a fetch: the first of ``chain`` present (first wins)."""
    names = [name for name, _ in directives]
    for name in chain:
        if name in names:
            return names.index(name)
    return None


def _nonces(sources: list[str]) -> set[str]:
    return {m.group(1) for s in sources if (m := _NONCE.fullmatch(s))}


def _strict_dynamic(sources: list[str]) -> bool:
    return "'strict-dynamic'" in (s.lower() for s in sources)


def _allows(sources: list[str], url: str) -> bool:
    """True when ``sources`` surely allow ``url`` on the page's own origin (unsure: False)."""
    lowered = {s.lower() for s in sources}
    scheme = url.split("://", 1)[0] + ":"
    return bool(lowered & {"'self'", "*", scheme, url.lower()})


def _script_sources(policy: str) -> list[str] | None:
    directives = _directives(policy)
    index = _governing(directives, _SCRIPTS)
    return None if index is None else directives[index][1]


def _policies(values: Iterable[str]) -> list[str]:
    return [policy for value in values for policy in value.split(",")]


def overlay_nonce(policies: Iterable[str], new_nonce: Callable[[], str]) -> str | None:
    """The nonce the overlay's tag carries, given every policy on the page, or None for none.

    ``policies`` are all of the page's enforced policies (header values, which may hold several
    separated by commas, and ``<meta>`` ones). A policy with ``'strict-dynamic'`` ignores URLs, so
    it needs a nonce: the page's own when every such policy already has it (then they stay
    unchanged), else a new one from ``new_nonce`` that only the overlay's tag carries, so adding
    it lets nothing else run. Without ``'strict-dynamic'``, a nonce every nonce-using policy
    shares is reused (those pass unchanged); other policies get the script's URL instead.
    """
    lists = [s for s in map(_script_sources, _policies(policies)) if s is not None]
    strict = [_nonces(s) for s in lists if _strict_dynamic(s)]
    using = strict or [found for found in map(_nonces, lists) if found]
    if not using:
        return None
    shared = set.intersection(*using)
    if shared:
        return min(shared)
    return new_nonce() if strict else None


def allows_capture(policies: Iterable[str]) -> bool:
    """Whether every policy on the page lets it show ``data:`` images.

    The overlay's capture draws the page through a ``data:`` SVG image; where a policy forbids
    them the overlay is told not to capture (a blocked image is a reported violation), and the
    policy is not widened for it.
    """
    for policy in _policies(policies):
        directives = _directives(policy)
        index = _governing(directives, _IMAGES)
        if index is not None and "data:" not in (s.lower() for s in directives[index][1]):
            return False
    return True


def relax_policy(policy: str, needs: OverlayNeeds, nonce: str | None) -> str:
    """One Content-Security-Policy, allowing the overlay's script and API and nothing more.

    - The script, under the directive that governs ``<script>`` elements (``script-src-elem``,
      else ``script-src``, else ``default-src``): allowed if that list has ``nonce`` (the tag's,
      from :func:`overlay_nonce`); under ``'strict-dynamic'``, by adding ``nonce``; else by
      ``'self'``, ``*``, the scheme or the URL already there, or by adding ``needs.script``.
    - The API, under ``connect-src``, else ``default-src``: allowed by ``'self'``, ``*``, the
      scheme or the prefix already there, or by adding ``needs.api``.

    When the governing list is ``default-src``, the source goes into a new ``script-src`` or
    ``connect-src`` holding ``default-src``'s sources and it, so ``default-src`` itself (images,
    frames, fonts…) is never widened. A policy that already allows both is returned character for
    character.
    """
    directives = _directives(policy)
    changed = False

    def add(index: int, own: str, source: str) -> None:
        nonlocal changed
        name, sources = directives[index]
        kept = [s for s in sources if s.lower() != "'none'"]
        if name == "default-src":
            directives.append((own, [*kept, source]))
        else:
            directives[index] = (name, [*kept, source])
        changed = True

    script = _governing(directives, _SCRIPTS)
    if script is not None:
        sources = directives[script][1]
        if nonce is not None and nonce in _nonces(sources):
            pass
        elif _strict_dynamic(sources):
            if nonce is not None:
                add(script, "script-src", f"'nonce-{nonce}'")
        elif not _allows(sources, needs.script):
            add(script, "script-src", needs.script)
    connect = _governing(directives, _CONNECTS)
    if connect is not None and not _allows(directives[connect][1], needs.api):
        add(connect, "connect-src", needs.api)
    if not changed:
        return policy
    return "; ".join(" ".join([name, *sources]) for name, sources in directives)


def relax_header(value: str, needs: OverlayNeeds, nonce: str | None) -> str:
    """A ``Content-Security-Policy`` header value, which may hold several policies (commas).

    Each policy is enforced on its own, so each is relaxed on its own; a value that needs nothing
    is returned as it was.
    """
    parts = value.split(",")
    relaxed = [relax_policy(part, needs, nonce) for part in parts]
    return value if relaxed == parts else ",".join(relaxed)


def meta_policies(html: bytes) -> list[str]:
    """The policies of every ``<meta http-equiv="Content-Security-Policy">`` in ``html``."""
    found = []
    for meta in _META.finditer(html):
        content = _CONTENT.search(meta.group(0))
        if content is not None:
            found.append(_attribute(content))
    return found


def _attribute(found: re.Match[bytes]) -> str:
    quoted = found.group(3) if found.group(3) is not None else found.group(4)
    return html_text.unescape(quoted.decode("latin-1"))


def relax_meta_policies(html: bytes, needs: OverlayNeeds, nonce: str | None) -> bytes:
    """``html`` with every ``<meta http-equiv="Content-Security-Policy">`` relaxed in place.

    A ``<meta>`` that needs nothing is left byte for byte; a relaxed one is written back escaped,
    in double quotes.
    """

    def meta(match: re.Match[bytes]) -> bytes:
        def content(found: re.Match[bytes]) -> bytes:
            policy = _attribute(found)
            relaxed = relax_header(policy, needs, nonce)
            if relaxed == policy:
                return found.group(0)
            escaped = html_text.escape(relaxed, quote=True).encode("latin-1")
            return found.group(1) + b'"' + escaped + b'"'

        return _CONTENT.sub(content, match.group(0), count=1)

    return _META.sub(meta, html)
