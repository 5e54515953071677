"""Where a working directory's comments live: ``<main checkout>/.maple/<slug>/``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.files.git import find_checkout

__all__ = ["LocalPlace", "resolve_place", "slug", "url_slug"]

_OUTSIDE = re.compile(r"[^a-z0-9._]+")
_SCHEME = re.compile(r"^[^:/?#]*://")


def slug(text: str) -> str:
    """Maple's folder name for a branch: lowercase, other runs → ``-``, ends trimmed.

    ``feat/x`` → ``feat-x``; an empty result is ``default``.
    """
    cleaned = _OUTSIDE.sub("-", text.lower()).strip("-.")
    return cleaned or "default"


def url_slug(url: str) -> str:
    """Maple's folder name for an app address: its authority, slugged.

    ``http://localhost:3000/`` → ``localhost-3000``.
    """
    rest = _SCHEME.sub("", url, count=1)
    authority = re.split(r"[/?#]", rest, maxsplit=1)[0]
    return slug(authority)


@dataclass(frozen=True, slots=True)
class LocalPlace:
    """The folder a working directory's comments live in, and the branch that named it."""

    root: Path
    key: str
    branch: str | None

    @property
    def directory(self) -> Path:
        """``<root>/.maple/<key>``."""
        return self.root / ".maple" / self.key

    @property
    def ledger(self) -> Path:
        """``<root>/.maple/<key>/comments.json``."""
        return self.directory / "comments.json"


def resolve_place(cwd: Path, *, root: Path | None = None, url: str | None = None) -> LocalPlace:
    """Resolve the place for ``cwd`` as Maple does, on every call.

    The folder is keyed by the branch checked out in ``cwd`` (not by a comment's branch), else by
    ``url``, else ``default``; it sits at the main checkout so every worktree shares it.
    """
    checkout = find_checkout(cwd)
    base = root.resolve() if root is not None else checkout.root
    if checkout.branch:
        key = slug(checkout.branch)
    elif url:
        key = url_slug(url)
    else:
        key = "default"
    return LocalPlace(root=base, key=key, branch=checkout.branch)
