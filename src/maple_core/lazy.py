"""Lazy package exports (PEP 562): a package's names are imported on first use.

The Stop hook imports a few modules of each package; importing a package's ``__init__`` must
not drag in the rest (dataclasses, pydantic, the MCP SDK).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, homes: Mapping[str, str], exported: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of a package whose names live in ``homes``.

    Args:
        package: the package's ``__name__``.
        homes: each exported name's module.
        exported: the package's ``__all__``.
    """
    module = sys.modules[package]

    def get(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(__import__(home, fromlist=[name]), name)
        setattr(module, name, value)
        return value

    def listing() -> list[str]:
        return sorted(exported)

    return get, listing
