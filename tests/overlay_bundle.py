"""Joins the review overlay's ES modules into the one script the wheel ships (development only).

The overlay is written as small ES modules in ``src/maple_entrypoints/review/overlay/``, checked by
``tsc`` and ``eslint`` (``make jslint``); the proxy serves ``review/overlay.js``, which this joins
from them: each module once, after the modules it imports, with its ``import`` lines dropped and
``export`` keywords removed, all in one function scope. Only named imports of sibling modules and
``export`` of a declaration are allowed, and no two modules may declare the same top-level name, so
the joined script means what the modules mean. ``make overlay`` writes it;
``tests/test_overlay_bundle.py`` fails while the committed file differs from a fresh build.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REVIEW = Path(__file__).resolve().parents[1] / "src" / "maple_entrypoints" / "review"
MODULES = REVIEW / "overlay"
BUNDLE = REVIEW / "overlay.js"
ENTRY = "main.js"

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z_]+\.js)";\n', re.MULTILINE)
_EXPORT = re.compile(r"^export (?=(?:async )?function\b|const\b|let\b|class\b)", re.MULTILINE)
_DECLARED = re.compile(r"^(?:(?:async )?function\*? ?|const |let |class )([A-Za-z_$][\w$]*)", re.M)
_MODULE_SYNTAX = re.compile(r"^(?:import|export)\b.*$", re.MULTILINE)
_HEADER = (
    "// maple review overlay, joined from overlay/*.js by tests/overlay_bundle.py: edit those\n"
    "// modules, then run `make overlay`. Dependency-free; injected by `maple review`.\n"
)


class BundleError(ValueError):
    """The modules use a form the joiner does not handle, or clash by name."""


def bundle(modules: Path = MODULES, entry: str = ENTRY) -> str:
    """The one script for ``entry`` and every module it imports, in dependency order."""
    order: list[str] = []
    bodies: dict[str, str] = {}
    exported: dict[str, set[str]] = {}
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in bodies:
            return
        if name in visiting:
            raise BundleError(f"import cycle: {' -> '.join([*visiting, name])}")
        visiting.append(name)
        text = (modules / name).read_text(encoding="utf-8")
        for names, source in _IMPORT.findall(text):
            visit(source)
            for imported in (n.strip() for n in names.split(",") if n.strip()):
                if imported not in exported[source]:
                    problem = f"{name} imports {imported!r}, which {source} does not export"
                    raise BundleError(problem)
        body = _EXPORT.sub("", _IMPORT.sub("", text))
        leftover = _MODULE_SYNTAX.search(body)
        if leftover:
            raise BundleError(f"{name}: unsupported module syntax {leftover.group(0)!r}")
        exported[name] = set(_DECLARED.findall(_exports_only(text)))
        bodies[name] = body.strip("\n") + "\n"
        visiting.pop()
        order.append(name)

    visit(entry)
    owner: dict[str, str] = {}
    for name in order:
        for declared in _DECLARED.findall(bodies[name]):
            if declared in owner:
                raise BundleError(f"{declared!r} is declared by both {owner[declared]} and {name}")
            owner[declared] = name
    parts = [f"// --- overlay/{name} ---\n{bodies[name]}" for name in order]
    return _HEADER + '(function () {\n"use strict";\n\n' + "\n".join(parts) + "})();\n"


def _exports_only(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(line.removeprefix("export ") for line in lines if line.startswith("export "))


if __name__ == "__main__":
    BUNDLE.write_text(bundle(), encoding="utf-8")
    sys.stdout.write(f"wrote {BUNDLE}\n")
