"""``maple review``: comment on a running app from the browser."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Annotated

import typer

from maple_core.text import capped, one_line
from maple_entrypoints.cli.common import EXIT_CONFIG, EXIT_ERROR, fail, local_here

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


_LAST_LINES = 5
_LINE_CHARS = 200


class _Command:
    """The app ``--cmd`` started, in its own process group, its output relayed to stderr."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.process = subprocess.Popen(
            command,
            shell=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",  # a dev server may print any bytes; the relay must never stop
            start_new_session=True,
        )
        self.last: deque[str] = deque(maxlen=_LAST_LINES)
        self.found: list[str] = []
        self.ready = threading.Event()  # an address was printed, or the output ended
        self.relay = threading.Thread(target=self._relay, daemon=True)

    def _relay(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            sys.stderr.write(line)
            self.last.append(line.rstrip("\n"))
            match = _ADDRESS.search(line)
            if match and not self.found:
                self.found.append(match.group(0).replace("0.0.0.0", "127.0.0.1"))
                self.ready.set()
        self.ready.set()

    def address(self) -> str:
        """The first local address the command printed; fails when it exits or stays silent."""
        self.relay.start()
        self.ready.wait(_CMD_WAIT_S)
        if self.found:
            return self.found[0]
        try:
            code = self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            raise fail(
                f"`{self.command}` printed no local address (such as http://localhost:3000) "
                f"within {_CMD_WAIT_S:.0f} s; pass --url instead.",
                EXIT_ERROR,
            ) from None
        said = " | ".join(capped(one_line(line), _LINE_CHARS) for line in self.last if line.strip())
        raise fail(
            f"`{self.command}` exited with code {code} before printing a local address (such as "
            "http://localhost:3000); "
            + (f"its last lines: {said}" if said else "it printed nothing"),
            EXIT_ERROR,
        )

    def stop(self) -> None:
        """Stop the app's process group, then close its output once the relay has read it all."""
        _stop_group(self.process)
        if self.relay.is_alive():
            self.relay.join(5.0)
        if self.process.stdout is not None and not self.relay.is_alive():
            self.process.stdout.close()


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
    agent reads the comment with wait_for_comments. Each comment that arrives is printed on a
    line of its own. Ctrl-C or SIGTERM stops it (and the --cmd app).
    """
    given = [x for x in (url, port, cmd) if x is not None]
    if len(given) != 1:
        raise fail("say where the app is with exactly one of --url, --port or --cmd.", EXIT_CONFIG)
    # From here SIGTERM stops maple as Ctrl-C does, through the `finally` that stops the app,
    # also while it waits for the app's address. uvicorn re-raises the SIGTERM it caught once it
    # has shut down, so this handler also runs after it.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    child = None
    try:
        child = _Command(cmd) if cmd is not None else None
        _serve(child.address() if child is not None else url, port, listen, no_open)
    finally:
        if child is not None:
            child.stop()


def _serve(url: str | None, port: int | None, listen: int, no_open: bool) -> None:
    """Serve the proxy in front of the app until Ctrl-C or SIGTERM."""
    import uvicorn

    from maple_adapters.log import ServerLog
    from maple_entrypoints.loopback import bounded_http, listen_on_loopback
    from maple_entrypoints.review import review_app
    from maple_entrypoints.review.feed import CommentFeed

    if url is None:
        url = f"http://localhost:{port}"
    if not re.match(r"https?://", url):
        raise fail(f"--url must start with http:// or https://; got {url}.", EXIT_ERROR)
    cwd = Path.cwd()
    local = local_here(cwd)
    if local.checkout.git_dir is None:
        raise fail(
            f"{cwd} is not in a git repository, so no agent would read the comments left here "
            "(they are kept per branch in the checkout's .maple/). Run maple review from your "
            "project's checkout, or make one with `git init`.",
            EXIT_CONFIG,
        )
    branch = local.checkout.branch or "default"
    classifier = local.classifier()  # a harness that cannot read stops us here
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
        review_app(
            url,
            cwd,
            branch,
            log=ServerLog("maple-review"),
            sources=_working_tree(cwd),
            classifier=classifier,
        ),
        log_level="warning",
        lifespan="on",  # the proxy closes its connections to the app on the way out
        http=bounded_http(),  # slow headers and connection floods are bounded, as everywhere
        timeout_graceful_shutdown=5,
        ws="auto",
        date_header=False,  # the app's own Date and Server headers pass through, once
        server_header=False,
    )
    feed = CommentFeed(local.store, branch, _print_line)
    feed.start()
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        feed.stop()


def _working_tree(cwd: Path) -> Path:
    """The top of the working tree holding ``cwd``: source paths in anchors are relative to it."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return cwd


def _print_line(line: str) -> None:
    print(line, flush=True)
