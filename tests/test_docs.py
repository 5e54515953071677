"""The docs stay true: the library example runs, and the configuration page matches the code."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from maple_entrypoints import configuration
from maple_entrypoints.configuration import (
    ENVIRONMENT,
    GITHUB_TOKEN,
    MAPLE_GITHUB_TRANSPORT,
    SECRETS,
    Settings,
    render_markdown,
)
from maple_entrypoints.variables import Secret

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


def test_every_declared_variable_is_read_by_name_somewhere() -> None:
    """The declaration lists what maple reads: each variable is used outside it, by name.

    A secret is also read through the secret list alone (kept from agents, scrubbed from output).
    """
    sources = [
        p.read_text()
        for p in (ROOT / "src").rglob("*.py")
        if p != Path(configuration.__file__).resolve()
    ]
    for variable in ENVIRONMENT:
        if variable.secret:
            continue
        name = variable.name
        used = re.compile(rf"\b{name}\b(?!\s*=\s*Variable)")
        assert any(used.search(text) for text in sources), f"{name} is declared but never read"


def test_a_secret_is_read_as_a_secret_and_the_rest_are_not() -> None:
    environ = {v.name: f"value-of-{v.name}" for v in ENVIRONMENT}
    settings = Settings(environ)
    for variable in ENVIRONMENT:
        if variable.secret:
            value = settings[variable]
            assert isinstance(value, Secret), variable.name
            assert value.get_secret_value() == f"value-of-{variable.name}"
            assert "value-of" not in repr(value) + str(value)
    assert Settings({})[MAPLE_GITHUB_TRANSPORT] == MAPLE_GITHUB_TRANSPORT.default == "auto"


def test_the_scrubbers_list_is_the_declarations_secrets() -> None:
    environ = {v.name: f"value-of-{v.name}" for v in ENVIRONMENT if v.name != "MAPLE_STORE"}
    expected = sorted(f"value-of-{name}" for name in SECRETS)
    assert sorted(Settings(environ).secrets()) == expected
    assert {v.name for v in ENVIRONMENT if v.secret} == SECRETS


def test_every_description_is_one_sentence() -> None:
    for variable in ENVIRONMENT:
        assert re.fullmatch(r"\S.*\.", variable.description), variable.name
    assert "pull-request comments" in GITHUB_TOKEN.description


def test_the_readme_quick_start_is_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\s*(make \w+)\s*$", quick, re.M)
    assert commands == ["make demo", "make test"]
