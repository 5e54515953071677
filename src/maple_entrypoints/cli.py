"""``maple``: the command line for humans. Data goes to stdout, diagnostics to stderr.

Exit codes: 0 success, 1 a store or input error, 2 a usage or configuration error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from maple_adapters.files import find_checkout
from maple_core.comments import Comment, NewComment
from maple_core.errors import ConfigurationError, MapleError
from maple_core.services import list_all
from maple_core.statuses import CommentStatus
from maple_entrypoints.wiring import store_from_environment

__all__ = ["EXIT_CONFIG", "EXIT_ERROR", "app", "main"]

EXIT_ERROR = 1
"""A store or input error."""
EXIT_CONFIG = 2
"""A usage or configuration error."""

app = typer.Typer(
    name="maple",
    help="Review comments for coding agents: read, add and resolve them from the terminal.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
comments_app = typer.Typer(help="Read and write review comments.", no_args_is_help=True)
app.add_typer(comments_app, name="comments")

BranchOption = Annotated[
    str | None,
    typer.Option("--branch", "-b", help="Head branch the comments are on; default: checked out."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(f"maple: {message}\n")  # one line, never wrapped to the terminal's width
    return typer.Exit(code)


def _branch(explicit: str | None, cwd: Path) -> str:
    if explicit:
        return explicit
    branch = find_checkout(cwd).branch
    if branch is None:
        raise _fail("no branch is checked out here; pass --branch NAME.", EXIT_CONFIG)
    return branch


def _store(cwd: Path):  # type: ignore[no-untyped-def]
    try:
        return store_from_environment(cwd=cwd)
    except ConfigurationError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None


def _print_comments(comments: list[Comment]) -> None:
    if not sys.stdout.isatty():
        for c in comments:
            first = c.body.splitlines()[0] if c.body else ""
            print(f"{c.id}\t{c.status.value}\t{c.created_at or ''}\t{first}")
        return
    table = Table("id", "status", "created", "comment", title=f"{len(comments)} comment(s)")
    for c in comments:
        table.add_row(c.id, c.status.value, c.created_at or "", c.body)
    Console().print(table)


@comments_app.command("list")
def list_comments(
    branch: BranchOption = None,
    status: Annotated[
        list[CommentStatus] | None,
        typer.Option("--status", "-s", help="Only this status; repeat for several."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List the review comments on a branch, newest first."""
    cwd = Path.cwd()
    store = _store(cwd)
    try:
        comments = list_all(store, _branch(branch, cwd), status or None)
    except MapleError as exc:
        raise _fail(str(exc), EXIT_ERROR) from None
    if as_json:
        print(json.dumps([c.to_json() for c in comments], indent=2, ensure_ascii=False))
    else:
        _print_comments(comments)


@comments_app.command("add")
def add_comment(
    body: Annotated[str, typer.Option("--body", help="The comment's text.")],
    branch: BranchOption = None,
    as_json: JsonOption = False,
) -> None:
    """Add a review comment to a branch."""
    cwd = Path.cwd()
    store = _store(cwd)
    try:
        stored = store.append(NewComment(branch=_branch(branch, cwd), body=body))
    except MapleError as exc:
        raise _fail(str(exc), EXIT_ERROR) from None
    if as_json:
        print(json.dumps(stored.to_json(), indent=2, ensure_ascii=False))
    else:
        print(stored.id)


hook_app = typer.Typer(help="Hooks for coding agents.", no_args_is_help=True)
app.add_typer(hook_app, name="hook")


@hook_app.command(
    "stop", context_settings={"allow_extra_args": True, "ignore_unknown_options": True}
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


@app.command("mcp")
def mcp_server() -> None:
    """Run the MCP server over stdio (the same program as ``maple-mcp``)."""
    from maple_entrypoints.mcp_server import main as serve

    serve()


route_app = typer.Typer(help="Maple's route: the HTTP API overlays and agents use.")
app.add_typer(route_app, name="route", no_args_is_help=True)


@route_app.command("serve")
def route_serve(
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help="file: the .maple/ folder here; github: the pull request, acting with each "
            "caller's bearer token (needs MAPLE_GITHUB_OWNER and MAPLE_GITHUB_REPO).",
        ),
    ] = "file",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8787,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    prefix: Annotated[
        str, typer.Option("--prefix", help="Where the route is mounted.")
    ] = "/api/maple",
) -> None:
    """Serve Maple's route (comments, media, approvals, gate refresh) with uvicorn."""
    from maple_entrypoints.route.serve import RouteStoreKind, route_options, serve_route
    from maple_entrypoints.settings import load_settings

    try:
        kind = RouteStoreKind(store)
    except ValueError:
        raise _fail(f'unknown --store {store}; "file" and "github" exist.', EXIT_CONFIG) from None
    if not prefix.startswith("/"):
        raise _fail(f"--prefix must start with /, such as /api/maple; got {prefix}.", EXIT_CONFIG)
    try:
        options = route_options(load_settings(), kind, Path.cwd())
    except ConfigurationError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    where = f"http://{host}:{port}{prefix.rstrip('/')}"
    sys.stderr.write(f"maple: the route is at {where} ({kind.value} store)\n")
    serve_route(options, host, port, prefix)


@app.command("solo")
def solo(
    preview_url: Annotated[
        str, typer.Argument(help="The deployed preview's URL; only its origin is paired.")
    ],
    port: Annotated[
        int, typer.Option("--port", help="Port on 127.0.0.1; default: a free one.")
    ] = 0,
) -> None:
    """Pair a deployed preview with this machine: its comments land in .maple/ here.

    Prints the link to open in your browser, then serves until Ctrl-C. Solo comments never
    count toward the merge gate.
    """
    import signal
    import threading

    from maple_entrypoints.server_log import ServerLog
    from maple_entrypoints.solo import start_bridge

    try:
        bridge = start_bridge(preview_url, port=port, log=ServerLog("maple-solo"))
    except MapleError as exc:
        raise _fail(str(exc), EXIT_CONFIG) from None
    print(bridge.link(preview_url), flush=True)
    sys.stderr.write(
        f"maple: the bridge for {bridge.origin} is at {bridge.url}; comments land in .maple/ "
        "here. Open the link above in your browser; Ctrl-C stops it.\n"
    )
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        bridge.stop()


def main() -> None:
    """Run the ``maple`` command."""
    app()
