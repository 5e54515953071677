"""One-line records on stderr, with every secret scrubbed (Maple's ``serverLogger`` format)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TextIO

from maple_core.text import scrub

__all__ = ["ServerLog"]


class ServerLog:
    """Writes ``<ISO time> <level> <message> {"service": ...}`` lines; never to stdout.

    A failing sink never raises: logging must not break the tool call that logs.
    """

    def __init__(
        self,
        service: str,
        secrets: Iterable[str] = (),
        stream: TextIO | None = None,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._service = service
        self._secrets = [s for s in secrets if s]
        self._stream = stream
        self._now = now or (lambda: datetime.now(UTC))

    def _write(self, level: str, message: str, fields: dict[str, str]) -> None:
        stamp = self._now().strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        extra = json.dumps({"service": self._service, **fields}, ensure_ascii=False)
        line = scrub(f"{stamp} {level:<5} {message} {extra}", self._secrets).replace("\n", " ")
        try:
            stream = self._stream or sys.stderr
            stream.write(line + "\n")
            stream.flush()
        except Exception:
            pass

    def info(self, message: str, **fields: str) -> None:
        """Record something worth knowing."""
        self._write("info", message, fields)

    def warn(self, message: str, **fields: str) -> None:
        """Record something that did not happen as hoped."""
        self._write("warn", message, fields)

    def error(self, message: str, error: BaseException | None = None, **fields: str) -> None:
        """Record a failure, naming the error's type and message on the same line."""
        if error is not None:
            fields = {**fields, "error": f"{type(error).__name__}: {error}"}
        self._write("error", message, fields)
