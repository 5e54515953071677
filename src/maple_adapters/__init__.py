"""Adapters: one module or package per technology, each implementing ports of ``maple_core``.

Each name lives in, and is listed by, its own module; the stores a library builds are
re-exported by the :mod:`maple` facade. Importing this package loads nothing.
"""

__all__: list[str] = []
