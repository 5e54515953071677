"""A deployed Maple route as a store (``MAPLE_STORE=route``) and as the gate's refresher.

Each name lives in, and is listed by, its own module; importing this package loads nothing.
"""

__all__: list[str] = []
