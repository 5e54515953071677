"""The ``sql`` store: comments in PostgreSQL (a team) or SQLite (one box), through SQLAlchemy 2.

Each name lives in, and is listed by, its own module (``maple_adapters.sql.store``,
``maple_adapters.sql.database``…); importing this package loads nothing, and nothing on the Stop
hook's or ``maple-mcp``'s start-up path imports its modules unless ``MAPLE_STORE=sql`` is
configured.
"""

__all__: list[str] = []
