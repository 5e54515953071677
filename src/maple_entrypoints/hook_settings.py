"""The Stop hook's environment, read with the standard library alone.

The hook runs at every stop of every agent turn, so its start-up must stay close to a bare
interpreter's: this module reads the variables the hook needs from the same table as
``settings.py`` (``maple_core.environment``), without pydantic. The two are the only modules that
read the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from maple_core.environment import read_variable
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

    @property
    def configured_store(self) -> bool:
        """Whether the hook lists the configured store rather than reading ``.maple/``.

        On a forge (as Maple's hook), or when ``MAPLE_STORE=sql`` keeps comments in a database.
        """
        return self.forge or self.store == "sql"


def read_hook_settings(environ: Mapping[str, str] | None = None) -> HookSettings:
    """Read the hook's variables from ``environ`` (default: the process environment).

    The temporary directory is found as Node's ``os.tmpdir()`` finds it (``TMPDIR``, ``TMP``,
    ``TEMP``, else ``/tmp``), so Maple's hook and this one keep their counters in the same place.
    """
    env = os.environ if environ is None else environ

    def read(name: str) -> str | None:
        return read_variable(env, name)

    temp = read("TMPDIR") or read("TMP") or read("TEMP") or "/tmp"
    return HookSettings(
        branch=read("MAPLE_BRANCH"),
        owner=read("MAPLE_GITHUB_OWNER"),
        repo=read("MAPLE_GITHUB_REPO"),
        store=read("MAPLE_STORE"),
        temp_dir=temp.rstrip("/") or "/",
    )
