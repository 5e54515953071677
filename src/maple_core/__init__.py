"""maple's pure domain core: values, decisions, ports and use cases, standard library only.

Each name lives in, and is listed by, its own module (``maple_core.comments``,
``maple_core.waiting``…); the library's public surface is the :mod:`maple` facade. Importing
this package loads nothing, so the Stop hook loads only the modules it needs.
"""

__all__: list[str] = []
