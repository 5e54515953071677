"""``maple doctor``'s check that Codex will run the Stop hook: the project and the hook trusted."""

from __future__ import annotations

from pathlib import Path

from maple_entrypoints.cli.client_files import UnreadableFileError, read_json, read_toml
from maple_entrypoints.cli.clients import Client, project_root
from maple_entrypoints.cli.codex_trust import codex_config_path, codex_hook, codex_project_trust
from maple_entrypoints.cli.findings import Finding, Registered
from maple_entrypoints.cli.toml_merge import toml_string

__all__ = [
    "codex_trust_findings",
]


def codex_trust_findings(cwd: Path, root: Path, hook: Registered, findings: list[Finding]) -> None:
    """Whether Codex will run the hook: its project trusted, its hash trusted and unchanged."""
    config_path = codex_config_path()
    try:
        config = read_toml(config_path)[1]
        found = codex_hook(hook.file, read_json(hook.file)[1])
    except UnreadableFileError as exc:
        findings.append(Finding("codex hook trust", False, str(exc)))
        return
    assert found is not None
    fix = "maple install codex --write"
    if hook.file == root / ".codex" / "hooks.json":
        here = project_root(Client.CLAUDE_CODE, cwd)  # a linked worktree's own entry counts
        where, level = codex_project_trust(config, root, (here,) if here != root else ())
        if level == "trusted":
            findings.append(Finding("codex project trust", True, f"{where} is trusted"))
        elif level is None:
            findings.append(
                Finding(
                    "codex project trust",
                    False,
                    f"Codex ignores {hook.file} until the project is trusted "
                    f"([projects.{toml_string(where)}] in {config_path})",
                    fix,
                )
            )
        else:
            findings.append(
                Finding(
                    "codex project trust",
                    False,
                    f"Codex ignores {hook.file}: {config_path} marks {where} as {level}",
                    f'set trust_level = "trusted" under [projects.{toml_string(where)}] in '
                    f"{config_path}",
                )
            )
    hooks = config.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    state = states.get(found.key) if isinstance(states, dict) else None
    state = state if isinstance(state, dict) else {}
    trusted = state.get("trusted_hash")
    table = f"[hooks.state.{toml_string(found.key)}]"
    if found.hash is None:
        detail, fix = f"{hook.file} gives the Stop hook a field Codex cannot read", ""
    elif trusted is None:
        detail = f"the Stop hook is not trusted in {config_path}, so Codex skips it without a word"
    elif trusted != found.hash:
        detail = (
            f"the Stop hook changed since it was trusted ({table} in {config_path} trusts "
            f"{str(trusted)[:19]}…, it is now {found.hash[:19]}…), so Codex skips it"
        )
    elif state.get("enabled") is False:
        detail = f"the Stop hook is turned off (enabled = false under {table} in {config_path})"
        fix = f"delete enabled = false under {table} in {config_path}"
    else:
        findings.append(Finding("codex hook trust", True, f"trusted ({found.hash[:19]}…)"))
        return
    findings.append(Finding("codex hook trust", False, detail, fix))
