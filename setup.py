"""The wheel's one build step beyond setuptools' own: the review overlay's script, joined.

``review/overlay.js`` is generated from the overlay's ES modules (see
``src/maple_entrypoints/review/bundle.py``) and is not in the repository; this writes it into
the build, so the wheel ships it. Everything else about the package is in ``pyproject.toml``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

REVIEW = Path(__file__).resolve().parent / "src" / "maple_entrypoints" / "review"


class BuildWithOverlay(build_py):
    """``build_py``, then the overlay's modules joined into ``maple_entrypoints/review/``."""

    def run(self) -> None:
        """Build the package's modules and data, then write the joined overlay beside them."""
        super().run()
        # by its path: importing the package would need maple's dependencies in the build
        spec = importlib.util.spec_from_file_location("_maple_overlay_bundle", REVIEW / "bundle.py")
        if spec is None or spec.loader is None:
            raise RuntimeError(f"cannot load {REVIEW / 'bundle.py'}")
        bundler = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bundler)
        target = Path(self.build_lib) / "maple_entrypoints" / "review" / bundler.BUNDLE_NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(bundler.bundle(), encoding="utf-8")


setup(cmdclass={"build_py": BuildWithOverlay})
