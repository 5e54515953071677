"""Every environment variable maple reads, declared once in one table.

The typed settings (``maple_entrypoints.settings``), the Stop hook's light reader
(``maple_entrypoints.hook_settings``), the secret scrubber's list and ``docs/configuration.md``
(``make docs``) are all derived from :data:`ENVIRONMENT`. The Stop hook imports this module, so
its values are :class:`~maple_core.frozen.Frozen` rather than dataclasses (docs/stop-hook.md).
"""

from __future__ import annotations

from maple_core.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "ENVIRONMENT",
    "EnvironmentVariable",
    "SECRET_VARIABLES",
    "VARIABLES",
    "describe_variable",
    "read_variable",
    "render_markdown",
    "temp_folder",
]


class EnvironmentVariable(Frozen):
    """One variable: name, type, default, whether it is a secret, and what it is.

    ``description`` is one sentence; ``type`` is what the value must be, in the docs' words
    (say ``URL`` or ``number``). An empty value reads as unset (so as ``default``) unless
    ``empty_is_unset`` is false. A ``per_session`` variable names who a session is (each
    session its own value), never how maple behaves, so nothing is keyed on it.
    """

    __slots__ = (
        "default",
        "description",
        "empty_is_unset",
        "name",
        "per_session",
        "secret",
        "type",
    )
    name: str
    type: str
    default: str | None
    secret: bool
    description: str
    empty_is_unset: bool
    per_session: bool

    def __init__(
        self,
        name: str,
        type: str,
        description: str,
        *,
        default: str | None = None,
        secret: bool = False,
        empty_is_unset: bool = True,
        per_session: bool = False,
    ) -> None:
        self._set(
            default=default,
            description=description,
            empty_is_unset=empty_is_unset,
            name=name,
            per_session=per_session,
            secret=secret,
            type=type,
        )


_ACTIONS = "Set by GitHub Actions: "

ENVIRONMENT: tuple[EnvironmentVariable, ...] = (
    EnvironmentVariable(
        "MAPLE_STORE",
        "file, github, route or sql",
        "Where comments live: file (the .maple/ folder at the main checkout), github (the pull "
        "request's ledger comment), route (a deployed Maple route) or sql (the database "
        "MAPLE_DATABASE_URL names); unset means github when GITHUB_TOKEN, MAPLE_GITHUB_OWNER or "
        "MAPLE_GITHUB_REPO is set, else file.",
        empty_is_unset=False,
    ),
    EnvironmentVariable(
        "MAPLE_DATABASE_URL",
        "URL",
        "The sql store's database: postgresql://user:password@host/name for a team, or "
        "sqlite:///path/to/maple.db for one machine; its comments are those of the repository "
        "MAPLE_GITHUB_OWNER/MAPLE_GITHUB_REPO names (default when unset). Needs "
        "pip install 'maple-review[sql]'.",
        secret=True,
    ),
    EnvironmentVariable(
        "GITHUB_TOKEN",
        "token",
        "Token that can read and write the pull-request comments Maple keeps its ledger in; "
        "also sent to MAPLE_URL.",
        secret=True,
    ),
    EnvironmentVariable("MAPLE_GITHUB_OWNER", "text", "The repository's owner."),
    EnvironmentVariable("MAPLE_GITHUB_REPO", "text", "The repository's name."),
    EnvironmentVariable(
        "MAPLE_GITHUB_API", "URL", "GitHub's API root, for GitHub Enterprise Server."
    ),
    EnvironmentVariable(
        "MAPLE_GITHUB_TRANSPORT",
        "auto, api or cli",
        "How to reach GitHub: auto (a GITHUB_TOKEN means api, else a signed-in gh means cli), "
        "api or cli.",
        default="auto",
    ),
    EnvironmentVariable(
        "MAPLE_PR_REVIEW",
        "off, agent or gate",
        "With the github store, how far the pull request's own review (threads, reviews, "
        "conversation) reaches: off (the ledger only), agent (the agent sees and resolves it; "
        "the gate ignores it) or gate (the merge gate also holds on open trusted threads and "
        "requested changes).",
        default="agent",
    ),
    EnvironmentVariable(
        "MAPLE_TRUSTED_BOTS",
        "list",
        "Comma-separated bot logins whose words on a pull request are work (coderabbitai, "
        "copilot-pull-request-reviewer); unset means every GitHub App's bot, empty means none.",
        empty_is_unset=False,
    ),
    EnvironmentVariable(
        "MAPLE_GITHUB_RESERVE",
        "percentage",
        "The share of GitHub's rate limit maple leaves for you: polling pauses at it until the "
        "reset (0% to 90%).",
        default="20%",
    ),
    EnvironmentVariable(
        "MAPLE_BRANCH",
        "text",
        "The branch the Stop hook checks, else the one checked out; the server ignores it.",
    ),
    EnvironmentVariable(
        "MAPLE_URL",
        "URL",
        "The deployed Maple route's mount URL, asked to refresh the merge gate after a resolve.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_TOKEN",
        "token",
        "CI only: the gate App's installation token, to publish the merge gate directly.",
        secret=True,
    ),
    EnvironmentVariable(
        "MAPLE_GATE_APP_ID",
        "number",
        "The gate App's id, so the gate only updates check runs that App created.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_INSTALLATION_ID",
        "number",
        "Route server only: the gate App's installation id on the repository.",
    ),
    EnvironmentVariable(
        "MAPLE_GATE_PRIVATE_KEY",
        "PEM text",
        "Route server only: the gate App's private key (the PEM text, not a path), so the "
        "route mints its own installation tokens to publish the merge gate.",
        secret=True,
    ),
    EnvironmentVariable(
        "MAPLE_REQUIRE_APPROVAL",
        "true or unset",
        "Exactly true to hold the gate until somebody approves the preview (direct publish, "
        "maple gate and the route server).",
    ),
    EnvironmentVariable(
        "MAPLE_REQUIRE_CONFIRMATION",
        "true or unset",
        "Exactly true to hold the gate until a reviewer confirmed every resolution in the "
        "overlay (every path that publishes the gate).",
    ),
    EnvironmentVariable(
        "MAPLE_REVIEW_URL",
        "URL",
        "Route server and maple gate publish: where reviewers look at the preview (an http or "
        "https URL), the merge gate's check-run link; unset means the check run has no link.",
    ),
    EnvironmentVariable(
        "MAPLE_CLASSIFIER",
        "off, claude or codex",
        "How a trusted reviewer's reply on a resolved comment is read into an outcome (approved, "
        "approved-with-comments, changes-requested or wait) that confirms, reopens or leaves it: "
        "off (nothing is read; Confirm and Reopen are the reviewer's buttons), claude (Claude "
        "Code, claude -p with a JSON schema) or codex (codex exec with an output schema), "
        "installed and signed in where the reply arrives (the route, maple review, maple solo).",
        default="off",
    ),
    EnvironmentVariable(
        "MAPLE_CLASSIFIER_MODEL",
        "text",
        "The model MAPLE_CLASSIFIER's harness reads replies with (its --model), such as haiku; "
        "unset means the harness's own default.",
    ),
    EnvironmentVariable(
        "MAPLE_AGENTS",
        "list",
        "Comma-separated external agents maple-mcp offers tools for: codex, claude; unset means "
        "none.",
    ),
    EnvironmentVariable(
        "MAPLE_UNATTENDED",
        "any value",
        "Set when nobody watches the agent's turns (maple watch sets it for the agent it wakes, "
        "its commands and its MCP servers; set it yourself for CI or a scheduled run): "
        "maple-mcp then offers no external-agent tools whatever MAPLE_AGENTS says, and every "
        "agent maple starts there approves nothing; unset means a person watches.",
    ),
    EnvironmentVariable(
        "MAPLE_SESSION",
        "session id",
        "The session maple-mcp claims comments as (1 to 64 letters, digits and . _ : @ -); "
        "maple watch sets it for the agent it wakes, so that agent's claims are the watch's; "
        "unset means each maple-mcp process is a session of its own with a new id.",
        per_session=True,
    ),
    EnvironmentVariable(
        "CLAUDE_CODE_SESSION_ID",
        "text",
        "Set by Claude Code for the MCP servers and hooks it starts: maple-mcp notes it beside "
        "its session on this machine, so the Stop hook of that conversation knows its claims "
        "as its own.",
        per_session=True,
    ),
    EnvironmentVariable(
        "GH_TOKEN",
        "token",
        "gh's own token, read by gh when the cli transport runs it (maple passes it through).",
        secret=True,
    ),
    EnvironmentVariable(
        "GH_ENTERPRISE_TOKEN",
        "token",
        "gh's token for a GitHub Enterprise Server host, read by gh as GH_TOKEN is.",
        secret=True,
    ),
    EnvironmentVariable(
        "GITHUB_ENTERPRISE_TOKEN",
        "token",
        "gh's older name for GH_ENTERPRISE_TOKEN, read by gh as GH_TOKEN is.",
        secret=True,
    ),
    EnvironmentVariable(
        "GITHUB_EVENT_NAME",
        "text",
        _ACTIONS + "the event maple gate publish publishes for, unless --event-name names it.",
    ),
    EnvironmentVariable(
        "GITHUB_EVENT_PATH",
        "path",
        _ACTIONS + "the event's JSON file for maple gate publish, unless --event-path names it.",
    ),
    EnvironmentVariable(
        "GITHUB_REPOSITORY",
        "owner/name",
        _ACTIONS + "the repository maple gate publish writes to when MAPLE_GITHUB_OWNER and "
        "MAPLE_GITHUB_REPO are unset and the event names none.",
    ),
    EnvironmentVariable(
        "GITHUB_API_URL",
        "URL",
        _ACTIONS + "GitHub's API root for maple gate publish when MAPLE_GITHUB_API is unset.",
    ),
    EnvironmentVariable(
        "CODEX_HOME",
        "path",
        "Codex's folder; maple install merges into its config.toml, else into "
        "~/.codex/config.toml.",
    ),
    EnvironmentVariable(
        "CLAUDE_CODE_DISABLE_MCP_TASKS",
        "text",
        "Claude Code's switch that turns MCP tasks off; maple install and maple doctor say that "
        "an idle Claude Code then cannot wake when a reviewer comments.",
    ),
    EnvironmentVariable(
        "VIRTUAL_ENV",
        "path",
        "Set by an activated virtualenv: when it is maple's own, maple install writes the "
        "servers' full paths, since a client started elsewhere would not find their names.",
    ),
    EnvironmentVariable(
        "XDG_CACHE_HOME",
        "path",
        "Where maple-mcp keeps the MCP SDK's recorded handshake answers (under maple/), so it can "
        "answer a client before the SDK has loaded; unset means ~/.cache.",
    ),
    EnvironmentVariable(
        "TMPDIR",
        "path",
        "Where the Stop hook keeps its block counts, shared with Maple's hook, and where this "
        "machine's maple sessions note who they are (then TMP, then TEMP, then /tmp, as Node "
        "looks).",
    ),
    EnvironmentVariable("TMP", "path", "The Stop hook's temporary folder when TMPDIR is unset."),
    EnvironmentVariable(
        "TEMP", "path", "The Stop hook's temporary folder when TMPDIR and TMP are unset."
    ),
)
"""Every variable maple reads (or passes to gh), in the order the docs list them."""

VARIABLES: dict[str, EnvironmentVariable] = {v.name: v for v in ENVIRONMENT}
"""The table by name."""

SECRET_VARIABLES: frozenset[str] = frozenset(v.name for v in ENVIRONMENT if v.secret)
"""The variables that hold credentials: never shown, and never handed to an external agent."""


def read_variable(environ: Mapping[str, str], name: str) -> str | None:
    """``name``'s value in ``environ``, read as the table says.

    An empty value reads as unset, and an unset one as the variable's default.

    Raises:
        KeyError: ``name`` is not in the table, so maple must not read it.
    """
    variable = VARIABLES[name]
    value = environ.get(name)
    if value is None or (value == "" and variable.empty_is_unset):
        return variable.default
    return value


def temp_folder(environ: Mapping[str, str]) -> str:
    """The temporary folder as Node's ``os.tmpdir()`` finds it.

    ``TMPDIR``, then ``TMP``, then ``TEMP``, else ``/tmp``; a trailing slash is dropped.
    """
    temp = (
        read_variable(environ, "TMPDIR")
        or read_variable(environ, "TMP")
        or read_variable(environ, "TEMP")
        or "/tmp"
    )
    return temp.rstrip("/") or "/"


def describe_variable(name: str) -> str | None:
    """The description of ``name``, or ``None`` when maple does not read it."""
    variable = VARIABLES.get(name)
    return None if variable is None else variable.description


def render_markdown() -> str:
    """``docs/configuration.md``, generated from :data:`ENVIRONMENT`."""
    lines = [
        "# Configuration",
        "",
        "maple reads these environment variables and nothing else. This page is generated from",
        "`maple_core.environment.ENVIRONMENT` (`make docs`); a test keeps the two equal.",
        "",
        "| Variable | Type | Default | Secret | What it is |",
        "|---|---|---|---|---|",
    ]
    for v in ENVIRONMENT:
        default = f"`{v.default}`" if v.default is not None else "unset"
        secret = "yes" if v.secret else "no"
        lines.append(f"| `{v.name}` | {v.type} | {default} | {secret} | {v.description} |")
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
