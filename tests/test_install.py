"""`maple install`: merged into files that already hold other entries, idempotent, refusing junk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from contract_tests.support import make_repo
from maple_entrypoints.cli import app
from maple_entrypoints.cli.clients import command_for
from tests.support import clean_env
from tests.support import maple as run_maple

runner = CliRunner()
PLUGIN = Path(__file__).resolve().parents[1] / "plugins" / "claude-code"


def install(project: Path, *args: str) -> Any:
    return runner.invoke(app, ["install", *args, "--dir", str(project)], catch_exceptions=False)


def read(path: Path) -> Any:
    return json.loads(path.read_text())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".cursor").mkdir()
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"github": {"command": "gh-mcp", "args": ["--x"]}}})
    )
    (root / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(make test)"]},
                "hooks": {
                    "Stop": [{"hooks": [{"type": "command", "command": "notify-me"}]}],
                    "PreToolUse": [{"matcher": "Bash", "hooks": []}],
                },
            }
        )
    )
    (root / ".cursor" / "hooks.json").write_text(
        json.dumps({"version": 1, "hooks": {"afterFileEdit": [{"command": "fmt"}]}})
    )
    return root


def test_claude_code_keeps_every_other_entry_and_is_idempotent(project: Path) -> None:
    first = install(project, "claude-code")
    assert first.exit_code == 0, first.output
    servers = read(project / ".mcp.json")["mcpServers"]
    assert servers["github"] == {"command": "gh-mcp", "args": ["--x"]}
    assert servers["maple"] == {"command": command_for("maple-mcp"), "args": []}
    settings = read(project / ".claude" / "settings.json")
    assert settings["permissions"] == {"allow": ["Bash(make test)"]}
    assert settings["hooks"]["PreToolUse"] == [{"matcher": "Bash", "hooks": []}]
    assert settings["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": "notify-me"}]},
        {"hooks": [{"type": "command", "command": command_for("maple-stop-hook")}]},
    ]
    before = {p: p.read_bytes() for p in project.rglob("*.json")}
    again = install(project, "claude-code")
    assert again.stdout.count("unchanged") == 2
    assert {p: p.read_bytes() for p in project.rglob("*.json")} == before


def test_dry_run_shows_a_diff_and_writes_nothing(project: Path) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*.json")}
    result = install(project, "cursor", "--dry-run")
    assert result.exit_code == 0
    assert "+++ " in result.stdout
    assert '"maple"' in result.stdout
    assert "--client cursor" in result.stdout
    assert {p: p.read_bytes() for p in project.rglob("*.json")} == before
    assert not (project / ".cursor" / "mcp.json").exists()


def test_the_cursor_editor_gets_the_hook_with_its_loop_limit(project: Path) -> None:
    assert install(project, "cursor").exit_code == 0
    hooks = read(project / ".cursor" / "hooks.json")
    assert hooks["hooks"]["afterFileEdit"] == [{"command": "fmt"}]
    assert hooks["hooks"]["stop"] == [
        {"command": f"{command_for('maple-stop-hook')} --client cursor", "loop_limit": 8}
    ]
    assert read(project / ".cursor" / "mcp.json")["mcpServers"]["maple"]["command"] == (
        command_for("maple-mcp")
    )


def test_codex_prints_the_table_or_merges_it_with_write(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = codex_config(
        tmp_path,
        monkeypatch,
        'model = "gpt-5"\n\n[mcp_servers.maple]\ncommand = "old"\n\n[mcp_servers.other]\n'
        'command = "x"\n',
    )
    printed = install(project, "codex")
    assert "[mcp_servers.maple]" in printed.stdout
    assert "--write" in printed.stdout
    hooks = read(project / ".codex" / "hooks.json")
    assert hooks["hooks"]["Stop"][0]["hooks"][0]["command"].endswith("--client codex")
    assert 'command = "old"' in config.read_text()
    written = install(project, "codex", "--write")
    assert written.exit_code == 0, written.output
    data = tomllib.loads(config.read_text())
    assert data["model"] == "gpt-5"
    assert data["mcp_servers"]["other"] == {"command": "x"}
    assert data["mcp_servers"]["maple"]["command"] == command_for("maple-mcp")
    assert data["mcp_servers"]["maple"]["tool_timeout_sec"] == 60
    text = config.read_text()
    assert install(project, "codex", "--write").stdout.count("unchanged") == 2
    assert config.read_text() == text


@pytest.mark.parametrize("junk", ["{not json", "[1, 2]"])
def test_a_file_that_is_not_a_json_object_is_refused_and_left_alone(
    project: Path, junk: str
) -> None:
    (project / ".mcp.json").write_text(junk)
    result = runner.invoke(app, ["install", "claude-code", "--dir", str(project)])
    assert result.exit_code == 1
    assert "maple will not" in result.stderr
    assert (project / ".mcp.json").read_text() == junk
    assert "maple-stop-hook" not in (project / ".claude" / "settings.json").read_text()


def test_the_plugin_folder_registers_what_install_writes() -> None:
    manifest = read(PLUGIN / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "maple"
    assert read(PLUGIN / ".mcp.json")["mcpServers"]["maple"] == {
        "command": "maple-mcp",
        "args": [],
    }
    stop = read(PLUGIN / "hooks" / "hooks.json")["hooks"]["Stop"]
    assert stop == [{"hooks": [{"type": "command", "command": "maple-stop-hook"}]}]


def test_codex_keeps_the_tables_own_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = codex_config(
        tmp_path,
        monkeypatch,
        '[mcp_servers.maple]\ncommand = "old"\nstartup_timeout_sec = 30\n\n'
        '[mcp_servers.maple.env]\nMAPLE_STORE = "github"\n',
    )
    assert install(tmp_path, "codex", "--write").exit_code == 0
    maple = tomllib.loads(config.read_text())["mcp_servers"]["maple"]
    assert maple["command"] == command_for("maple-mcp")
    assert maple["startup_timeout_sec"] == 30
    assert maple["env"] == {"MAPLE_STORE": "github"}
    assert maple["args"] == []


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            '# my codex\n[mcp_servers.maple] # mine\ncommand = "old" # was\n\n[other]\na = 1\n',
            ["# my codex\n", "[mcp_servers.maple] # mine\n", " # was\n", "\n\n[other]\na = 1\n"],
        ),
        ('[mcp_servers]\nmaple = { command = "old" } # inline\n', ["maple = {", "} # inline\n"]),
    ],
)
def test_codex_config_comments_and_layout_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, kept: list[str]
) -> None:
    config = codex_config(tmp_path, monkeypatch, text)
    assert install(tmp_path, "codex", "--write").exit_code == 0
    merged = config.read_text()
    for part in kept:
        assert part in merged
    maple = tomllib.loads(merged)["mcp_servers"]["maple"]
    assert maple == {"command": command_for("maple-mcp"), "args": [], "tool_timeout_sec": 60}


@pytest.mark.parametrize(
    "text",
    [
        '[mcp_servers]\nmaple = "old"\n',
        '[[mcp_servers.maple]]\ncommand = "old"\n',
        "not = [valid",
    ],
)
def test_a_codex_config_maple_cannot_edit_safely_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    config = codex_config(tmp_path, monkeypatch, text)
    result = runner.invoke(app, ["install", "codex", "--write", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert config.read_text() == text


def test_a_registration_formatted_differently_is_left_as_it_is(project: Path) -> None:
    install(project, "claude-code")
    mcp = project / ".mcp.json"
    mcp.write_text(json.dumps(read(mcp), indent=4))
    text = mcp.read_text()
    assert "unchanged" in install(project, "claude-code").stdout
    assert mcp.read_text() == text


def test_a_file_that_is_not_utf8_is_refused(project: Path) -> None:
    (project / ".mcp.json").write_bytes(b"\xff\xfe{}")
    result = runner.invoke(app, ["install", "claude-code", "--dir", str(project)])
    assert result.exit_code == 1
    assert "maple will not" in result.stderr


# -- the maple console script in a scratch repository: command forms, and doctor agreeing ---------

BIN = Path(sys.executable).parent


def system_path() -> str:
    """``PATH`` without any folder holding a maple console script."""
    entries = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(e for e in entries if e and not (Path(e) / "maple-mcp").exists())


def codex_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    """A Codex home (``CODEX_HOME``, for this test) whose ``config.toml`` holds ``text``."""
    home = tmp_path / "codex-home"
    home.mkdir()
    config = home / "config.toml"
    config.write_text(text)
    monkeypatch.setenv("CODEX_HOME", str(home))
    return config


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", "feat/x").resolve()


def maple(cwd: Path, *args: str, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    home = cwd.parent / "home"
    home.mkdir(exist_ok=True)
    environment = clean_env(HOME=str(home), CODEX_HOME=str(home / ".codex"), PATH=path, **env)
    if "VIRTUAL_ENV" not in env:
        environment.pop("VIRTUAL_ENV", None)
    return run_maple(cwd, *args, env=environment)


def claude_commands(repo: Path) -> tuple[str, str]:
    server = read(repo / ".mcp.json")["mcpServers"]["maple"]["command"]
    hook = read(repo / ".claude" / "settings.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
    return server, hook


def test_the_server_and_the_hook_are_written_in_the_same_form(
    scratch: Path, tmp_path: Path
) -> None:
    only_server = tmp_path / "only-server"
    only_server.mkdir()
    (only_server / "maple-mcp").symlink_to(BIN / "maple-mcp")
    path = os.pathsep.join([str(only_server), system_path()])
    done = maple(scratch, "install", "claude-code", path=path)
    assert done.returncode == 0, done.stderr
    assert claude_commands(scratch) == (str(BIN / "maple-mcp"), str(BIN / "maple-stop-hook"))
    both = os.pathsep.join([str(BIN), system_path()])
    assert maple(scratch, "install", "claude-code", path=both).returncode == 0
    assert claude_commands(scratch) == ("maple-mcp", "maple-stop-hook")


def test_an_activated_virtualenv_is_not_the_clients_path(scratch: Path) -> None:
    path = os.pathsep.join([str(BIN), system_path()])
    done = maple(scratch, "install", "claude-code", path=path, VIRTUAL_ENV=str(BIN.parent))
    assert done.returncode == 0, done.stderr
    assert claude_commands(scratch) == (str(BIN / "maple-mcp"), str(BIN / "maple-stop-hook"))


@pytest.mark.parametrize(
    "args", [["claude-code"], ["cursor"], ["codex", "--write"]], ids=lambda a: a[0]
)
def test_doctor_tells_registered_but_not_on_path_from_not_registered(
    scratch: Path, args: list[str]
) -> None:
    client = args[0]
    on_path = os.pathsep.join([str(BIN), system_path()])
    fresh = maple(scratch, "doctor", path=system_path())
    assert fresh.returncode == 0, fresh.stdout
    assert f"--   {client} registration: not registered" in fresh.stdout

    assert maple(scratch, "install", *args, path=on_path).returncode == 0  # bare names
    lost = maple(scratch, "doctor", path=system_path())
    assert lost.returncode == 1, lost.stdout
    [line] = [x for x in lost.stdout.splitlines() if x.startswith(f"FAIL {client} registration:")]
    assert "maple-mcp" in line
    assert "maple-stop-hook" in line
    assert "not found on PATH" in line
    assert f"     fix: maple install {' '.join(args)}" in lost.stdout
    assert maple(scratch, "doctor", path=on_path).returncode == 0

    assert maple(scratch, "install", *args, path=system_path()).returncode == 0  # full paths
    fixed = maple(scratch, "doctor", path=system_path())
    assert fixed.returncode == 0, fixed.stdout
    assert f"ok   {client} registration: server and Stop hook" in fixed.stdout


def test_doctor_fails_a_client_with_only_the_server_registered(scratch: Path) -> None:
    assert maple(scratch, "install", "claude-code", path=system_path()).returncode == 0
    settings = scratch / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": {"Stop": []}}))
    done = maple(scratch, "doctor", path=system_path())
    assert done.returncode == 1, done.stdout
    [line] = [x for x in done.stdout.splitlines() if x.startswith("FAIL claude-code registration")]
    assert "Stop hook is not registered in .claude/settings.json" in line


def test_doctor_fails_a_registration_whose_full_path_is_gone(scratch: Path) -> None:
    assert maple(scratch, "install", "cursor", path=system_path()).returncode == 0
    mcp = scratch / ".cursor" / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"maple": {"command": "/gone/bin/maple-mcp"}}}))
    done = maple(scratch, "doctor", path=system_path())
    assert done.returncode == 1, done.stdout
    assert "/gone/bin/maple-mcp, which does not exist" in done.stdout


def test_install_and_doctor_use_the_same_project_from_a_subdirectory(scratch: Path) -> None:
    inner = scratch / "web" / "src"
    inner.mkdir(parents=True)
    assert maple(inner, "install", "claude-code", path=system_path()).returncode == 0
    assert (scratch / ".mcp.json").exists()
    assert not (inner / ".mcp.json").exists()
    done = maple(inner, "doctor", path=system_path())
    assert "ok   claude-code registration: server and Stop hook" in done.stdout


def test_claude_code_wakes_with_nothing_set_so_no_env_is_written(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(project.parent / "home"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_MCP_TASKS", raising=False)
    result = install(project, "claude-code")
    assert result.exit_code == 0, result.output
    assert "env" not in read(project / ".claude" / "settings.json")
    assert "CLAUDE_CODE_DISABLE_MCP_TASKS" not in result.output


def test_claude_code_with_tasks_turned_off_is_told_it_cannot_wake(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(project.parent / "home"))
    monkeypatch.delenv("CLAUDE_CODE_DISABLE_MCP_TASKS", raising=False)
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"env": {"CLAUDE_CODE_DISABLE_MCP_TASKS": "1"}}))
    result = install(project, "claude-code")
    assert result.exit_code == 0, result.output
    assert f"CLAUDE_CODE_DISABLE_MCP_TASKS is set in {settings}" in result.stderr
    assert "maple watch --agent claude" in result.stderr
    assert read(settings)["env"] == {"CLAUDE_CODE_DISABLE_MCP_TASKS": "1"}  # the user's choice
