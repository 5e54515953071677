"""``MAPLE_STORE=sql`` from the outside: ``maple db upgrade``, ``maple tokens``, the CLI, the Stop
hook and ``maple-mcp`` over stdio, on SQLite and on PostgreSQL; and nothing on the start-up path
of the hook or of ``maple-mcp`` imports SQLAlchemy unless the sql store is configured."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from contract_tests.support import make_repo
from maple_adapters.sql.database import Database
from maple_adapters.sql.store import SqlCommentStore
from maple_adapters.system import SystemClock
from maple_core.comments import NewComment
from tests.mcp_support import stdio_server, structured
from tests.test_stop_decision import RECORDED_CLAUDE_CODE_STOP

BIN = Path(sys.executable).parent
SECRET_PASSWORD = "pw-a81f3c"


def run(
    cwd: Path, program: str, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))}
    return subprocess.run(
        [str(BIN / program), *args],
        cwd=cwd,
        env={**base, **env},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", "feat/x")


def sql_env(url: str) -> dict[str, str]:
    return {
        "MAPLE_STORE": "sql",
        "MAPLE_DATABASE_URL": url,
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
    }


def test_upgrade_then_add_list_and_resolve_through_the_cli(unmigrated_url: str, repo: Path) -> None:
    env = sql_env(unmigrated_url)
    refused = run(repo, "maple", "comments", "list", **env)
    assert refused.returncode == 1
    assert "maple db upgrade" in refused.stderr
    first = run(repo, "maple", "db", "upgrade", **env)
    assert first.returncode == 0, first.stderr
    assert "Migrated" in first.stdout
    assert "already; nothing to do" in run(repo, "maple", "db", "upgrade", **env).stdout
    added = run(repo, "maple", "comments", "add", "--body", "Tighten the header.", **env)
    assert added.returncode == 0, added.stderr
    comment_id = added.stdout.strip()
    assert comment_id.startswith("sql_")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    resolved = run(repo, "maple", "comments", "resolve", comment_id, "--sha", head, **env)
    assert resolved.returncode == 0, resolved.stderr
    listed = run(repo, "maple", "comments", "list", "--json", **env)
    [comment] = json.loads(listed.stdout)
    assert (comment["id"], comment["status"]) == (comment_id, "resolved")
    assert not (repo / ".maple").exists()  # nothing went to the file store


def test_the_sql_store_without_a_database_url_is_one_line_naming_the_variable(
    repo: Path,
) -> None:
    done = run(repo, "maple", "comments", "list", MAPLE_STORE="sql")
    assert done.returncode == 2
    assert done.stderr.startswith("maple: MAPLE_DATABASE_URL is not set")
    served = run(repo, "maple-mcp", MAPLE_STORE="sql")
    assert served.returncode == 1
    assert served.stderr.startswith("maple-mcp: MAPLE_DATABASE_URL is not set")


def test_a_password_in_the_url_is_never_printed(repo: Path, tmp_path: Path) -> None:
    url = f"postgresql://maple:{SECRET_PASSWORD}@/maple?host={tmp_path / 'nowhere'}"
    for args in (("comments", "list"), ("db", "upgrade"), ("tokens", "list")):
        done = run(repo, "maple", *args, **sql_env(url))
        assert done.returncode == 1
        assert "could not be used" in done.stderr
        assert SECRET_PASSWORD not in done.stdout + done.stderr


def test_tokens_are_issued_once_listed_without_secrets_and_revoked(
    unmigrated_url: str, repo: Path
) -> None:
    env = sql_env(unmigrated_url)
    assert run(repo, "maple", "db", "upgrade", **env).returncode == 0
    issued = run(repo, "maple", "tokens", "create", "--scope", "read", "--label", "codex", **env)
    assert issued.returncode == 0, issued.stderr
    secret = issued.stdout.strip()
    assert secret.startswith("maple_")
    assert "shown this once" in issued.stderr
    listed = json.loads(run(repo, "maple", "tokens", "list", "--json", **env).stdout)
    [token] = listed
    assert (token["repository"], token["scope"], token["state"], token["label"]) == (
        "acme/web",
        "read",
        "active",
        "codex",
    )
    assert secret not in json.dumps(listed)
    assert run(repo, "maple", "tokens", "list", "--repository", "acme/other", **env).stdout == ""
    revoked = run(repo, "maple", "tokens", "revoke", token["id"], **env)
    assert revoked.returncode == 0, revoked.stderr
    again = json.loads(run(repo, "maple", "tokens", "list", "--json", **env).stdout)
    assert again[0]["state"] == "revoked"
    too_long = run(repo, "maple", "tokens", "create", "--expires", "400d", **env)
    assert too_long.returncode == 1
    assert "366 days" in too_long.stderr


def test_the_stop_hook_blocks_on_an_open_comment_in_the_database(
    unmigrated_url: str, repo: Path
) -> None:
    env = sql_env(unmigrated_url)
    assert run(repo, "maple", "db", "upgrade", **env).returncode == 0
    assert run(repo, "maple", "comments", "add", "--body", "Fix the footer.", **env).returncode == 0
    payload = json.dumps({**RECORDED_CLAUDE_CODE_STOP, "cwd": str(repo), "session_id": "s-sql"})
    done = run(repo, "maple-stop-hook", stdin=payload, TMPDIR=str(repo.parent), **env)
    assert done.returncode == 0, done.stderr
    decision = json.loads(done.stdout)
    assert decision["decision"] == "block"
    assert "Fix the footer." in decision["reason"]


@pytest.mark.anyio
async def test_maple_mcp_wakes_on_a_comment_another_process_writes(
    unmigrated_url: str, repo: Path
) -> None:
    env = sql_env(unmigrated_url)
    assert run(repo, "maple", "db", "upgrade", **env).returncode == 0
    async with stdio_server(repo, **env) as client:
        first = structured(
            await client.call_tool("wait_for_comments", {"branch": "feat/x", "timeoutMs": 100})
        )
        assert first["status"] == "timeout"
        database = Database(unmigrated_url)
        writer = SqlCommentStore(database, SystemClock(), "acme/web")
        written: list[float] = []

        def write() -> None:
            writer.append(NewComment(branch="feat/x", body="Wake up."))
            written.append(time.monotonic())

        threading.Timer(0.5, write).start()
        try:
            found = structured(
                await client.call_tool(
                    "wait_for_comments",
                    {"branch": "feat/x", "cursor": first["cursor"], "timeoutMs": 20_000},
                )
            )
        finally:
            database.close()
        woke = time.monotonic()
    assert [c["body"] for c in found["comments"]] == ["Wake up."]
    assert woke - written[0] < 2.0  # by the change signal, not the 5 s relist


def _modules_loaded(code: str, cwd: Path, **env: str) -> set[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))}
    done = subprocess.run(
        [sys.executable, "-c", code + "\nprint(' '.join(sorted(sys.modules)))"],
        cwd=cwd,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return {m.split(".")[0] for m in done.stdout.split()}


def test_maple_mcp_and_the_cli_load_no_database_library_unless_the_sql_store_is_configured(
    repo: Path,
) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "import maple_entrypoints.cli, maple_entrypoints.route.serve\n"
        "from maple_entrypoints.bootstrap.agent_loop import agent_loop\n"
        "from maple_entrypoints.mcp_server import build_server\n"
        "loop = agent_loop(Path.cwd())\n"
        "build_server(loop.store, target=loop.target)\n"
    )
    databases = {"sqlalchemy", "psycopg", "alembic", "stamina"}
    assert not databases & _modules_loaded(code, repo)
    assert not databases & _modules_loaded(code, repo, MAPLE_STORE="file")
    configured = _modules_loaded(code, repo, **sql_env(f"sqlite:///{repo / 'x.db'}"))
    assert {"sqlalchemy", "stamina"} <= configured  # the check above can see them


def test_maple_doctor_checks_the_database(unmigrated_url: str, repo: Path) -> None:
    env = sql_env(unmigrated_url)
    before = run(repo, "maple", "doctor", "--json", **env)
    assert before.returncode == 1
    [database] = [f for f in json.loads(before.stdout) if f["check"] == "database"]
    assert (database["ok"], database["fix"]) == (False, "maple db upgrade")
    assert run(repo, "maple", "db", "upgrade", **env).returncode == 0
    after = {
        f["check"]: f for f in json.loads(run(repo, "maple", "doctor", "--json", **env).stdout)
    }
    assert after["database"]["ok"] is True
    assert after["store"]["ok"] is True
    postgres = unmigrated_url.startswith("postgresql")
    assert after["notifications"]["ok"] is (True if postgres else None)
