"""``maple-mcp``'s stdio: claimed at start, read by the front until the SDK is ready, then by it.

One owner at a time reads the client's bytes and one writes to the client:

1. :meth:`Stdio.claim` takes the wire as the SDK's stdio transport does: fd 0 and 1 are
   duplicated out of the standard range and pointed at the null device and at stderr, so nothing
   else (a handler, a child, a stray ``print``) can read the client's bytes or write into its
   stream.
2. :meth:`Front.serve` reads lines until the SDK is ready (or the client closes): a request the
   :class:`~maple_entrypoints.mcp_replay.Conversation` matches to a recorded answer is answered
   at once and kept for the SDK under an id of its own; every other line is kept as it came.
3. :meth:`Stdio.sdk_streams` hands the SDK's stdio transport a reader that yields every kept
   byte, in order, then the rest of fd 0 (which the front keeps watching for requests to
   record, :meth:`Front.observe`), and a writer to fd 1 whose every line passes the
   :class:`~maple_entrypoints.mcp_recorder.Recorder` while it listens: the SDK's answer to a
   replayed request is checked and dropped (so each request is answered once), and its answers
   to recordable requests are recorded for the next start.
"""

from __future__ import annotations

import fcntl
import io
import os
import select
import threading
from collections.abc import Callable
from typing import IO

from maple_entrypoints.mcp_recorder import Recorder
from maple_entrypoints.mcp_replay import (
    Conversation,
    answer_heads,
    answer_line,
    head_of,
    id_token,
    is_acknowledgement,
    parse_line,
    with_id,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import ReadableBuffer, WriteableBuffer

__all__ = [
    "Front",
    "MAX_HELD_BYTES",
    "OBSERVED_LINES",
    "Stdio",
]

MAX_HELD_BYTES = 64 * 1024 * 1024
"""The most the front keeps for the SDK; past it, it stops reading and the pipe waits."""
OBSERVED_LINES = 32
"""How many of the client's lines after the hand-over are watched for requests to record."""
_READ = 65_536


class Stdio:
    """The client's two pipes, held on private descriptors (see the module's doc)."""

    def __init__(self, in_fd: int, out_fd: int) -> None:
        self.in_fd = in_fd
        self.out_fd = out_fd
        self._lock = threading.Lock()

    @classmethod
    def claim(cls) -> Stdio:
        """Take fd 0 and fd 1 for the wire; :meth:`release` gives them back."""
        in_fd = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        out_fd = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
        for fd, divert in ((0, _null_reader), (1, _stderr_or_null)):
            diversion = divert()
            os.dup2(diversion, fd)
            os.close(diversion)
        return cls(in_fd, out_fd)

    def release(self) -> None:
        """Point fd 0 and 1 at the wire again."""
        os.dup2(self.in_fd, 0)
        os.dup2(self.out_fd, 1)

    def write(self, data: bytes) -> None:
        """Write all of ``data`` to the client."""
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self.out_fd, view) :]

    def sdk_streams(self, held: bytes, front: Front, recorder: Recorder) -> tuple[IO[str], IO[str]]:
        """Text streams for the SDK's stdio transport: ``held`` then fd 0 in, fd 1 out.

        Decoded and split into lines as the SDK does with its own (UTF-8, bad bytes replaced).
        """
        reader = io.BufferedReader(_Held(held, self.in_fd, front.observe))
        writer = io.BufferedWriter(_Outbox(self, recorder))
        return (
            io.TextIOWrapper(reader, encoding="utf-8", errors="replace"),
            io.TextIOWrapper(writer, encoding="utf-8"),
        )


def _null_reader() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _stderr_or_null() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


class _Held(io.RawIOBase):
    """The bytes the front kept, then the client's pipe, each chunk shown to ``observe`` first."""

    def __init__(self, held: bytes, fd: int, observe: Callable[[bytes], None]) -> None:
        self._held = memoryview(held)
        self._fd = fd
        self._observe = observe

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        into = memoryview(buffer).cast("B")
        if self._held:
            size = min(len(into), len(self._held))
            into[:size] = self._held[:size]
            self._held = self._held[size:]
            return size
        size = os.readv(self._fd, [into])
        self._observe(bytes(into[:size]))
        return size


class _Outbox(io.RawIOBase):
    """The SDK's writes, line by line through the recorder while it listens, then straight out."""

    def __init__(self, stdio: Stdio, recorder: Recorder) -> None:
        self._stdio = stdio
        self._recorder = recorder
        self._partial = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, buffer: ReadableBuffer, /) -> int:
        data = bytes(buffer)
        if not self._partial and not self._recorder.listening:
            self._stdio.write(data)
            return len(data)
        self._partial += data
        while (end := self._partial.find(b"\n")) >= 0:
            line = bytes(self._partial[: end + 1])
            del self._partial[: end + 1]
            if self._recorder.passes(line):
                self._stdio.write(line)
        if self._partial and not self._recorder.listening:
            self._stdio.write(bytes(self._partial))
            self._partial.clear()
        return len(data)


class Front:
    """Reads the client's lines until the SDK is ready, answering the recorded ones at once."""

    def __init__(self, stdio: Stdio, recorder: Recorder) -> None:
        self._stdio = stdio
        self._recorder = recorder
        self._conversation = Conversation()
        self._partial = bytearray()
        self._observed = 0
        self._nonce = os.urandom(6).hex()
        self._replayed = 0
        self._writable = True

    def serve(self, ready_fd: int) -> bytes:
        """Serve until ``ready_fd`` is readable or the client closes; return the bytes kept."""
        poller = select.poll()
        poller.register(self._stdio.in_fd, select.POLLIN)
        poller.register(ready_fd, select.POLLIN)
        held = bytearray()
        while len(held) + len(self._partial) < MAX_HELD_BYTES:
            if ready_fd in dict(poller.poll()):
                break
            chunk = os.read(self._stdio.in_fd, _READ)
            if not chunk:
                break
            self._partial += chunk
            while (end := self._partial.find(b"\n")) >= 0:
                held += self._answer(bytes(self._partial[: end + 1]))
                del self._partial[: end + 1]
        if not self._conversation.replaying:
            self._recorder.close()
        return bytes(held + self._partial)

    def observe(self, chunk: bytes) -> None:
        """The SDK read ``chunk`` (after the kept bytes): note its requests to record."""
        if self._observed >= OBSERVED_LINES:
            return
        self._partial += chunk
        while (end := self._partial.find(b"\n")) >= 0 and self._observed < OBSERVED_LINES:
            line = bytes(self._partial[: end + 1])
            del self._partial[: end + 1]
            self._observed += 1
            message = parse_line(line)
            key = self._conversation.key(message)
            token = id_token(message.id) if message is not None and key is not None else None
            if message is not None and key is not None and token is not None:
                self._recorder.learn([h + token for h in answer_heads(message.method)], key)
            if not self._conversation.replaying:
                self._observed = OBSERVED_LINES
        if self._observed >= OBSERVED_LINES:
            self._partial.clear()
            self._recorder.close()

    def _answer(self, line: bytes) -> bytes:
        """Answer ``line`` if it was recorded; return what the SDK is to read for it."""
        message = parse_line(line)
        key = self._conversation.key(message)
        token = id_token(message.id) if message is not None and key is not None else None
        if message is None or key is None or token is None:
            return line
        tail = self._recorder.known.get(key)
        if tail is None or not self._writable:
            self._recorder.learn([h + token for h in answer_heads(message.method)], key)
            return line
        head = head_of(tail)
        try:
            self._stdio.write(answer_line(head + token, tail))
        except OSError:  # the client left: the SDK will see it as it would have
            self._writable = False
            return line
        if is_acknowledgement(tail):  # it stays open with the SDK, under the client's id
            self._recorder.expect(head + token, key, tail)
            return line
        self._replayed += 1
        private = f"maple-replayed-{self._nonce}-{self._replayed}"
        self._recorder.expect(f'{head}"{private}"', key, tail)
        return with_id(message, private)
