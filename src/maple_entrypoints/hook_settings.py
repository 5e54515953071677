"""The Stop hook's environment, read with the standard library alone.

The hook runs at every stop of every agent turn, so its start-up must stay close to a bare
interpreter's: this module reads the variables the hook needs without pydantic. It and
``settings.py`` are the only modules that read the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from maple_core.frozen import Frozen

__all__ = ["HookSettings", "read_hook_settings"]


class HookSettings(Frozen):
    """``MAPLE_BRANCH``, the forge variables and ``MAPLE_STORE``; empty values read as unset."""

    __slots__ = ("branch", "owner", "repo", "store", "temp_dir")
    branch: str | None
    owner: str | None
    repo: str | None
    store: str | None
    temp_dir: str

    def __init__(
        self,
        branch: str | None = None,
        owner: str | None = None,
        repo: str | None = None,
        store: str | None = None,
        temp_dir: str = "/tmp",
    ) -> None:
        self._set(
            branch=branch,
            owner=owner,
            repo=repo,
            store=store,
            temp_dir=temp_dir,
        )

    @property
    def forge(self) -> bool:
        """Maple's hook consults GitHub when an owner or a repository is set (not a token alone)."""
        return bool(self.owner or self.repo)


def read_hook_settings(environ: Mapping[str, str] | None = None) -> HookSettings:
    """Read the hook's variables from ``environ`` (default: the process environment).

    The temporary directory is found as Node's ``os.tmpdir()`` finds it (``TMPDIR``, ``TMP``,
    ``TEMP``, else ``/tmp``), so Maple's hook and this one keep their counters in the same place.
    """
    env = os.environ if environ is None else environ
    temp = env.get("TMPDIR") or env.get("TMP") or env.get("TEMP") or "/tmp"
    return HookSettings(
        branch=env.get("MAPLE_BRANCH") or None,
        owner=env.get("MAPLE_GITHUB_OWNER") or None,
        repo=env.get("MAPLE_GITHUB_REPO") or None,
        store=env.get("MAPLE_STORE"),
        temp_dir=temp.rstrip("/") or "/",
    )
