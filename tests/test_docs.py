"""The docs stay true: the library example runs, and the configuration page matches the code."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from maple_core.environment import (
    ENVIRONMENT,
    SECRET_VARIABLES,
    VARIABLES,
    describe_variable,
    render_markdown,
)
from maple_entrypoints.hook_settings import read_hook_settings
from maple_entrypoints.settings import (
    ClassifierSettings,
    InstallSettings,
    SessionSettings,
    Settings,
    load_settings,
    secret_values,
)

ROOT = Path(__file__).resolve().parents[1]


def test_the_library_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("MAPLE_", "GITHUB_")):
            monkeypatch.delenv(name)
    text = (ROOT / "docs" / "library.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "docs/library.md has no python example"
    for block in blocks:
        exec(compile(block, "docs/library.md", "exec"), {})


def test_the_configuration_page_is_generated_from_the_table() -> None:
    assert (ROOT / "docs" / "configuration.md").read_text() == render_markdown()


class Recording(dict[str, str]):
    def __init__(self) -> None:
        super().__init__()
        self.asked: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)


def test_the_table_lists_exactly_what_settings_reads() -> None:
    environ = Recording()
    read_hook_settings(environ)
    assert environ.asked, "the hook's reader reads nothing through the table"
    fields = {
        **Settings.model_fields,
        **InstallSettings.model_fields,
        **SessionSettings.model_fields,
        **ClassifierSettings.model_fields,
    }
    assert sorted(v.name for v in ENVIRONMENT) == sorted(fields.keys() | environ.asked)
    for variable in ENVIRONMENT:
        if variable.name in fields:
            secret = fields[variable.name].annotation == SecretStr | None
            assert secret is variable.secret, variable.name
    transport = load_settings({}).MAPLE_GITHUB_TRANSPORT
    assert transport.value == VARIABLES["MAPLE_GITHUB_TRANSPORT"].default


def test_the_scrubbers_list_is_the_tables_secrets() -> None:
    environ = {v.name: f"value-of-{v.name}" for v in ENVIRONMENT if v.name != "MAPLE_STORE"}
    environ["MAPLE_GITHUB_TRANSPORT"] = "api"
    environ["MAPLE_PR_REVIEW"] = "agent"
    expected = sorted(f"value-of-{name}" for name in SECRET_VARIABLES)
    assert sorted(load_settings(environ).secrets()) == expected
    assert sorted(secret_values(environ)) == expected


def test_every_description_is_one_sentence() -> None:
    for variable in ENVIRONMENT:
        assert re.fullmatch(r"\S.*\.", variable.description), variable.name
    assert describe_variable("GITHUB_TOKEN") is not None
    assert "pull-request comments" in (describe_variable("GITHUB_TOKEN") or "")
    assert describe_variable("NOT_A_MAPLE_VARIABLE") is None


def test_the_readme_quick_start_is_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\s*(make \w+)\s*$", quick, re.M)
    assert commands == ["make demo", "make test"]
