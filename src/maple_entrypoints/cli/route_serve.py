"""``maple route serve``: Maple's route on uvicorn, on the file store, GitHub or sql.

Its options are checked before anything is built, and a port that cannot be listened on is one
line naming the fix rather than uvicorn's log.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from maple_entrypoints.cli.common import EXIT_CONFIG, EXIT_ERROR, command_group, fail

__all__ = ["route_app"]


route_app = command_group("Maple's route: the HTTP API overlays and agents use.")


@route_app.command("serve", epilog="Example: maple route serve --store github --port 8787")
def route_serve(
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help="file: the .maple/ folder here; github: the pull request, acting with each "
            "caller's bearer token (needs MAPLE_GITHUB_OWNER and MAPLE_GITHUB_REPO); sql: the "
            "database MAPLE_DATABASE_URL names, with the MCP endpoint at <prefix>/mcp.",
        ),
    ] = "file",
    workers: Annotated[
        int,
        typer.Option(
            "--workers", min=1, max=64, help="Worker processes on the one port (default: 1)."
        ),
    ] = 1,
    migrate: Annotated[
        bool,
        typer.Option("--migrate", help="With --store sql: run maple db upgrade before serving."),
    ] = False,
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="Port to listen on.")
    ] = 8787,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    prefix: Annotated[
        str, typer.Option("--prefix", help="Where the route is mounted.")
    ] = "/api/maple",
    review_url: Annotated[
        str | None,
        typer.Option(
            "--review-url",
            help="Where reviewers look at the preview: the merge gate's check-run link "
            "(default: MAPLE_REVIEW_URL; without either, the check run has no link).",
        ),
    ] = None,
) -> None:
    """Serve Maple's route (comments, media, approvals, gate refresh) with uvicorn."""
    import functools

    from maple_entrypoints.cli.common import route_server_here
    from maple_entrypoints.route.serve import serve_route, served_route
    from maple_entrypoints.route_settings import route_store
    from maple_entrypoints.settings import StoreKind

    try:
        kind = route_store(store)
    except ValueError:
        raise fail(
            f'unknown --store {store}; "file", "github" and "sql" exist.', EXIT_CONFIG
        ) from None
    if not prefix.startswith("/"):
        raise fail(f"--prefix must start with /, such as /api/maple; got {prefix}.", EXIT_CONFIG)
    if migrate and kind is not StoreKind.SQL:
        raise fail("--migrate needs --store sql: only the database has a schema.", EXIT_CONFIG)
    server = route_server_here(kind, Path.cwd(), review_url)  # refuse a bad setting now
    if migrate and server.sql is not None:
        done = server.sql.upgrade()
        if done.changed:
            sys.stderr.write(f"maple: migrated the database to revision {done.after}\n")
    cannot_listen = f"the route cannot listen on {host}:{port}"
    fix = "choose another --port or --host, or stop what listens there."
    try:
        _try_listening(host, port)
    except OSError as exc:
        raise fail(f"{cannot_listen} ({exc.strerror or exc}); {fix}", EXIT_ERROR) from None
    where = f"http://{host}:{port}{prefix.rstrip('/')}"
    each = f", {workers} workers" if workers > 1 else ""
    sys.stderr.write(f"maple: the route is at {where} ({kind.value} store{each})\n")
    recipe = functools.partial(served_route, kind.value, str(Path.cwd()), prefix, review_url, host)
    try:
        serve_route(recipe, host, port, workers)
    except SystemExit as exc:
        # uvicorn exits 3 when it cannot start, which would read as maple's "blocked gate".
        if exc.code == 3:
            raise fail(f"{cannot_listen} (uvicorn said why above); {fix}", EXIT_ERROR) from None
        raise


def _try_listening(host: str, port: int) -> None:
    """Bind and close ``host:port`` as uvicorn will, so a taken port is one line, not a log.

    Raises:
        OSError: the address cannot be listened on (taken, not allowed, or not this machine's).
    """
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.create_server((host, port), family=family):
        pass
