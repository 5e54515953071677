"""Commands that keep running: `maple mcp`, `maple hook stop` and `maple solo`.

`maple route serve` is ``cli/route_serve.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from maple_entrypoints.cli.common import EXIT_ERROR, command_group, fail, local_here

__all__ = ["hook_app", "mcp_server", "solo"]


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
    from maple_entrypoints.solo import start_bridge

    classifier = local_here(Path.cwd()).classifier()  # a harness that cannot read stops us here
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
