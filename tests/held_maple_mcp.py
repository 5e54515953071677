"""``maple-mcp`` with the MCP SDK's import held until a test opens the gate.

Usage: ``python tests/held_maple_mcp.py GATE [TRANSCRIPT]``. ``GATE`` is a FIFO the test holds
open: the first ``import mcp`` (on maple-mcp's loading thread) waits until a byte arrives on it,
so whatever maple-mcp answers before the test writes that byte was answered without the SDK.
``TRANSCRIPT``, when given, receives every line the SDK's stdio transport reads, as it reads it.
Everything else is ``maple-mcp`` itself (:func:`maple_entrypoints.mcp_start.main`), with the
arguments and interpreter of the real command, so it reads the same recorded answers.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
from pathlib import Path
from typing import IO, Any


class _Gate(importlib.abc.MetaPathFinder):
    def __init__(self, fifo: str) -> None:
        self._fifo = fifo
        self._open = False

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if name == "mcp" and not self._open:
            fd = os.open(self._fifo, os.O_RDONLY)
            try:
                os.read(fd, 1)
            finally:
                os.close(fd)
            self._open = True


class _Transcribed:
    """The SDK's stdin, each line it reads also written to the transcript."""

    def __init__(self, stream: IO[str], transcript: IO[str]) -> None:
        self._stream = stream
        self._transcript = transcript

    def readline(self, size: int = -1) -> str:
        line = self._stream.readline(size)
        self._transcript.write(line)
        self._transcript.flush()
        return line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _transcribe(path: str) -> None:
    from maple_entrypoints import mcp_wire

    streams = mcp_wire.Stdio.sdk_streams
    transcript = open(path, "w", encoding="utf-8")  # noqa: SIM115 - open for the process's life

    def sdk_streams(self: Any, *args: Any) -> tuple[Any, IO[str]]:
        stdin, stdout = streams(self, *args)
        return _Transcribed(stdin, transcript), stdout

    mcp_wire.Stdio.sdk_streams = sdk_streams  # type: ignore[method-assign]


if __name__ == "__main__":
    sys.meta_path.insert(0, _Gate(sys.argv[1]))
    if len(sys.argv) > 2:
        _transcribe(sys.argv[2])
    sys.argv = [str(Path(sys.executable).with_name("maple-mcp"))]
    from maple_entrypoints.mcp_start import main

    main()
