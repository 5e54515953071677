"""Every environment variable maple reads, in one table; the docs are generated from it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENVIRONMENT", "EnvironmentVariable", "describe_variable", "render_markdown"]


@dataclass(frozen=True, slots=True)
class EnvironmentVariable:
    """One variable: its name, whether it is a secret, and one sentence saying what it is."""

    name: str
    secret: bool
    description: str


ENVIRONMENT: tuple[EnvironmentVariable, ...] = (
    EnvironmentVariable(
        "MAPLE_STORE",
        False,
        "Where comments live: file (the .maple/ folder at the main checkout) or github; unset "
        "means github when any GitHub variable below is set, else file.",
    ),
    EnvironmentVariable(
        "GITHUB_TOKEN",
        True,
        "Token that can read and write the pull-request comments Maple keeps its ledger in.",
    ),
    EnvironmentVariable("MAPLE_GITHUB_OWNER", False, "The repository's owner."),
    EnvironmentVariable("MAPLE_GITHUB_REPO", False, "The repository's name."),
)
"""Every variable maple reads, in the order the docs list them."""


def describe_variable(name: str) -> str | None:
    """The description of ``name``, or ``None`` when maple does not read it."""
    return next((v.description for v in ENVIRONMENT if v.name == name), None)


def render_markdown() -> str:
    """``docs/configuration.md``, generated from :data:`ENVIRONMENT`."""
    lines = [
        "# Configuration",
        "",
        "maple reads these environment variables and nothing else. This page is generated from",
        "`maple_entrypoints.environment.ENVIRONMENT` (`make docs`); a test keeps the two equal.",
        "",
        "| Variable | Secret | What it is |",
        "|---|---|---|",
    ]
    for variable in ENVIRONMENT:
        secret = "yes" if variable.secret else "no"
        lines.append(f"| `{variable.name}` | {secret} | {variable.description} |")
    lines += [
        "",
        "An empty GitHub variable counts as unset; an empty or unknown `MAPLE_STORE` is refused,",
        "as Maple refuses it. A setting maple cannot use stops it with one line naming the",
        "variable and the fix (exit code 2), never a traceback.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(render_markdown(), end="")
