"""`maple install`: merged into files that already hold other entries, idempotent, refusing junk."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from maple_entrypoints.cli import app
from maple_entrypoints.cli.install import command_for

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


def test_cursor_adds_the_hook_with_its_loop_limit(project: Path) -> None:
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
    home = tmp_path / "codex-home"
    home.mkdir()
    config = home / "config.toml"
    config.write_text(
        'model = "gpt-5"\n\n[mcp_servers.maple]\ncommand = "old"\n\n[mcp_servers.other]\n'
        'command = "x"\n'
    )
    monkeypatch.setenv("CODEX_HOME", str(home))
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
    home = tmp_path / "codex-home"
    home.mkdir()
    config = home / "config.toml"
    config.write_text(
        '[mcp_servers.maple]\ncommand = "old"\nstartup_timeout_sec = 30\n\n'
        '[mcp_servers.maple.env]\nMAPLE_STORE = "github"\n'
    )
    monkeypatch.setenv("CODEX_HOME", str(home))
    assert install(tmp_path, "codex", "--write").exit_code == 0
    maple = tomllib.loads(config.read_text())["mcp_servers"]["maple"]
    assert maple["command"] == command_for("maple-mcp")
    assert maple["startup_timeout_sec"] == 30
    assert maple["env"] == {"MAPLE_STORE": "github"}
    assert maple["args"] == []


@pytest.mark.parametrize(
    "text",
    [
        '[mcp_servers.maple] # mine\ncommand = "old"\n',
        '[mcp_servers]\nmaple = { command = "old" }\n',
        "not = [valid",
    ],
)
def test_a_codex_config_maple_cannot_edit_safely_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(text)
    monkeypatch.setenv("CODEX_HOME", str(home))
    result = runner.invoke(app, ["install", "codex", "--write", "--dir", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert (home / "config.toml").read_text() == text


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
