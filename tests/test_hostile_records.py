"""Records in a bad shape and hostile reviewer text, through the ``maple`` command as a process.

A ledger can hold records maple cannot fully read (Maple's route keeps any truthy anchor; a hand
edit or another tool can store anything). They must never break a listing or a wait, must
survive every rewrite as written, and are reported on stderr. Reviewer text printed on a
terminal must not act on it.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contract_tests.support import make_repo
from tests.support import MAPLE, clean_env, maple

BRANCH = "feat/hostile"

GOOD = {
    "id": "loc_good0000001",
    "branch": BRANCH,
    "body": "The header wraps at 375px.",
    "status": "open",
    "createdAt": "2026-01-01T12:00:00.000Z",
    "anchor": {"selector": "h1"},
}
ODD_SHAPES = {
    "id": "loc_odd00000001",
    "branch": BRANCH,
    "body": "Odd shapes",
    "status": 7,
    "createdAt": 1767268800000,
    "receivedAt": ["x"],
    "anchor": "page",
    "context": "mobile",
    "resolution": "done",
}
NO_BODY = {"id": "loc_nobody00001", "branch": BRANCH, "body": None, "anchor": {}}
NO_ID = {"branch": BRANCH, "body": "Nobody can resolve me", "anchor": {}}
NUMBER_ID = {"id": 42, "branch": BRANCH, "body": "A number for an id", "anchor": {}}
BAD_RECORDS = [ODD_SHAPES, NO_BODY, NO_ID, NUMBER_ID]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    made = make_repo(tmp_path / "repo", BRANCH)
    ledger = made / ".maple" / "feat-hostile" / "comments.json"
    ledger.parent.mkdir(parents=True)
    doc = {"version": 1, "comments": [GOOD, *BAD_RECORDS], "approvals": []}
    ledger.write_text(json.dumps(doc, indent=2))
    return made


def stored(repo: Path) -> list[dict[str, Any]]:
    path = repo / ".maple" / "feat-hostile" / "comments.json"
    return json.loads(path.read_text())["comments"]  # type: ignore[no-any-return]


def test_a_record_in_a_bad_shape_never_breaks_the_listing(repo: Path) -> None:
    listed = maple(repo, "comments", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    shown = {c["id"]: c for c in json.loads(listed.stdout)}
    assert set(shown) == {"loc_good0000001", "loc_odd00000001", "loc_nobody00001"}
    assert shown["loc_odd00000001"]["status"] == "open"  # a state maple cannot judge holds
    assert shown["loc_odd00000001"]["anchor"] == {}
    assert "context" not in shown["loc_odd00000001"]
    assert shown["loc_nobody00001"]["body"] == ""
    reported = listed.stderr.splitlines()
    assert any("loc_odd00000001" in line and "anchor" in line for line in reported)
    assert any("no readable id" in line for line in reported)
    waited = maple(repo, "comments", "wait", "--json", "--timeout-ms", "1000")
    assert waited.returncode == 0, waited.stderr
    assert len(json.loads(waited.stdout)["comments"]) == 3


def test_records_in_a_bad_shape_survive_every_rewrite_as_written(repo: Path) -> None:
    assert maple(repo, "comments", "add", "--body", "One more").returncode == 0
    resolved = maple(repo, "comments", "resolve", "loc_odd00000001")
    assert resolved.returncode == 0, resolved.stderr
    after = stored(repo)
    for record in (NO_BODY, NO_ID, NUMBER_ID):  # every key as written (a status may be added)
        assert any(all(r.get(k, ...) == v for k, v in record.items()) for r in after), record
    [odd] = [r for r in after if r.get("id") == "loc_odd00000001"]
    assert odd["status"] == "resolved"
    assert {k: odd[k] for k in ("createdAt", "receivedAt", "anchor", "context")} == {
        k: ODD_SHAPES[k] for k in ("createdAt", "receivedAt", "anchor", "context")
    }


HOSTILE = (
    "Looks fine\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b]0;pwned\x07 [link=https://evil.example]"
    "click[/link] [bold red]alarm[/] \u202eeerf\u2066"
)


def test_reviewer_text_is_inert_on_the_terminal(repo: Path) -> None:
    added = maple(repo, "comments", "add", "--body", HOSTILE)
    assert added.returncode == 0, added.stderr
    comment_id = added.stdout.strip()
    for args in (("comments", "list"), ("comments", "show", comment_id)):
        out = maple(repo, *args).stdout
        assert "click" in out
        assert not {"\x1b", "\x07", "\u202e", "\u2066"} & set(out)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(MAPLE), "comments", "list"],
            cwd=repo,
            env=clean_env(COLUMNS="400", TERM="xterm-256color"),
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert done.returncode == 0, done.stderr
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert "[link=https://evil.example]click[/link]" in shown  # markup printed, not acted on
    assert "\x1b]8;" not in shown  # no hyperlink escape
    assert "\x1b]52" not in shown
    assert "\x1b]0;" not in shown
    assert "\x07" not in shown
