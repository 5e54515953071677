"""Every environment variable maple reads, declared once: name, type, default, secret, meaning.

Each variable below is a :class:`~maple_entrypoints.variables.Variable` whose
:class:`~maple_entrypoints.variables.Kind` turns its text into a Python value. Everything else
is derived from these declarations: the settings (:class:`Settings`, read as
``settings[MAPLE_STORE]``), the Stop hook's reading (the same object), the secret list
(:data:`SECRETS`) and ``docs/configuration.md`` (:func:`render_markdown`, ``make docs``).

The Stop hook imports this module at every stop of every agent turn, so it holds to the
standard library's cheapest modules (no ``typing``, ``enum`` or ``dataclasses``) and its values
derive from :class:`~maple_core.frozen.Frozen` (docs/stop-hook.md).
"""

from __future__ import annotations

import os

from maple_core.frozen import Frozen
from maple_entrypoints.variables import (
    FLAG,
    NAMES,
    NUMBER,
    PATH,
    TEXT,
    TOKEN,
    URL,
    Kind,
    Secret,
    Variable,
    choice,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TypeVar

    V = TypeVar("V")

__all__ = [
    "CLAUDE_CODE_DISABLE_MCP_TASKS",
    "CLAUDE_CODE_SESSION_ID",
    "CODEX_HOME",
    "ENVIRONMENT",
    "GH_ENTERPRISE_TOKEN",
    "GH_TOKEN",
    "GITHUB_API_URL",
    "GITHUB_ENTERPRISE_TOKEN",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "GITHUB_REPOSITORY",
    "GITHUB_TOKEN",
    "MAPLE_AGENTS",
    "MAPLE_BRANCH",
    "MAPLE_CLASSIFIER",
    "MAPLE_CLASSIFIER_MODEL",
    "MAPLE_DATABASE_URL",
    "MAPLE_GATE_APP_ID",
    "MAPLE_GATE_INSTALLATION_ID",
    "MAPLE_GATE_PRIVATE_KEY",
    "MAPLE_GATE_TOKEN",
    "MAPLE_GITHUB_API",
    "MAPLE_GITHUB_OWNER",
    "MAPLE_GITHUB_REPO",
    "MAPLE_GITHUB_RESERVE",
    "MAPLE_GITHUB_TRANSPORT",
    "MAPLE_PR_REVIEW",
    "MAPLE_REQUIRE_APPROVAL",
    "MAPLE_REQUIRE_CONFIRMATION",
    "MAPLE_REVIEW_URL",
    "MAPLE_SESSION",
    "MAPLE_STORE",
    "MAPLE_TRUSTED_BOTS",
    "MAPLE_UNATTENDED",
    "MAPLE_URL",
    "SECRETS",
    "Settings",
    "TEMP",
    "TMP",
    "TMPDIR",
    "VIRTUAL_ENV",
    "XDG_CACHE_HOME",
    "render_markdown",
]


_ACTIONS = "Set by GitHub Actions: "

MAPLE_STORE = Variable(
    "MAPLE_STORE",
    choice("file", "github", "route", "sql"),
    "Where comments live: file (the .maple/ folder at the main checkout), github (the pull "
    "request's ledger comment), route (a deployed Maple route) or sql (the database "
    "MAPLE_DATABASE_URL names); unset means github when GITHUB_TOKEN, MAPLE_GITHUB_OWNER or "
    "MAPLE_GITHUB_REPO is set, else file.",
    empty_is_unset=False,
    refusal='Unknown {name} {value}; "github" and "file" exist, "route" for a deployed Maple '
    'route and "sql" for a database.',
)
MAPLE_DATABASE_URL = Variable(
    "MAPLE_DATABASE_URL",
    Kind("URL", Secret),
    "The sql store's database: postgresql://user:password@host/name for a team, or "
    "sqlite:///path/to/maple.db for one machine; its comments are those of the repository "
    "MAPLE_GITHUB_OWNER/MAPLE_GITHUB_REPO names (default when unset). Needs "
    "pip install 'maple-review[sql]'.",
    secret=True,
)
GITHUB_TOKEN = Variable(
    "GITHUB_TOKEN",
    TOKEN,
    "Token that can read and write the pull-request comments Maple keeps its ledger in; "
    "also sent to MAPLE_URL.",
    secret=True,
)
MAPLE_GITHUB_OWNER = Variable("MAPLE_GITHUB_OWNER", TEXT, "The repository's owner.")
MAPLE_GITHUB_REPO = Variable("MAPLE_GITHUB_REPO", TEXT, "The repository's name.")
MAPLE_GITHUB_API = Variable(
    "MAPLE_GITHUB_API", URL, "GitHub's API root, for GitHub Enterprise Server."
)
MAPLE_GITHUB_TRANSPORT = Variable(
    "MAPLE_GITHUB_TRANSPORT",
    choice("auto", "api", "cli"),
    "How to reach GitHub: auto (a GITHUB_TOKEN means api, else a signed-in gh means cli), "
    "api or cli.",
    default="auto",
)
MAPLE_PR_REVIEW = Variable(
    "MAPLE_PR_REVIEW",
    choice("off", "agent", "gate"),
    "With the github store, how far the pull request's own review (threads, reviews, "
    "conversation) reaches: off (the ledger only), agent (the agent sees and resolves it; "
    "the gate ignores it) or gate (the merge gate also holds on open trusted threads and "
    "requested changes).",
    default="agent",
)
MAPLE_TRUSTED_BOTS = Variable(
    "MAPLE_TRUSTED_BOTS",
    Kind("list", str),
    "Comma-separated bot logins whose words on a pull request are work (coderabbitai, "
    "copilot-pull-request-reviewer); unset means every GitHub App's bot, empty means none.",
    empty_is_unset=False,
)


def _share(text: str) -> float:
    """A percentage from 0% to 90% (``20%`` or ``20``) as a share of the whole: 0.2."""
    share = float(text.strip().removesuffix("%").strip()) / 100
    if not 0.0 <= share <= 0.9:  # also refuses nan
        raise ValueError(text)
    return share


MAPLE_GITHUB_RESERVE = Variable(
    "MAPLE_GITHUB_RESERVE",
    Kind("percentage", _share),
    "The share of GitHub's rate limit maple leaves for you: polling pauses at it until the "
    "reset (0% to 90%).",
    default="20%",
    refusal="Unknown {name} {value}; it must be a percentage from 0% to 90% of GitHub's rate "
    "limit, such as 20%.",
)
MAPLE_BRANCH = Variable(
    "MAPLE_BRANCH",
    TEXT,
    "The branch the Stop hook checks, else the one checked out; the server ignores it.",
)
MAPLE_URL = Variable(
    "MAPLE_URL",
    URL,
    "The deployed Maple route's mount URL, asked to refresh the merge gate after a resolve.",
)
MAPLE_GATE_TOKEN = Variable(
    "MAPLE_GATE_TOKEN",
    TOKEN,
    "CI only: the gate App's installation token, to publish the merge gate directly.",
    secret=True,
)
MAPLE_GATE_APP_ID = Variable(
    "MAPLE_GATE_APP_ID",
    NUMBER,
    "The gate App's id, so the gate only updates check runs that App created.",
    refusal="{name} must be a number, not {value!r}; it is on the App's settings page.",
)
MAPLE_GATE_INSTALLATION_ID = Variable(
    "MAPLE_GATE_INSTALLATION_ID",
    NUMBER,
    "Route server only: the gate App's installation id on the repository.",
    refusal="{name} must be a number, not {value!r}; it is in the App installation's settings URL.",
)
MAPLE_GATE_PRIVATE_KEY = Variable(
    "MAPLE_GATE_PRIVATE_KEY",
    Kind("PEM text", Secret),
    "Route server only: the gate App's private key (the PEM text, not a path), so the "
    "route mints its own installation tokens to publish the merge gate.",
    secret=True,
)
MAPLE_REQUIRE_APPROVAL = Variable(
    "MAPLE_REQUIRE_APPROVAL",
    FLAG,
    "Exactly true to hold the gate until somebody approves the preview (direct publish, "
    "maple gate and the route server).",
)
MAPLE_REQUIRE_CONFIRMATION = Variable(
    "MAPLE_REQUIRE_CONFIRMATION",
    FLAG,
    "Exactly true to hold the gate until a reviewer confirmed every resolution in the "
    "overlay (every path that publishes the gate).",
)
MAPLE_REVIEW_URL = Variable(
    "MAPLE_REVIEW_URL",
    URL,
    "Route server and maple gate publish: where reviewers look at the preview (an http or "
    "https URL), the merge gate's check-run link; unset means the check run has no link.",
)
MAPLE_CLASSIFIER = Variable(
    "MAPLE_CLASSIFIER",
    choice("off", "claude", "codex"),
    "How a trusted reviewer's reply on a resolved comment is read into an outcome (approved, "
    "approved-with-comments, changes-requested or wait) that confirms, reopens or leaves it: "
    "off (nothing is read; Confirm and Reopen are the reviewer's buttons), claude (Claude "
    "Code, claude -p with a JSON schema) or codex (codex exec with an output schema), "
    "installed and signed in where the reply arrives (the route, maple review, maple solo).",
    default="off",
)
MAPLE_CLASSIFIER_MODEL = Variable(
    "MAPLE_CLASSIFIER_MODEL",
    TEXT,
    "The model MAPLE_CLASSIFIER's harness reads replies with (its --model), such as haiku; "
    "unset means the harness's own default.",
)
MAPLE_AGENTS = Variable(
    "MAPLE_AGENTS",
    NAMES,
    "Comma-separated external agents maple-mcp offers tools for: codex, claude; unset means none.",
)
MAPLE_UNATTENDED = Variable(
    "MAPLE_UNATTENDED",
    Kind("any value", str),
    "Set when nobody watches the agent's turns (maple watch sets it for the agent it wakes, "
    "its commands and its MCP servers; set it yourself for CI or a scheduled run): "
    "maple-mcp then offers no external-agent tools whatever MAPLE_AGENTS says, and every "
    "agent maple starts there approves nothing; unset means a person watches.",
)
MAPLE_SESSION = Variable(
    "MAPLE_SESSION",
    Kind("session id", str),
    "The session maple-mcp claims comments as (1 to 64 letters, digits and . _ : @ -); "
    "maple watch sets it for the agent it wakes, so that agent's claims are the watch's; "
    "unset means each maple-mcp process is a session of its own with a new id.",
    per_session=True,
)
CLAUDE_CODE_SESSION_ID = Variable(
    "CLAUDE_CODE_SESSION_ID",
    TEXT,
    "Set by Claude Code for the MCP servers and hooks it starts: maple-mcp notes it beside "
    "its session on this machine, so the Stop hook of that conversation knows its claims "
    "as its own.",
    per_session=True,
)
GH_TOKEN = Variable(
    "GH_TOKEN",
    TOKEN,
    "gh's own token, read by gh when the cli transport runs it (maple passes it through).",
    secret=True,
)
GH_ENTERPRISE_TOKEN = Variable(
    "GH_ENTERPRISE_TOKEN",
    TOKEN,
    "gh's token for a GitHub Enterprise Server host, read by gh as GH_TOKEN is.",
    secret=True,
)
GITHUB_ENTERPRISE_TOKEN = Variable(
    "GITHUB_ENTERPRISE_TOKEN",
    TOKEN,
    "gh's older name for GH_ENTERPRISE_TOKEN, read by gh as GH_TOKEN is.",
    secret=True,
)
GITHUB_EVENT_NAME = Variable(
    "GITHUB_EVENT_NAME",
    TEXT,
    _ACTIONS + "the event maple gate publish publishes for, unless --event-name names it.",
)
GITHUB_EVENT_PATH = Variable(
    "GITHUB_EVENT_PATH",
    PATH,
    _ACTIONS + "the event's JSON file for maple gate publish, unless --event-path names it.",
)
GITHUB_REPOSITORY = Variable(
    "GITHUB_REPOSITORY",
    Kind("owner/name", str),
    _ACTIONS + "the repository maple gate publish writes to when MAPLE_GITHUB_OWNER and "
    "MAPLE_GITHUB_REPO are unset and the event names none.",
)
GITHUB_API_URL = Variable(
    "GITHUB_API_URL",
    URL,
    _ACTIONS + "GitHub's API root for maple gate publish when MAPLE_GITHUB_API is unset.",
)
CODEX_HOME = Variable(
    "CODEX_HOME",
    PATH,
    "Codex's folder; maple install merges into its config.toml, else into ~/.codex/config.toml.",
)
CLAUDE_CODE_DISABLE_MCP_TASKS = Variable(
    "CLAUDE_CODE_DISABLE_MCP_TASKS",
    TEXT,
    "Claude Code's switch that turns MCP tasks off; maple install and maple doctor say that "
    "an idle Claude Code then cannot wake when a reviewer comments.",
)
VIRTUAL_ENV = Variable(
    "VIRTUAL_ENV",
    PATH,
    "Set by an activated virtualenv: when it is maple's own, maple install writes the "
    "servers' full paths, since a client started elsewhere would not find their names.",
)
XDG_CACHE_HOME = Variable(
    "XDG_CACHE_HOME",
    PATH,
    "Where maple-mcp keeps the MCP SDK's recorded handshake answers (under maple/), so it can "
    "answer a client before the SDK has loaded; unset means ~/.cache.",
)
TMPDIR = Variable(
    "TMPDIR",
    PATH,
    "Where the Stop hook keeps its block counts, shared with Maple's hook, and where this "
    "machine's maple sessions note who they are (then TMP, then TEMP, then /tmp, as Node "
    "looks).",
)
TMP = Variable("TMP", PATH, "The Stop hook's temporary folder when TMPDIR is unset.")
TEMP = Variable("TEMP", PATH, "The Stop hook's temporary folder when TMPDIR and TMP are unset.")

ENVIRONMENT: tuple[Variable[object], ...] = tuple(
    v for v in tuple(globals().values()) if isinstance(v, Variable)
)
"""Every variable maple reads (or passes to gh), in the order they are declared above."""

SECRETS: frozenset[str] = frozenset(v.name for v in ENVIRONMENT if v.secret)
"""The names of the variables that hold credentials: never shown, never given to an agent."""


class Settings(Frozen):
    """The environment (the process's, or a mapping) read through the declarations.

    ``settings[VARIABLE]`` is the variable's value, read when asked (a program reads only the
    variables it uses, so a mistake in another does not stop it), ``None`` when unset.
    """

    __slots__ = ("_environ",)
    _environ: Mapping[str, str]

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._set(_environ=os.environ if environ is None else environ)

    def __getitem__(self, variable: Variable[V]) -> V | None:
        """The variable's value.

        Raises:
            ConfigurationError: its text is not of its kind.
        """
        return variable.read(self._environ)

    def text(self, variable: Variable[object]) -> str | None:
        """The variable's text, unchecked (an empty value as unset)."""
        return variable.text(self._environ)

    def without(self, *variables: Variable[object]) -> Settings:
        """These settings with ``variables`` unset."""
        names = {v.name for v in variables}
        return Settings({k: v for k, v in self._environ.items() if k not in names})

    def secrets(self) -> list[str]:
        """Every secret value set, unchecked, so output can be scrubbed of them."""
        values = (self._environ.get(name) for name in sorted(SECRETS))
        return [v for v in values if v]

    def __repr__(self) -> str:
        return "Settings(...)"  # the values are never shown: some are secrets


def render_markdown() -> str:
    """``docs/configuration.md``, generated from :data:`ENVIRONMENT`."""
    lines = [
        "# Configuration",
        "",
        "maple reads these environment variables and nothing else. This page is generated from",
        "their declarations in `maple_entrypoints/configuration.py` (`make docs`); a test keeps",
        "the two equal.",
        "",
        "| Variable | Type | Default | Secret | What it is |",
        "|---|---|---|---|---|",
    ]
    for v in ENVIRONMENT:
        default = f"`{v.default}`" if v.default is not None else "unset"
        secret = "yes" if v.secret else "no"
        lines.append(f"| `{v.name}` | {v.kind.word} | {default} | {secret} | {v.description} |")
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
