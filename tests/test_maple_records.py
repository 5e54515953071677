"""Every record maple writes can be written to again by Maple: an ``author`` and a ``context``.

Maple's GitHub store names each comment's ``author.name`` and reads its ``context.url`` on every
write, and fails on a record without them; so every entrypoint signs its comments, and a record
found without them is repaired on the next write. (The contract suite checks every store.)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from contract_tests.github_peers import TOKEN, api_transport
from contract_tests.support import FakeClock, git, make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.github.store import GitHubLedgerStore
from maple_core.comments import NewComment
from maple_core.paging import ListQuery
from maple_core.statuses import CommentStatus
from tests.github.fake_github import FakeGitHub, Served
from tests.github.maple_ledger import maple_body
from tests.support import maple

BRANCH = "feat/records"
LEGACY = {"id": "loc_legacy00001", "branch": BRANCH, "body": "Written before", "status": "open"}


def assert_maple_can_write(record: dict[str, object]) -> None:
    author, context = record.get("author"), record.get("context")
    assert isinstance(author, dict), record
    assert isinstance(author.get("name"), str), record
    assert isinstance(context, dict), record


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub(logins={TOKEN: "dana"})


def test_maple_comments_add_signs_with_the_git_identity(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BRANCH)
    git(repo, "config", "user.name", "Dana Reviewer")
    git(repo, "config", "user.email", "dana@example.com")
    added = maple(repo, "comments", "add", "--body", "From the terminal", "--json")
    assert added.returncode == 0, added.stderr
    [record] = json.loads((repo / ".maple" / "feat-records" / "comments.json").read_text())[
        "comments"
    ]
    assert record["author"]["name"] == "Dana Reviewer"
    assert record["author"]["provenance"] == "client"
    assert_maple_can_write(record)


def test_maple_comments_add_records_a_full_context_so_maples_table_shows_it(
    tmp_path: Path,
) -> None:
    """Maple's table prints ``viewportWidth×viewportHeight`` for every row: a comment from the
    terminal records them (0×0 when no browser saw it), the density and the colour scheme
    (issue 22, point 6)."""
    repo = make_repo(tmp_path / "repo", BRANCH)
    for args, want in (
        ((), {"url": "", "viewportWidth": 0, "viewportHeight": 0}),
        (
            ("--url", "http://localhost:3000/cart", "--viewport", "390x844", "--density", "3"),
            {"url": "http://localhost:3000/cart", "viewportWidth": 390, "viewportHeight": 844},
        ),
    ):
        added = maple(repo, "comments", "add", "--body", "From the terminal", *args, "--json")
        assert added.returncode == 0, added.stderr
        context = json.loads(added.stdout)["context"]
        assert {k: context[k] for k in want} == want
        assert context["devicePixelRatio"] == (3 if args else 1)
        assert context["colorScheme"] == "light"
        row = maple_body([{**json.loads(added.stdout), "anchor": {}}]).splitlines()[4]
        assert "undefined" not in row
        assert row.endswith(f"| {want['viewportWidth']}×{want['viewportHeight']} |")
    wrong = maple(repo, "comments", "add", "--body", "x", "--viewport", "wide")
    assert wrong.returncode == 2
    assert "is not WIDTHxHEIGHT" in wrong.stderr


def test_maple_comments_add_on_github_signs_with_the_tokens_user(
    served: Served, tmp_path: Path
) -> None:
    served.fake.reset()
    served.fake.open_pull(BRANCH)
    repo = make_repo(tmp_path / "repo", BRANCH)
    env = {
        "GITHUB_TOKEN": TOKEN,
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "MAPLE_GITHUB_API": served.base_url,
        "REQUESTS_CA_BUNDLE": served.ca_file,
    }
    added = maple(repo, "comments", "add", "--body", "On the pull request", **env)
    assert added.returncode == 0, added.stderr
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    [comment] = store.list(ListQuery(branch=BRANCH)).comments
    record = comment.to_json()
    assert record["author"]["name"] == "dana"
    assert_maple_can_write(record)


def test_a_file_record_without_author_or_context_is_repaired_on_the_next_write(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo", BRANCH)
    folder = repo / ".maple" / "feat-records"
    folder.mkdir(parents=True)
    (folder / "comments.json").write_text(json.dumps({"version": 1, "comments": [LEGACY]}))
    # an older maple's seal (no record guarantee) must not let an append skip the repair
    store = FileCommentStore(FakeClock(), repo)
    store.append(NewComment(branch=BRANCH, body="next"))
    records = json.loads((folder / "comments.json").read_text())["comments"]
    assert [r["body"] for r in records] == ["Written before", "next"]
    for record in records:
        assert_maple_can_write(record)
    assert records[0]["author"] == {"id": "guest", "name": "Guest", "provenance": "guest"}


def test_a_ledger_record_without_author_or_context_is_repaired_on_the_next_write(
    served: Served,
) -> None:
    served.fake.reset()
    served.fake.open_pull(BRANCH)
    legacy = {**LEGACY, "id": "gh_1_1"}
    fence = json.dumps({"branch": BRANCH, "comments": [legacy], "version": 1})
    served.fake.add_comment(1, f"```maple\n{fence}\n```", login="maple-bot")
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    store.set_status("gh_1_1", CommentStatus.RESOLVED)
    [ledger] = [c["body"] for c in served.fake.issue_comments(1) if "```maple" in c["body"]]
    records = json.loads(ledger.split("```maple\n", 1)[1].split("\n```", 1)[0])["comments"]
    for record in records:
        assert_maple_can_write(record)


def test_an_older_maples_seal_does_not_let_an_append_skip_the_repair(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BRANCH)
    folder = repo / ".maple" / "feat-records"
    folder.mkdir(parents=True)
    path = folder / "comments.json"
    doc = {"version": 1, "comments": [LEGACY], "approvals": []}
    path.write_text(json.dumps(doc, indent=2).replace("\n}", "\n}") + "\n")
    data = path.read_bytes()
    close = data.rindex(b"\n  ]")
    stat = path.stat()
    old_seal = {  # what maple wrote before it guaranteed every record's author and context
        "inode": stat.st_ino,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "close": close,
        "tail_sha256": hashlib.sha256(data[close:]).hexdigest(),
        "last_stamp": None,
    }
    (folder / "comments.json.seal").write_text(json.dumps(old_seal))
    FileCommentStore(FakeClock(), repo).append(NewComment(branch=BRANCH, body="next"))
    records = json.loads(path.read_text())["comments"]
    assert [r["body"] for r in records] == ["Written before", "next"]
    for record in records:
        assert_maple_can_write(record)
