"""The overlay is built, not committed: the wheel ships the join of its checked modules, and
``maple review`` from a checkout serves a fresh join (review/bundle.py, setup.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from maple_entrypoints.review.bundle import MODULES, BundleError, bundle, overlay_script

ROOT = Path(__file__).resolve().parents[1]


def test_the_joined_overlay_is_not_in_the_repository() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "src/maple_entrypoints/review/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "src/maple_entrypoints/review/overlay.js" not in tracked
    assert "src/maple_entrypoints/review/overlay/main.js" in tracked
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "src/maple_entrypoints/review/overlay.js"], cwd=ROOT
    )
    assert ignored.returncode == 0, "the generated overlay.js must be git-ignored"


def _source_tree(into: Path) -> Path:
    """The repository's files as git sees them (nothing ignored, so no overlay.js) in ``into``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


def test_the_wheel_ships_the_joined_overlay_and_not_its_modules(tmp_path: Path) -> None:
    tree = _source_tree(tmp_path / "tree")
    assert not (tree / "src/maple_entrypoints/review/overlay.js").exists()
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    built = subprocess.run(
        [*pip, "-w", str(tmp_path / "dist"), str(tree)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("maple_review-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        shipped = archive.read("maple_entrypoints/review/overlay.js").decode("utf-8")
    assert shipped == bundle()
    assert not [n for n in names if n.startswith("maple_entrypoints/review/overlay/")], names
    assert "maple_entrypoints/review/bundle.py" in names
    migrations = {n for n in names if n.startswith("maple_adapters/sql/migrations/")}
    assert "maple_adapters/sql/migrations/env.py" in migrations  # maple db upgrade runs them
    assert "maple_adapters/sql/migrations/versions/0001_comments.py" in migrations


def test_a_checkout_serves_a_fresh_join_of_the_modules() -> None:
    assert (MODULES / "main.js").is_file()
    assert overlay_script() == bundle().encode("utf-8")
    assert overlay_script() is overlay_script()  # joined once while no module changes


def test_the_join_refuses_what_it_cannot_keep_meaning_the_same(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("export function shared() {}\n")
    (tmp_path / "main.js").write_text('import { shared } from "./a.js";\nfunction shared() {}\n')
    with pytest.raises(BundleError, match=r"declared by both a\.js and main\.js"):
        bundle(tmp_path)
    (tmp_path / "main.js").write_text('import { other } from "./a.js";\n')
    with pytest.raises(BundleError, match="does not export"):
        bundle(tmp_path)
    (tmp_path / "main.js").write_text('import * as a from "./a.js";\n')
    with pytest.raises(BundleError, match="unsupported module syntax"):
        bundle(tmp_path)
    (tmp_path / "a.js").write_text('import { main } from "./main.js";\nexport const a = 1;\n')
    (tmp_path / "main.js").write_text('import { a } from "./a.js";\nexport const main = a;\n')
    with pytest.raises(BundleError, match="import cycle"):
        bundle(tmp_path)
