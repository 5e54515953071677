"""``maple db upgrade``: the sql store's schema, migrated to this maple's revision."""

from __future__ import annotations

from pathlib import Path

from maple_entrypoints.cli.common import command_group, local_here

__all__ = ["db_app"]

db_app = command_group(
    "The sql store's database (MAPLE_DATABASE_URL).",
    epilog="Example: MAPLE_DATABASE_URL=postgresql://maple@db/maple maple db upgrade",
)


@db_app.command("upgrade", epilog="Example: maple db upgrade")
def upgrade() -> None:
    """Bring the database's schema to this maple's revision (safe to run again, or at once)."""
    database = local_here(Path.cwd()).database()
    done = database.upgrade()
    where = database.shown
    if done.changed:
        print(f"Migrated {where} from {done.before or 'an empty schema'} to {done.after}.")
    else:
        print(f"{where} is at revision {done.after} already; nothing to do.")
