"""The local ``.maple/`` folder: the file comment store, its media, and git discovery.

Each name lives in, and is listed by, its own module; importing this package loads nothing, so
the Stop hook loads only git discovery and the records.
"""

__all__: list[str] = []
