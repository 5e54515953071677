"""Commands that keep running: `maple mcp`, `maple hook stop`, `maple route serve`, `maple solo`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from maple_entrypoints.cli.common import EXIT_CONFIG, EXIT_ERROR, command_group, fail

__all__ = ["hook_app", "mcp_server", "route_app", "solo"]


hook_app = command_group("Hooks for coding agents.")


@hook_app.command(
    "stop",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    epilog='Example: echo \'{"session_id": "s1"}\' | maple hook stop --client claude',
)
def stop_hook(
    client: Annotated[
        str | None,
        typer.Option("--client", help="claude, codex or cursor; detected when omitted."),
    ] = None,
) -> None:
    """Run the Stop hook (the same program as ``maple-stop-hook``)."""
    from maple_entrypoints.stop_hook import main as hook

    raise typer.Exit(hook(["--client", client] if client else []))


def mcp_server() -> None:
    """Run the MCP server over stdio (the same program as ``maple-mcp``)."""
    from maple_entrypoints.mcp_start import main as serve

    serve()


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
    from maple_entrypoints.route_settings import RouteStoreKind

    try:
        kind = RouteStoreKind(store)
    except ValueError:
        raise fail(
            f'unknown --store {store}; "file", "github" and "sql" exist.', EXIT_CONFIG
        ) from None
    if not prefix.startswith("/"):
        raise fail(f"--prefix must start with /, such as /api/maple; got {prefix}.", EXIT_CONFIG)
    if migrate and kind is not RouteStoreKind.SQL:
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


def solo(
    preview_url: Annotated[
        str, typer.Argument(help="The deployed preview's URL; only its origin is paired.")
    ],
    port: Annotated[
        int,
        typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1; default: a free one."),
    ] = 0,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print {link, bridge, origin} as one JSON line instead."),
    ] = False,
) -> None:
    """Pair a deployed preview with this machine: its comments land in .maple/ here.

    Prints the link to open in your browser, then serves until Ctrl-C. Solo comments never
    count toward the merge gate. An address that cannot be paired, or a port that cannot be
    listened on, exits 1.
    """
    import json
    import signal
    import threading

    from maple_adapters.log import ServerLog
    from maple_core.errors import MapleError
    from maple_entrypoints.cli.common import classifier_here
    from maple_entrypoints.solo import start_bridge

    classifier = classifier_here()  # a harness that cannot read stops us here
    stopped = threading.Event()  # set by SIGTERM, taken before the link can be read
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        bridge = start_bridge(
            preview_url, port=port, log=ServerLog("maple-solo"), classifier=classifier
        )
    except MapleError as exc:  # Maple's words first, as its own CLI says it
        raise fail(f"Could not start the solo bridge: {exc}", EXIT_ERROR) from None
    try:  # from here Ctrl-C is the way to stop, even before the link is out
        link = bridge.link(preview_url)
        if as_json:
            shown = {"link": link, "bridge": bridge.url, "origin": bridge.origin}
            print(json.dumps(shown, ensure_ascii=False), flush=True)
        else:
            print(link, flush=True)
        sys.stderr.write(
            f"maple: the bridge for {bridge.origin} is at {bridge.url}; comments land in "
            ".maple/ here. Open the link above in your browser; Ctrl-C stops it.\n"
        )
        # A timed wait: the kernel may deliver Ctrl-C or SIGTERM to the bridge's thread, and
        # Python runs the handler only once the main thread wakes, which an untimed wait never does.
        while not stopped.wait(0.25):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        bridge.stop()
