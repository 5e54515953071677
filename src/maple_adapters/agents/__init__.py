"""External coding agents: Codex (``codex app-server``) and Claude Code (``claude`` stream-json).

Each name lives in, and is listed by, its own module; importing this package loads nothing.
"""

__all__: list[str] = []
