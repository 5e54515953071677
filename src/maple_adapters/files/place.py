"""Where a working directory's comments live: ``<main checkout>/.maple/<slug>/``."""

from __future__ import annotations

import os

from maple_adapters.files.git import find_checkout
from maple_core.frozen import Frozen

__all__ = ["LocalPlace", "resolve_place", "slug", "url_slug"]

# Plain string work rather than regular expressions: the Stop hook resolves a place on every
# stop, and importing ``re`` costs a quarter of a bare interpreter's start.
_KEEP = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._")


def slug(text: str) -> str:
    """Maple's folder name for a branch: lowercase, other runs → ``-``, ends trimmed.

    ``feat/x`` → ``feat-x``; an empty result is ``default``.
    """
    out: list[str] = []
    for char in text.lower():
        if char in _KEEP:
            out.append(char)
        elif not out or out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-.") or "default"


def url_slug(url: str) -> str:
    """Maple's folder name for an app address: its authority, slugged.

    ``http://localhost:3000/`` → ``localhost-3000``. As Maple's ``normalizeUrl`` reads it,
    everything up to the first ``://`` is dropped wherever it is, so both tools name one folder
    for an address without a scheme whose query holds one.
    """
    scheme_end = url.find("://")
    rest = url[scheme_end + 3 :] if scheme_end >= 0 else url
    for stop in "/?#":
        rest = rest.split(stop, 1)[0]
    return slug(rest)


class LocalPlace(Frozen):
    """The folder a working directory's comments live in, and the branch that named it."""

    __slots__ = ("branch", "key", "root")
    root: str
    key: str
    branch: str | None

    def __init__(self, root: str, key: str, branch: str | None) -> None:
        self._set(root=root, key=key, branch=branch)

    @property
    def directory(self) -> str:
        """``<root>/.maple/<key>``."""
        return os.path.join(self.root, ".maple", self.key)

    @property
    def ledger(self) -> str:
        """``<root>/.maple/<key>/comments.json``."""
        return os.path.join(self.root, ".maple", self.key, "comments.json")


def resolve_place(
    cwd: str | os.PathLike[str],
    *,
    root: str | os.PathLike[str] | None = None,
    url: str | None = None,
) -> LocalPlace:
    """Resolve the place for ``cwd`` as Maple does, on every call.

    The folder is keyed by the branch checked out in ``cwd`` (not by a comment's branch), else by
    ``url``, else ``default``; it sits at the main checkout so every worktree shares it.
    """
    checkout = find_checkout(cwd)
    base = os.path.realpath(root) if root is not None else checkout.root
    if checkout.branch:
        key = slug(checkout.branch)
    elif url:
        key = url_slug(url)
    else:
        key = "default"
    return LocalPlace(base, key, checkout.branch)
