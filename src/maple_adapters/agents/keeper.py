"""Starting a child CLI through a small keeper that ends it when this process ends, however.

The keeper forks a watchdog into the child's process group and then becomes the CLI (``exec``).
The watchdog holds the read end of a pipe whose only write end this process holds, so the kernel
closes it when this process ends however it ends (SIGKILL, a crash); the watchdog then
terminates the whole group, and kills it a moment later.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence

__all__ = ["spawn"]

_LIFELINE: list[int] = []  # the pipe's read and write ends, opened with the first child
_LIFELINE_LOCK = threading.Lock()

_KEEPER = """
import os, select, signal, sys, time
lifeline, status, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
agent = os.getpid()
if os.fork() == 0:
    os.close(status)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    signal.signal(signal.SIGTERM, lambda *_: None)
    while os.getppid() == agent:
        if select.select([lifeline], [], [], 1.0)[0]:
            os.killpg(0, signal.SIGTERM)
            time.sleep(2.0)
            os.killpg(0, signal.SIGKILL)
    os._exit(0)
os.set_inheritable(lifeline, False)
os.set_inheritable(status, False)
try:
    os.execvp(argv[0], argv)
except OSError as exc:
    os.write(status, str(exc.errno or 0).encode())
os._exit(127)
"""
"""Run as ``python -I -S -c _KEEPER <lifeline fd> <status fd> argv…``.

The forked watchdog leaves the CLI's pipes (so its stdout still ends when the CLI exits),
outlives a SIGTERM to the group so it can escalate, and goes away once the CLI has (its parent
changes). The status pipe closes on a successful ``exec``; a failed one writes its errno there.
"""


def _lifeline() -> int:
    """The read end of the pipe that reaches end-of-file when this process ends."""
    with _LIFELINE_LOCK:
        if not _LIFELINE:
            _LIFELINE.extend(os.pipe())  # neither end is inherited unless passed
        return _LIFELINE[0]


def spawn(argv: Sequence[str], cwd: str, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session through the keeper; raises ``OSError`` as Popen does."""
    lifeline = _lifeline()
    status_read, status_write = os.pipe()
    keeper = [sys.executable or "python3", "-I", "-S", "-c", _KEEPER]
    try:
        process = subprocess.Popen(
            [*keeper, str(lifeline), str(status_write), *argv],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=(lifeline, status_write),
        )
    except BaseException:
        os.close(status_read)
        raise
    finally:
        os.close(status_write)
    try:
        with os.fdopen(status_read, "rb") as status:
            failure = status.read()  # end-of-file once the keeper has become the CLI
    except BaseException:
        process.kill()
        raise
    if failure:
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        code = int(failure)
        raise OSError(code, os.strerror(code), argv[0])
    return process
