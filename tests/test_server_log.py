"""The server log: Maple's one-line format, scrubbed, through the standard logging module."""

from __future__ import annotations

import io
import logging
import re

import pytest

from maple_adapters.log import ServerLog

LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (info |warn |error) (.*)$")


def test_each_record_is_one_scrubbed_line() -> None:
    sink = io.StringIO()
    log = ServerLog("maple-test", secrets=["ghp_secret", ""], stream=sink)
    log.info("hello\nghp_secret", tool="list_comments")
    log.warn("slow %s %d")
    log.error("failed", ValueError("token ghp_secret refused"), at="resolve")
    lines = sink.getvalue().splitlines()
    assert [LINE.fullmatch(line) is not None for line in lines] == [True, True, True]
    assert lines[0].endswith(' info  hello *** {"service": "maple-test", "tool": "list_comments"}')
    assert lines[1].endswith(' warn  slow %s %d {"service": "maple-test"}')
    assert lines[2].endswith(
        ' error failed {"service": "maple-test", "at": "resolve", '
        '"error": "ValueError: token *** refused"}'
    )


def test_records_go_through_logging(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("maple.maple-test")
    logger.addHandler(caplog.handler)
    try:
        ServerLog("maple-test", stream=io.StringIO()).warn("through logging")
    finally:
        logger.removeHandler(caplog.handler)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("maple.maple-test", logging.WARNING, "through logging")
    ]


def test_a_failing_sink_never_raises() -> None:
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("the pipe is gone")

    ServerLog("maple-test", stream=Broken()).error("still fine")
