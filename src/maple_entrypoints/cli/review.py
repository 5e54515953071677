"""``maple review``: comment on a running app from the browser."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer

from maple_entrypoints.bootstrap.local import find_checkout
from maple_entrypoints.cli.common import EXIT_CONFIG, EXIT_ERROR, fail

__all__ = ["review"]

_ADDRESS = re.compile(r"https?://(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]):\d{1,5}")
_CMD_WAIT_S = 60.0


def _stop_group(process: subprocess.Popen[str]) -> None:
    """Stop the command and everything it started (its own process group)."""
    import os
    import signal

    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _address_from(command: str) -> tuple[str, subprocess.Popen[str]]:
    """Start ``command`` and read the first local address it prints (its output is relayed)."""
    process = subprocess.Popen(
        command,
        shell=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    found: list[str] = []
    ready = threading.Event()

    def relay() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stderr.write(line)
            match = _ADDRESS.search(line)
            if match and not found:
                found.append(match.group(0).replace("0.0.0.0", "127.0.0.1"))
                ready.set()
        ready.set()

    threading.Thread(target=relay, daemon=True).start()
    ready.wait(_CMD_WAIT_S)
    if not found:
        _stop_group(process)
        raise fail(
            f"`{command}` printed no local address (such as http://localhost:3000) within "
            f"{_CMD_WAIT_S:.0f} s; pass --url instead.",
            EXIT_ERROR,
        )
    return found[0], process


def review(
    url: Annotated[
        str | None, typer.Option("--url", help="The running app, such as http://localhost:3000.")
    ] = None,
    port: Annotated[
        int | None, typer.Option("--port", min=1, max=65535, help="The app's port on localhost.")
    ] = None,
    cmd: Annotated[
        str | None,
        typer.Option(
            "--cmd", help="Start the app with this command and use the address it prints."
        ),
    ] = None,
    listen: Annotated[
        int,
        typer.Option("--listen", min=0, max=65535, help="The proxy's port; default: a free one."),
    ] = 0,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open the browser.")] = False,
) -> None:
    """Put the comment overlay on a running app: a proxy on localhost, comments in .maple/ here.

    Open the address it prints, press Comment (or Alt+Shift+C), pick an element and write; the
    agent reads the comment with wait_for_comments. Ctrl-C stops it.
    """
    import uvicorn

    from maple_entrypoints.loopback import bounded_http, listen_on_loopback
    from maple_entrypoints.review import review_app
    from maple_entrypoints.server_log import ServerLog

    given = [x for x in (url, port, cmd) if x is not None]
    if len(given) != 1:
        raise fail("say where the app is with exactly one of --url, --port or --cmd.", EXIT_CONFIG)
    child = None
    if cmd is not None:
        url, child = _address_from(cmd)
    elif port is not None:
        url = f"http://localhost:{port}"
    assert url is not None
    if not re.match(r"https?://", url):
        raise fail(f"--url must start with http:// or https://; got {url}.", EXIT_ERROR)
    cwd = Path.cwd()
    branch = find_checkout(cwd).branch or "default"
    try:
        sock = listen_on_loopback(listen)
    except (OSError, OverflowError) as exc:
        raise fail(
            f"cannot listen on 127.0.0.1:{listen} ({getattr(exc, 'strerror', None) or exc}); "
            "try another --listen.",
            EXIT_ERROR,
        ) from None
    address = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sys.stderr.write(
        f"maple: reviewing {url} at {address} (branch {branch}); comments land in .maple/ here. "
        "Ctrl-C stops it.\n"
    )
    print(address, flush=True)
    if not no_open:
        import webbrowser

        threading.Timer(0.5, lambda: webbrowser.open(address)).start()
    config = uvicorn.Config(
        review_app(url, cwd, branch, log=ServerLog("maple-review")),
        log_level="warning",
        lifespan="off",
        http=bounded_http(),  # slow headers and connection floods are bounded, as everywhere
        timeout_graceful_shutdown=5,
        ws="auto",
        date_header=False,  # the app's own Date and Server headers pass through, once
        server_header=False,
    )
    # uvicorn re-raises the SIGTERM it caught once it has shut down; without a handler of our
    # own that kills this process on the spot, and the command below would outlive it.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        if child is not None:
            _stop_group(child)
