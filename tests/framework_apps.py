"""The framework fixture apps the overlay is tested on (``tests/fixtures/apps/``), run for real.

React 18 and 19 and Vue 3, each served by Vite's dev server (with HMR) or as a production build,
from pinned npm packages with their own lockfile. :func:`installed` runs ``npm ci`` once per
lockfile (a stamp holds the lockfile's hash), :func:`built` makes a production build once per
lockfile and source; both are kept in the fixture folder, so a second run costs nothing. Where
Node or npm is missing the tests skip (they fail under ``MAPLE_TEST_STRICT=1``, as any missing
peer does).

Each test gets its own copy of an app inside a git repository of its own, so the agent's fix can
edit the source (Vite's HMR brings it to the page) and ``anchor.source`` is checked against the
copy's real lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

APPS = Path(__file__).resolve().parent / "fixtures" / "apps"
LOCK = APPS / "package-lock.json"
STAMP = APPS / "node_modules" / ".maple-lock-sha256"
BUILDS = APPS / ".builds"
_START_S = 60.0


def _digest(*paths: Path) -> str:
    hashed = hashlib.sha256()
    for path in paths:
        files = [path] if path.is_file() else path.rglob("*")
        for file in sorted(p for p in files if p.is_file()):
            if "node_modules" in file.parts or any(part.startswith(".vite") for part in file.parts):
                continue
            hashed.update(str(file.relative_to(APPS)).encode() + b"\0" + file.read_bytes())
    return hashed.hexdigest()


def installed() -> Path:
    """The fixture apps' folder with its packages installed (``npm ci`` once per lockfile)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node and npm are not installed: apt-get install -y nodejs npm (.ci/run does)")
    wanted = _digest(LOCK)
    if not STAMP.is_file() or STAMP.read_text() != wanted:
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=APPS,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, f"npm ci in {APPS} failed:\n{done.stderr[-3000:]}"
        STAMP.write_text(wanted)
    return APPS


def app_copy(name: str, repo: Path) -> Path:
    """A copy of the app ``name`` in ``repo`` (with the installed packages linked beside it)."""
    installed()
    target = repo / name
    shutil.copytree(APPS / name, target, ignore=shutil.ignore_patterns("node_modules", ".vite*"))
    for shared in ("node_modules", "react18"):
        if not (repo / shared).exists():
            (repo / shared).symlink_to(APPS / shared)
    return target


def built(name: str, react: str = "19") -> Path:
    """A production build of the app (``vite build``), made once per lockfile and source."""
    installed()
    out = BUILDS / f"{name}-{react}-{_digest(LOCK, APPS / name, APPS / 'serve.mjs')[:16]}"
    if not (out / "index.html").is_file():
        env = {**os.environ, "MAPLE_FIXTURE_REACT": react}
        done = subprocess.run(
            ["node", str(APPS / "serve.mjs"), str(APPS / name), "build", str(out)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert done.returncode == 0, f"vite build of {name} failed:\n{done.stderr[-3000:]}"
    return out


@contextmanager
def serving(
    root: Path, mode: str = "dev", out: Path | None = None, react: str = "19"
) -> Iterator[str]:
    """The app at ``root`` served on loopback (Vite's dev server, or ``preview`` of ``out``)."""
    command = ["node", str(APPS / "serve.mjs"), str(root), mode]
    if out is not None:
        command.append(str(out))
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "MAPLE_FIXTURE_REACT": react},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the server prints its address once it listens
        if not line:
            problem = process.stderr.read() if process.stderr else ""
            raise AssertionError(f"the {mode} server for {root} did not start:\n{problem[-3000:]}")
        yield str(json.loads(line)["url"])
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def line_of(path: Path, line: int) -> str:
    """The text of line ``line`` (from 1) of ``path``."""
    return path.read_text(encoding="utf-8").splitlines()[line - 1]
