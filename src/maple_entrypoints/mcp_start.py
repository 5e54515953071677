"""How ``maple-mcp`` starts: ready for a client before the MCP SDK has loaded.

Importing the SDK is most of a start (about half a second of imports here), and clients do not
wait politely: Codex once sent its first model request before the tools were listed. So:

1. The wire is claimed (:meth:`~maple_entrypoints.mcp_wire.Stdio.claim`) and the configuration
   checked as before: a bad one exits 1 with one line on stderr before anything is answered.
2. A thread imports the SDK and builds the server
   (:class:`~maple_entrypoints.mcp_server.StdioServer`), while this one runs the
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
from datetime import UTC, datetime
from pathlib import Path

from maple_core.errors import ConfigurationError, InvalidInputError
from maple_entrypoints.bootstrap.agent_loop import AgentLoop, agent_loop
from maple_entrypoints.configuration import Settings
from maple_entrypoints.mcp_recorded import RecordedAnswers
from maple_entrypoints.mcp_recorder import Recorder
from maple_entrypoints.mcp_replay import key_method
from maple_entrypoints.mcp_run_key import run_key
from maple_entrypoints.mcp_session import SessionIdentity
from maple_entrypoints.mcp_wire import SERVICE, Front, Stdio
from maple_entrypoints.settings import cache_folder, configuration_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    from maple_adapters.log import ServerLog
    from maple_entrypoints.mcp_server import StdioServer

__all__ = ["main"]

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


def _load(loop: AgentLoop, cwd: Path, identity: SessionIdentity) -> StdioServer:
    """The server over ``loop``, built as ``maple-mcp`` serves it: the SDK, the slow part.

    It is the session ``identity`` names: its claims are released and its note on this machine
    forgotten when it ends, with every agent it started.
    """
    from maple_entrypoints.mcp_server import StdioServer, build_server
    from maple_entrypoints.mcp_session import ClaimSession, SessionNote
    from maple_entrypoints.solo_bridges import SoloBridge, SoloBridges

    def start(url: str) -> SoloBridge:
        from maple_entrypoints.solo import start_bridge  # the web stack, on first use only

        return start_bridge(url, cwd=cwd, log=loop.log, classifier=loop.classifier)

    session = ClaimSession(
        loop.store,
        loop.clock,
        identity.session_id,
        inherited=identity.inherited,
        report=loop.log.warn,
    )
    noted = SessionNote(loop.local.sessions, session, identity.settings.client_session, cwd)
    server = build_server(
        loop.store,
        target=loop.target,
        solo=SoloBridges(start),
        agents=loop.agents,
        clock=loop.clock,
        log=loop.log,
        media=loop.media,
        commits=loop.commits,
        on_client=lambda name, version, protocol, tasks: loop.local.clients.note(
            name, version, protocol, tasks, datetime.now(UTC).isoformat(timespec="seconds")
        ),
        session=session,
        on_agent=noted.agent_known,
    )
    agents = loop.agents

    def end() -> None:
        try:
            session.end()
            noted.forget()
        finally:
            if agents is not None:  # every child and everything it started ends with the server
                agents.close_all()
                loop.local.agents.kill_all()

    return StdioServer(server, begin=noted.write, end=end)


def _recorded(settings: Settings, argv: list[str]) -> RecordedAnswers | None:
    try:
        folder = cache_folder(settings) / "mcp-answers"
    except RuntimeError:  # no home folder to keep them in
        return None
    return RecordedAnswers(folder, run_key(configuration_values(), argv))


def _recorder(recorded: RecordedAnswers | None, log: ServerLog) -> Recorder:
    if recorded is None:
        return Recorder({}, save=lambda answers: None, mismatch=lambda key: None)

    def mismatch(key: str) -> None:
        recorded.drop()
        log.warn(
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
    settings = Settings()
    try:
        loop = agent_loop(cwd, service=SERVICE, settings=settings)
        loop.check_capabilities()
        identity = SessionIdentity.load()
    except (ConfigurationError, InvalidInputError) as exc:
        sys.stderr.write(f"{SERVICE}: {exc}\n")
        raise SystemExit(1) from None
    recorded = _recorded(settings, sys.argv[1:])
    recorder = _recorder(recorded, loop.log)
    loader = _Loader(lambda: _load(loop, cwd, identity))
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
