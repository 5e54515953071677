"""Joins the review overlay's ES modules into the one script the proxy serves and the wheel ships.

The overlay is written as small ES modules in ``review/overlay/``, checked by ``tsc`` and
``eslint`` (``make jslint``). The browser runs one script, their join: each module once, after
the modules it imports, with its ``import`` lines dropped and ``export`` keywords removed, all in
one function scope. Only named imports of sibling modules and ``export`` of a declaration are
allowed, and no two modules may declare the same top-level name, so the joined script means what
the modules mean.

The join is built, never committed: ``setup.py`` writes ``review/overlay.js`` into the wheel when
it is built, and :func:`overlay_script` joins the modules when ``maple review`` runs from a
checkout (where they are; a wheel ships only the joined file). This module imports only the
standard library, so the build step can load it by its path without maple's dependencies.

A vendored library (``overlay/vendor/<name>.js``, its build as published, UMD) is imported by name
like a module, ``import { a } from "./vendor/<name>.js";``; ``tsc`` reads the ``<name>.d.ts``
beside it. The join runs it once, with its licence, in a scope of its own where it sees a
CommonJS ``module`` (so it sets no global on the app's page), and only if its bytes are the ones
pinned in :data:`VENDORED`.
"""

from __future__ import annotations

import hashlib
import re
import sys
import threading
from pathlib import Path

__all__ = ["BUNDLE_NAME", "BundleError", "VENDORED", "bundle", "overlay_script"]

REVIEW = Path(__file__).resolve().parent
MODULES = REVIEW / "overlay"
BUNDLE_NAME = "overlay.js"
"""The joined script's name in the ``maple_entrypoints.review`` package."""
ENTRY = "main.js"

VENDORED = {
    "modern-screenshot": (
        "4.7.0",  # npm modern-screenshot@4.7.0, dist/index.js; the DOM rasteriser of capture.js
        "bb36665889124a0b6e15f16045265737449c3bdcf2712cdb08af3cfa01563e2b",
    ),
}
"""Each vendored library's version and the sha256 of its file: the pin the join checks."""

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z_]+\.js)";\n', re.MULTILINE)
_VENDOR_IMPORT = re.compile(
    r'^import \{([^}]*)\} from "\./vendor/([a-z0-9-]+)\.js";\n', re.MULTILINE
)
_EXPORT = re.compile(r"^export (?=(?:async )?function\b|const\b|let\b|class\b)", re.MULTILINE)
_DECLARED = re.compile(r"^(?:(?:async )?function\*? ?|const |let |class )([A-Za-z_$][\w$]*)", re.M)
_MODULE_SYNTAX = re.compile(r"^(?:import|export)\b.*$", re.MULTILINE)
_HEADER = (
    "// maple review overlay, joined from overlay/*.js by maple_entrypoints/review/bundle.py\n"
    "// (generated: edit those modules). Dependency-free; injected by `maple review`.\n"
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
        vendored = _VENDOR_IMPORT.findall(body)
        body = _VENDOR_IMPORT.sub("", body)
        leftover = _MODULE_SYNTAX.search(body)
        if leftover:
            raise BundleError(f"{name}: unsupported module syntax {leftover.group(0)!r}")
        body = "".join(_vendored(names, library, modules) for names, library in vendored) + body
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


def _vendored(names: str, library: str, modules: Path) -> str:
    """``const { names } = ...``: the library run in a scope of its own, after its licence."""
    folder = modules / "vendor"
    pinned = VENDORED.get(library)
    if pinned is None:
        raise BundleError(f"vendor/{library}.js is not pinned in VENDORED")
    version, digest = pinned
    code = (folder / f"{library}.js").read_bytes()
    if hashlib.sha256(code).hexdigest() != digest:
        raise BundleError(f"vendor/{library}.js is not the pinned {library} {version}")
    licence = (folder / f"{library}.LICENSE").read_text(encoding="utf-8").strip()
    notice = "\n".join(("// " + line).rstrip() for line in licence.splitlines())
    return (
        f"// {library} {version}, vendored (overlay/vendor/{library}.js), under this licence:\n"
        f"{notice}\n"
        f"const {{{names}}} = (function () {{\n"
        "  const module = { exports: {} };\n"
        "  const exports = module.exports;\n"
        f"{code.decode('utf-8').strip()}\n"
        "  return module.exports;\n"
        "}).call(undefined);\n"
    )


def _exports_only(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(line.removeprefix("export ") for line in lines if line.startswith("export "))


_built: tuple[tuple[tuple[str, int, int], ...], bytes] | None = None
_building = threading.Lock()


def _stamp(modules: Path) -> tuple[tuple[str, int, int], ...]:
    found = sorted(p for p in modules.rglob("*") if p.is_file())
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in found)


def overlay_script() -> bytes:
    """The overlay the proxy serves: joined from the modules where they are, else the shipped one.

    From a checkout (an editable install) the modules sit beside this file and are joined again
    whenever one of them changed, so an edit shows on the next page load; an installed wheel
    carries only the joined ``overlay.js``, written by the build step.
    """
    global _built
    if not (MODULES / ENTRY).is_file():
        return (REVIEW / BUNDLE_NAME).read_bytes()
    with _building:
        stamp = _stamp(MODULES)
        if _built is None or _built[0] != stamp:
            _built = (stamp, bundle().encode("utf-8"))
        return _built[1]


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REVIEW / BUNDLE_NAME
    target.write_text(bundle(), encoding="utf-8")
    sys.stdout.write(f"wrote {target}\n")
