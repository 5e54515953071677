"""GitHub: the pull-request ledger store and the check-run gate, over PyGithub or ``gh``.

Each name lives in, and is listed by, its own module; importing this package loads nothing.
"""

__all__: list[str] = []
