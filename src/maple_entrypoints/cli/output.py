"""What ``maple`` prints: JSON as the MCP tools give it, safe reviewer text, verdicts, warnings.

Every field shown comes from reviewers, so it is printed as plain text: no escape sequence and
no rich markup in a comment acts on the terminal. Comments as tables are ``comment_table.py``.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from maple_core.gate import GateVerdict
from maple_core.text import one_line, without_lone_surrogates

__all__ = ["json_text", "print_json", "print_verdict", "terminal_text", "verdict_json", "warn"]


_WARNED: set[str] = set()


def warn(message: str) -> None:
    """Write ``maple: <message>`` as one line on stderr (once per process) and carry on."""
    if message not in _WARNED:
        _WARNED.add(message)
        sys.stderr.write(f"maple: {one_line(message)}\n")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any, indent: int | None = 2) -> str:
    """``value`` as JSON, as JavaScript's ``JSON.stringify`` writes it.

    Half an emoji (a lone surrogate, which UTF-8 cannot carry) is written as a JSON escape,
    so the value reads back exactly as stored, as Maple's output does.
    """
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: Any) -> None:
    """One JSON document on stdout, two-space indented, as the MCP tools' text content."""
    print(json_text(value))


def terminal_text(text: str) -> str:
    """Reviewer text safe to print: no escape sequences or other control characters.

    Line breaks and tabs stay; everything else a terminal would act on (``ESC``, ``BEL``, bidi
    overrides) is dropped, so a comment cannot move the cursor, retitle the window, write the
    clipboard or hide text.
    """
    text = str(without_lone_surrogates(text))
    if text.isprintable():
        return text
    return "".join(c for c in text if c in "\n\t" or c.isprintable() or c == " ")


def verdict_json(branch: str, sha: str | None, verdict: GateVerdict) -> dict[str, Any]:
    """A gate's verdict as ``maple gate --json`` prints it."""
    return {
        "branch": branch,
        "sha": sha,
        "verdict": {
            "conclusion": verdict.conclusion.value,
            "reason": verdict.reason.value,
            "title": verdict.title,
            "summary": verdict.summary,
            "open": verdict.open,
            "total": verdict.total,
        },
    }


def print_verdict(branch: str, sha: str | None, verdict: GateVerdict, as_json: bool) -> None:
    """A gate's verdict for ``branch`` at ``sha``: its JSON, or its conclusion and summary."""
    if as_json:
        print_json(verdict_json(branch, sha, verdict))
        return
    on = f" on {sha[:12]}" if sha else ""
    print(f"{verdict.conclusion.value}{on}: {verdict.title} ({verdict.reason.value})")
    print(verdict.summary)
