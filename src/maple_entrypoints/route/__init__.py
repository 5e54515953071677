"""Maple's route as an ASGI app (``route.app``), and ``maple route serve`` (``route.serve``).

Each name lives in, and is listed by, its own module; :mod:`maple` re-exports the app.
"""

__all__: list[str] = []
