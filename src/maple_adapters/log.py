"""One-line records on stderr, with every secret scrubbed (Maple's ``serverLogger`` format).

Records go through :mod:`logging`: each service has the logger ``maple.<service>`` with one
handler that writes ``<ISO time> <level> <message> {"service": ...}``; a :class:`ServerLog`
carries what differs per caller (the fields, the secrets to scrub and the stream) on each record.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TextIO

from maple_core.text import scrub

__all__ = ["ServerLog"]

_LEVELS = {logging.INFO: "info", logging.WARNING: "warn", logging.ERROR: "error"}
_SETUP = threading.Lock()


class _Context:
    """What one :class:`ServerLog` adds to its records."""

    def __init__(self, service: str, secrets: list[str], stream: TextIO | None) -> None:
        self.service = service
        self.secrets = secrets
        self.stream = stream


class _OneLine(logging.Handler):
    """Writes each record as one scrubbed line; a failing sink never raises."""

    def emit(self, record: logging.LogRecord) -> None:
        context: _Context = record.maple  # type: ignore[attr-defined]  # set by ServerLog
        fields: dict[str, str] = record.maple_fields  # type: ignore[attr-defined]
        try:
            stamp = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
            extra = json.dumps({"service": context.service, **fields}, ensure_ascii=False)
            level = _LEVELS.get(record.levelno, record.levelname.lower())
            line = f"{stamp[:-3]}Z {level:<5} {record.getMessage()} {extra}"
            stream = context.stream or sys.stderr
            stream.write(scrub(line, context.secrets).replace("\n", " ") + "\n")
            stream.flush()
        except Exception:
            pass


def _logger(service: str) -> logging.Logger:
    logger = logging.getLogger(f"maple.{service}")
    with _SETUP:
        if not any(isinstance(h, _OneLine) for h in logger.handlers):
            logger.addHandler(_OneLine())
            logger.setLevel(logging.INFO)
            logger.propagate = False  # the line is the record; nothing else prints it again
    return logger


class ServerLog:
    """Writes ``<ISO time> <level> <message> {"service": ...}`` lines; never to stdout.

    A failing sink never raises: logging must not break the tool call that logs.
    """

    def __init__(
        self, service: str, secrets: Iterable[str] = (), stream: TextIO | None = None
    ) -> None:
        self._logger = _logger(service)
        self._context = _Context(service, [s for s in secrets if s], stream)

    def scrubbing(self, *secrets: str) -> ServerLog:
        """The same log, also scrubbing ``secrets`` (a caller's token, for one request)."""
        context = self._context
        return ServerLog(context.service, [*context.secrets, *secrets], context.stream)

    def _write(self, level: int, message: str, fields: dict[str, str]) -> None:
        self._logger.log(
            level, "%s", message, extra={"maple": self._context, "maple_fields": fields}
        )

    def info(self, message: str, **fields: str) -> None:
        """Record something worth knowing."""
        self._write(logging.INFO, message, fields)

    def warn(self, message: str, **fields: str) -> None:
        """Record something that did not happen as hoped."""
        self._write(logging.WARNING, message, fields)

    def error(self, message: str, error: BaseException | None = None, **fields: str) -> None:
        """Record a failure, naming the error's type and message on the same line."""
        if error is not None:
            fields = {**fields, "error": f"{type(error).__name__}: {error}"}
        self._write(logging.ERROR, message, fields)
