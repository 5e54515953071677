"""How ``maple-mcp`` starts: ready for a client before the MCP SDK has loaded.

Importing the SDK is most of a start (about half a second of imports here), and clients do not
wait politely: Codex once sent its first model request before the tools were listed. So:

1. The wire is claimed (:meth:`~maple_entrypoints.mcp_wire.Stdio.claim`) and the configuration
   checked as before: a bad one exits 1 with one line on stderr before anything is answered.
2. A thread imports the SDK and builds the server
   (:func:`~maple_entrypoints.mcp_server.stdio_server_for`), while this one runs the
   :class:`~maple_entrypoints.mcp_wire.Front`: it answers the handshake requests whose answers
   the SDK gave to the same requests on an earlier start of the same run key
   (:mod:`~maple_entrypoints.mcp_recorded`, :mod:`~maple_entrypoints.mcp_replay`) and keeps every
   line for the SDK.
3. The SDK's stdio transport takes the wire with every kept line first, in order; the
   :class:`~maple_entrypoints.mcp_wire.Recorder` drops its second answer to a replayed request
   (after checking it is the same), and records its answers to new ones for the next start.

A start whose run key has nothing recorded (the first after an install, an upgrade or a changed
setting) is served by the SDK alone, as before, and records.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from maple_core.errors import ConfigurationError
from maple_entrypoints.bootstrap.server import CheckedServer, check_server
from maple_entrypoints.mcp_recorded import RecordedAnswers, run_key
from maple_entrypoints.mcp_recorder import Recorder
from maple_entrypoints.mcp_replay import key_method
from maple_entrypoints.mcp_wire import Front, Stdio
from maple_entrypoints.settings import Settings, configuration_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_entrypoints.mcp_server import StdioServer

__all__ = ["SERVICE", "main"]

SERVICE = "maple-mcp"
_SWITCH_S = 0.001
"""The GIL's switch interval while the SDK loads, so an answer waits at most this on the import."""


class _Loader(threading.Thread):
    """Runs ``load`` once; :attr:`ready_fd` becomes readable when it is done."""

    def __init__(self, load: Callable[[], StdioServer]) -> None:
        super().__init__(name="maple-mcp-load", daemon=True)
        self._load = load
        self.ready_fd, self._ready = os.pipe()
        self._server: StdioServer | None = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._server = self._load()
        except BaseException as exc:  # raised again on the main thread
            self._error = exc
        finally:
            os.write(self._ready, b"!")

    def result(self) -> StdioServer:
        """The built server, once loaded; what loading raised, raised here."""
        self.join()
        for fd in (self.ready_fd, self._ready):
            os.close(fd)
        if self._error is not None:
            raise self._error
        assert self._server is not None
        return self._server


def _load(checked: CheckedServer, cwd: Path) -> StdioServer:
    from maple_entrypoints.mcp_server import stdio_server_for  # the SDK: the slow part

    return stdio_server_for(checked, cwd)


def _recorded(settings: Settings, argv: list[str]) -> RecordedAnswers | None:
    try:
        folder = settings.cache_folder / "mcp-answers"
    except RuntimeError:  # no home folder to keep them in
        return None
    return RecordedAnswers(folder, run_key(configuration_values(), argv))


def _recorder(recorded: RecordedAnswers | None, secrets: list[str]) -> Recorder:
    if recorded is None:
        return Recorder({}, save=lambda answers: None, mismatch=lambda key: None)

    def mismatch(key: str) -> None:
        from maple_entrypoints.server_log import ServerLog

        recorded.drop()
        ServerLog(SERVICE, secrets).warn(
            "The MCP SDK answered a recorded request differently; the recorded answers are "
            "forgotten and the next start records them again.",
            method=key_method(key),
        )

    return Recorder(recorded.load(), save=recorded.save, mismatch=mismatch)


def main() -> None:
    """Run ``maple-mcp`` over stdio; a bad configuration exits 1 with one line on stderr."""
    stdio = Stdio.claim()
    try:
        _serve(stdio)
    finally:
        stdio.release()


def _serve(stdio: Stdio) -> None:
    cwd = Path.cwd()
    try:
        checked = check_server(cwd)
    except ConfigurationError as exc:
        sys.stderr.write(f"{SERVICE}: {exc}\n")
        raise SystemExit(1) from None
    recorded = _recorded(checked.settings, sys.argv[1:])
    recorder = _recorder(recorded, checked.settings.secrets())
    loader = _Loader(lambda: _load(checked, cwd))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(_SWITCH_S)
    loader.start()
    front = Front(stdio, recorder)
    try:
        held = front.serve(loader.ready_fd)
        server = loader.result()
    finally:
        sys.setswitchinterval(interval)
    stdin, stdout = stdio.sdk_streams(held, front, recorder)
    try:
        server.serve(stdin, stdout)
    finally:
        recorder.finish()
