"""Reviewers' words read by the harness: Claude Code and Codex as feedback classifiers.

maple implements no model protocol (Decision 042, point 18): each reading is one headless run of
the CLI the developer already signed in to, asked for an answer in a JSON schema. The run is
unattended, so it is given nothing it can run or reach:

- Claude Code: ``claude -p --output-format json --json-schema S`` (Claude enforces S and answers
  under ``structured_output``) with no built-in tools (``--tools ""``), no MCP servers
  (``--strict-mcp-config``), no hooks, plugins, skills or CLAUDE.md (``--safe-mode``), every
  permission prompt denied (``--permission-mode dontAsk --permission-prompts none``), nothing
  saved (``--no-session-persistence``) and maple's own short system prompt.
- Codex: ``codex exec --output-schema F`` (Codex sends F to the model but does not check the
  answer, so maple does) with its shell, exec, image, agent, goal and web tools off, every MCP
  server it lists turned off (``-c mcp_servers.<name>.enabled=false``: an empty table would only
  merge with the configured ones), no hooks, plugins or apps, a read-only sandbox, approvals
  never asked, no rules files and nothing saved (``--ephemeral``).

Both run in an empty folder of their own, in their own process group, with maple's secrets
removed from the environment and ``MAPLE_UNATTENDED`` set, and are killed with everything they
started when the run passes its time bound.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import tempfile
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from maple_adapters.agents.claude_provider import ClaudeProvider
from maple_adapters.agents.codex_provider import CodexProvider
from maple_adapters.agents.keeper import spawn
from maple_adapters.agents.process import scoped_environment
from maple_core.agents import ProviderInfo
from maple_core.feedback import HarnessAnswer
from maple_core.json_types import JsonObject, JsonValue
from maple_core.text import capped, one_line

__all__ = ["CODEX_FEATURES_OFF", "ClaudeClassifier", "CodexClassifier", "DEFAULT_TIMEOUT_S"]

DEFAULT_TIMEOUT_S = 90.0
"""How long one reading may take before the harness is killed and the reading is ``wait``."""

_SYSTEM = (
    "You classify a reviewer's reply to a fix into one outcome. Answer only through the "
    "structured output, as the user's message describes."
)
_UNATTENDED = {"MAPLE_UNATTENDED": "1"}
_KEPT_OUTPUT = 1024 * 1024  # the most of a run's stdout read as its answer

CODEX_FEATURES_OFF = (
    "shell_tool",
    "unified_exec",
    "view_image",
    "multi_agent",
    "goals",
    "hooks",
    "plugins",
    "apps",
)
"""Codex features turned off for a reading: every tool it could otherwise run or start."""


@dataclass(frozen=True, slots=True)
class _Ran:
    code: int
    stdout: str
    stderr: str


def _run(
    argv: Sequence[str], prompt: str, cwd: str, env: Mapping[str, str], bound: float
) -> _Ran | None:
    """``argv`` with ``prompt`` on stdin, contained; ``None`` when it ran past ``bound`` seconds.

    The child runs in a new session through the agents' keeper (it dies with this process too);
    past the bound its whole process group is killed.
    """
    process = spawn(argv, cwd, env)
    try:
        out, err = process.communicate(prompt.encode(), timeout=bound)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.communicate(timeout=5)
        return None
    return _Ran(process.returncode, _decoded(out), _decoded(err))


def _decoded(data: bytes) -> str:
    return data[:_KEPT_OUTPUT].decode("utf-8", "replace")


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return capped(one_line(lines[-1]), 200) if lines else "nothing on stderr"


class _Harness:
    """What both classifiers share: the binary, its environment, the model and the bound.

    ``hidden`` names the variables the harness never sees (maple's secrets). It has no default,
    so no caller can forget it: the bootstrap passes the configuration's secret list.
    """

    def __init__(
        self,
        binary: str,
        env: Mapping[str, str] | None = None,
        *,
        model: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        hidden: Collection[str],
    ) -> None:
        self.binary = binary
        self.env = {**dict(env or {}), **_UNATTENDED}
        self.model = model
        self.timeout_s = timeout_s
        self.hidden = frozenset(hidden)

    def _ask(self, argv: Sequence[str], prompt: str, cwd: str) -> _Ran | HarnessAnswer:
        try:
            ran = _run(argv, prompt, cwd, scoped_environment(self.env, self.hidden), self.timeout_s)
        except OSError as exc:
            return HarnessAnswer(failure=f"{self.binary} could not start ({exc.strerror or exc})")
        if ran is None:
            return HarnessAnswer(failure=f"no answer within {self.timeout_s:g} s; it was stopped")
        return ran


class ClaudeClassifier(_Harness):
    """Claude Code, ``claude -p`` with an enforced JSON schema (see the module docstring)."""

    @property
    def name(self) -> str:
        """``claude``."""
        return "claude"

    def detect(self) -> ProviderInfo:
        """``claude --version`` and ``claude auth status --json``, as the agent provider asks."""
        return ClaudeProvider(self.binary, self.env, hidden=self.hidden).detect()

    def argv(self, schema: JsonObject) -> list[str]:
        """The command line of one reading."""
        argv = [
            self.binary,
            "-p",
            "--output-format",
            "json",
            "--json-schema",
            json.dumps(schema),
            "--tools",
            "",
            "--strict-mcp-config",
            "--safe-mode",
            "--permission-mode",
            "dontAsk",
            "--permission-prompts",
            "none",
            "--no-session-persistence",
            "--disable-slash-commands",
            "--system-prompt",
            _SYSTEM,
        ]
        return argv + (["--model", self.model] if self.model else [])

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        """One reading; Claude's ``structured_output``, or why there is none."""
        with tempfile.TemporaryDirectory(prefix="maple-classify-") as work:
            ran = self._ask(self.argv(schema), prompt, work)
        if isinstance(ran, HarnessAnswer):
            return ran
        result = _json_object(ran.stdout)
        if result is None:
            return HarnessAnswer(
                failure=f"Claude Code printed no result (exit {ran.code}: {_last_line(ran.stderr)})"
            )
        usage = result.get("modelUsage")
        model = next(iter(usage), None) if isinstance(usage, dict) and usage else None
        if result.get("is_error") is True:
            if result.get("subtype") == "error_max_structured_output_retries":
                return HarnessAnswer(model=model)  # answers outside the schema: ask again
            said = result.get("result")
            why = (
                capped(one_line(said), 200) if isinstance(said, str) else str(result.get("subtype"))
            )
            return HarnessAnswer(model=model, failure=f"Claude Code failed: {why}")
        return HarnessAnswer(structured=result.get("structured_output"), model=model)


def _json_object(text: str) -> dict[str, JsonValue] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a bare TOML key: one a -c path can name
_MODEL_LINE = re.compile(r"^model: (\S{1,120})\s*$", re.MULTILINE)


class CodexClassifier(_Harness):
    """Codex, ``codex exec`` with an output schema it sends but does not check (maple does)."""

    @property
    def name(self) -> str:
        """``codex``."""
        return "codex"

    def _codex(self) -> CodexProvider:
        return CodexProvider(self.binary, self.env, hidden=self.hidden)

    def detect(self) -> ProviderInfo:
        """``codex --version``, ``codex login status``, and whether this Codex knows the features.

        The features maple turns off for a reading must be ones this Codex knows (an unknown one
        fails the run): ``details["unsupported"]`` names any it does not.
        """
        info = self._codex().detect()
        if not info.installed:
            return info
        listed = self._codex().run_quietly("features", "list")
        known = {
            line.split()[0]
            for line in (listed.stdout if listed else "").splitlines()
            if line.strip()
        }
        unsupported = [f for f in CODEX_FEATURES_OFF if f not in known]
        if unsupported:
            info.details["unsupported"] = ", ".join(unsupported)
        return info

    def servers_off(self, cwd: str) -> list[str] | HarnessAnswer:
        """The ``-c`` overrides turning off every MCP server Codex would start, or why not.

        A reading never runs with a server it could not turn off: a list Codex cannot give, or
        a server whose name no override can reach, is a failure naming the fix.
        """
        servers = self._codex().mcp_servers(cwd)
        if servers is None:
            return HarnessAnswer(
                failure="`codex mcp list --json` did not list Codex's MCP servers, so maple "
                "cannot turn them off for a reading; upgrade Codex (0.163 or later)"
            )
        overrides: list[str] = []
        for server in servers:
            name = str(server.get("name")) if isinstance(server, dict) else ""
            if not _SERVER_NAME.fullmatch(name):
                return HarnessAnswer(
                    failure=f"Codex's MCP server {name[:60]!r} has a name maple cannot turn off "
                    "for a reading; rename it with letters, digits, '-' and '_' only"
                )
            overrides += ["-c", f"mcp_servers.{name}.enabled=false"]
        return overrides

    def argv(
        self, schema_file: str, answer_file: str, cwd: str, off: Sequence[str] = ()
    ) -> list[str]:
        """The command line of one reading, with ``off`` (:meth:`servers_off`)."""
        argv = [
            self.binary,
            "exec",
            "--output-schema",
            schema_file,
            "--output-last-message",
            answer_file,
            "--skip-git-repo-check",
            "--ephemeral",
            "--ignore-rules",
            "--color",
            "never",
            "--sandbox",
            "read-only",
            "--cd",
            cwd,
            "-c",
            'approval_policy="never"',
            "-c",
            'web_search="disabled"',
            *off,
        ]
        for feature in CODEX_FEATURES_OFF:
            argv += ["--disable", feature]
        return argv + (["--model", self.model] if self.model else []) + ["-"]

    def classify(self, prompt: str, schema: JsonObject) -> HarnessAnswer:
        """One reading; the JSON of Codex's last message (unchecked), or why there is none."""
        with tempfile.TemporaryDirectory(prefix="maple-classify-") as work:
            folder = Path(work)
            (folder / "here").mkdir()
            schema_file, answer_file = folder / "schema.json", folder / "answer.txt"
            schema_file.write_text(json.dumps(schema), encoding="utf-8")
            here = str(folder / "here")
            off = self.servers_off(here)
            if isinstance(off, HarnessAnswer):
                return off
            ran = self._ask(self.argv(str(schema_file), str(answer_file), here, off), prompt, work)
            said = (
                answer_file.read_text("utf-8", "replace")[:_KEPT_OUTPUT]
                if answer_file.exists()
                else None
            )
        if isinstance(ran, HarnessAnswer):
            return ran
        found = _MODEL_LINE.search(ran.stderr)
        model = found.group(1) if found else self.model
        if ran.code != 0 or said is None:
            return HarnessAnswer(
                model=model, failure=f"Codex failed (exit {ran.code}: {_last_line(ran.stderr)})"
            )
        try:
            return HarnessAnswer(structured=json.loads(said), model=model)
        except ValueError:
            return HarnessAnswer(model=model)  # not JSON: an answer outside the schema
