"""Every environment variable maple reads, in one table; the docs are generated from it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ENVIRONMENT",
    "EnvironmentVariable",
    "SECRET_VARIABLES",
    "describe_variable",
    "render_markdown",
]


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
        "Where comments live: file (the .maple/ folder at the main checkout), github (the pull "
        "request's ledger comment) or route (a deployed Maple route); unset means github when "
        "GITHUB_TOKEN, MAPLE_GITHUB_OWNER or MAPLE_GITHUB_REPO is set, else file.",
    ),
    EnvironmentVariable(
        "GITHUB_TOKEN",
        True,
        "Token that can read and write the pull-request comments Maple keeps its ledger in; "
        "also sent to MAPLE_URL.",
    ),
    EnvironmentVariable(
        "MAPLE_GITHUB_OWNER",
        False,
        "The repository's owner.",
    ),
    EnvironmentVariable(
        "MAPLE_GITHUB_REPO",
        False,
        "The repository's name.",
    ),
    EnvironmentVariable(
        "MAPLE_GITHUB_API", False, "GitHub's API root, for GitHub Enterprise Server."
    ),
    EnvironmentVariable(
        "MAPLE_GITHUB_TRANSPORT",
        False,
        "How to reach GitHub: auto (a GITHUB_TOKEN means api, else a signed-in gh means cli), "
        "api or cli.",
    ),
    EnvironmentVariable(
        "MAPLE_BRANCH",
        False,
        "The branch the Stop hook checks, else the one checked out; the server ignores it.",
    ),
    EnvironmentVariable(
        "MAPLE_URL",
        False,
        "The deployed Maple route's mount URL, asked to refresh the merge gate after a resolve.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_TOKEN",
        True,
        "CI only: the gate App's installation token, to publish the merge gate directly.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_APP_ID",
        False,
        "The gate App's id, so the gate only updates check runs that App created.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_INSTALLATION_ID",
        False,
        "Route server only: the gate App's installation id on the repository.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_PRIVATE_KEY",
        True,
        "Route server only: the gate App's private key (the PEM text, not a path), so the "
        "route mints its own installation tokens to publish the merge gate.",
    ),
    EnvironmentVariable(
        "MAPLE_REQUIRE_APPROVAL",
        False,
        "Exactly true to hold the gate until somebody approves the preview (direct publish and "
        "the route server).",
    ),
    EnvironmentVariable(
        "MAPLE_REVIEW_URL",
        False,
        "Route server only: where reviewers look at the preview (an http or https URL), the "
        "merge gate's check-run link; unset means the check run has no link.",
    ),
    EnvironmentVariable(
        "MAPLE_AGENTS",
        False,
        "Comma-separated external agents maple-mcp offers tools for: codex, claude; unset means "
        "none.",
    ),
    EnvironmentVariable(
        "GH_TOKEN",
        True,
        "gh's own token, read by gh when the cli transport runs it (maple passes it through).",
    ),
    EnvironmentVariable(
        "GH_ENTERPRISE_TOKEN",
        True,
        "gh's token for a GitHub Enterprise Server host, read by gh as GH_TOKEN is.",
    ),
    EnvironmentVariable(
        "GITHUB_ENTERPRISE_TOKEN",
        True,
        "gh's older name for GH_ENTERPRISE_TOKEN, read by gh as GH_TOKEN is.",
    ),
)
"""Every variable maple reads (or passes to gh), in the order the docs list them."""

SECRET_VARIABLES: frozenset[str] = frozenset(v.name for v in ENVIRONMENT if v.secret)
"""The variables that hold credentials: never shown, and never handed to an external agent."""


def describe_variable(name: str) -> str | None:
    """The description of ``name``, or ``None`` when maple does not read it."""
    return next((v.description for v in ENVIRONMENT if v.name == name), None)


def render_markdown() -> str:
    """``docs/configuration.md``, generated from :data:`ENVIRONMENT`."""
    lines = [
        "# Configuration",
        "",
        "maple reads these environment variables and nothing else. This page is generated from",
        "`maple_core.environment.ENVIRONMENT` (`make docs`); a test keeps the two equal.",
        "",
        "| Variable | Secret | What it is |",
        "|---|---|---|",
    ]
    for variable in ENVIRONMENT:
        secret = "yes" if variable.secret else "no"
        lines.append(f"| `{variable.name}` | {secret} | {variable.description} |")
    lines += [
        "",
        "Every secret variable is kept out of output, logs and errors, and removed from the",
        "environment of the external agents maple-mcp starts (`MAPLE_AGENTS`).",
        "",
        "An empty value counts as unset, except that an empty `MAPLE_STORE` is refused, as Maple",
        "refuses it. A setting maple cannot use stops the program before it does anything, with",
        "one line on stderr naming the variable and the fix and a non-zero exit (1 for",
        "`maple-mcp` and `maple-stop-hook`, 2 for `maple`), never a traceback.",
        "",
    ]
    return "\n".join(lines)
