"""The overlay the wheel ships is exactly the join of its checked modules (overlay_bundle.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.overlay_bundle import BUNDLE, BundleError, bundle


def test_the_committed_overlay_is_a_fresh_join_of_its_modules() -> None:
    fresh = bundle()
    assert BUNDLE.read_text(encoding="utf-8") == fresh, "run `make overlay` and commit overlay.js"


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
