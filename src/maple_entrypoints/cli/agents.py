"""``maple agents``: hand a task to Codex or Claude Code from the terminal.

``start`` and ``send`` run the agent in the foreground until its turn ends (Ctrl-C stops it);
each records the agent under ``.maple/agents/`` at the main checkout, so ``status`` and
``cancel`` work from another terminal.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Any, cast

import typer

from maple_core.agent_ports import AgentProvider, AgentSession
from maple_core.agents import PROVIDERS, AgentRun, AgentState, render_run
from maple_core.errors import MapleError
from maple_core.text import one_line
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    EXIT_ERROR,
    BranchOption,
    JsonOption,
    command_group,
    fail,
    local_here,
)
from maple_entrypoints.cli.output import print_json, terminal_text
from maple_entrypoints.cli.sessions import sessions_status

__all__ = ["agents_app"]

agents_app = command_group(
    "Hand work to Codex or Claude Code (external agents).",
    epilog='Example: maple agents start codex "Make the card\'s padding match the header."',
)
ProviderArg = Annotated[str, typer.Argument(help="codex or claude.", metavar="PROVIDER")]


def _provider(name: str) -> AgentProvider:
    try:
        return local_here(Path.cwd()).agents.provider(name)
    except MapleError as exc:
        raise fail(str(exc), EXIT_CONFIG) from None


_AGENT_ID = re.compile(r"(codex|claude)-[0-9]{1,10}")


def _record(run: AgentRun, cwd: str) -> None:
    data = {"pid": os.getpid(), "cwd": cwd, "run": run.to_json(), "text": render_run(run)}
    with local_here(Path.cwd()).agents_folder() as folder:
        folder.replace(f"{run.agent_id}.json", json.dumps(data, indent=2).encode())


def _show(run: AgentRun, as_json: bool) -> None:
    if as_json:
        print_json(run.to_json())
    else:
        print(render_run(run))


def _drive(session: AgentSession, cwd: str, as_json: bool) -> None:
    """Follow the turn to its end, answering questions on a terminal; Ctrl-C or SIGTERM stops."""
    stop = {"asked": False}

    def stopped(*_: Any) -> None:
        stop["asked"] = True

    signal.signal(signal.SIGTERM, stopped)
    last: AgentRun | None = None
    try:
        while True:
            run = session.wait(0.2)
            if run != last:
                _record(run, cwd)
                last = run
            if stop["asked"]:
                raise KeyboardInterrupt
            if run.state is AgentState.WAITING and sys.stdin.isatty():
                for question in run.questions:
                    choices = f" [{', '.join(question.options)}]" if question.options else ""
                    sys.stderr.write(f"{question.question}{choices}\n")
                session.send(input("> "))
                continue
            if run.state is not AgentState.RUNNING:
                break
    except KeyboardInterrupt:
        run = session.cancel()
        _record(run, cwd)
        _show(run, as_json)
        raise typer.Exit(130) from None
    finally:
        session.close()
    _show(run, as_json)
    if run.state is AgentState.FAILED:
        raise typer.Exit(EXIT_ERROR)


@agents_app.command("providers", epilog="Example: maple agents providers --json")
def providers(as_json: JsonOption = False) -> None:
    """Installed or not, version, sign-in status, and what to do next, for each provider."""
    infos = [_provider(name).detect() for name in PROVIDERS]
    if as_json:
        print_json({"providers": [i.to_json() for i in infos]})
        return
    for i in infos:
        state = f"installed {i.version}" if i.installed else "not installed"
        signed = {True: "signed in", False: "not signed in", None: "sign-in unknown"}[i.signed_in]
        print(f"{i.provider}: {state}, {signed}. {i.guidance}")


@agents_app.command(
    "start", epilog='Example: maple agents start claude "Review the checkout page." --effort high'
)
def start(
    provider: ProviderArg,
    briefing: Annotated[str, typer.Argument(help="A self-contained briefing.")],
    model: Annotated[str | None, typer.Option("--model", help="Model name.")] = None,
    effort: Annotated[str | None, typer.Option("--effort", help="Reasoning effort.")] = None,
    cwd: Annotated[Path, typer.Option("--cwd", help="Working folder; default: here.")] = Path(),
    as_json: JsonOption = False,
) -> None:
    """Start an agent on a briefing and follow its turn (Ctrl-C stops it)."""
    folder = str(cwd.resolve())
    agent_id = f"{provider}-{os.getpid()}"
    session = _provider(provider).start(agent_id, briefing, folder, model=model, effort=effort)
    _drive(session, folder, as_json)


@agents_app.command(
    "send", epilog='Example: maple agents send codex 0199a1b2-... "Now the mobile layout."'
)
def send(
    provider: ProviderArg,
    thread: Annotated[str, typer.Argument(help="The thread (or session) id to resume.")],
    message: Annotated[str, typer.Argument(help="More instructions.")],
    cwd: Annotated[Path, typer.Option("--cwd", help="Working folder; default: here.")] = Path(),
    as_json: JsonOption = False,
) -> None:
    """Resume an agent's thread in a fresh process with more instructions."""
    folder = str(cwd.resolve())
    agent_id = f"{provider}-{os.getpid()}"
    session = _provider(provider).resume(agent_id, thread, message, folder)
    _drive(session, folder, as_json)


def _recorded(agent_id: str) -> dict[str, Any]:
    """The record ``start`` or ``send`` keeps for ``agent_id``, read without following links."""
    if not _AGENT_ID.fullmatch(agent_id):
        raise fail(
            f"{one_line(agent_id)[:80]!r} is not an agent id; ids look like codex-41237.",
            EXIT_ERROR,
        )
    try:
        folder = local_here(Path.cwd()).recorded_agents()
        if folder is None:
            raise FileNotFoundError(agent_id)
        with folder:
            data = json.loads(folder.read(f"{agent_id}.json"))
            known = sorted(n[:-5] for n in folder.names() if _AGENT_ID.fullmatch(n[:-5]))
    except (OSError, ValueError):
        data, known = None, []
    run = data.get("run") if isinstance(data, dict) else None
    if not isinstance(run, dict) or not isinstance(data.get("text"), str):
        raise fail(
            f"no agent {agent_id} here (agents: {', '.join(known) or 'none'}).", EXIT_ERROR
        ) from None
    return cast(dict[str, Any], data)


@agents_app.command(
    "status", epilog="Example: maple agents status   (one agent: maple agents status codex-41237)"
)
def status(
    agent_id: Annotated[
        str | None,
        typer.Argument(help="An agent's id; omit it to list the sessions.", metavar="[AGENT]"),
    ] = None,
    branch: BranchOption = None,
    as_json: JsonOption = False,
) -> None:
    """The sessions holding claims, or one agent's status.

    Without AGENT: every session holding claims on the branch (maple-mcp's, maple watch's,
    people's) and this machine's other sessions. With AGENT: that agent's status, last message,
    changed files and commands.
    """
    if agent_id is None:
        sessions_status(branch, as_json)
        return
    data = _recorded(agent_id)
    if as_json:
        print_json(data["run"])
    else:
        print(terminal_text(data["text"]))


@agents_app.command("cancel", epilog="Example: maple agents cancel codex-41237")
def cancel(
    agent_id: Annotated[str, typer.Argument(help="The agent's id.", metavar="AGENT")],
) -> None:
    """Stop an agent started by `maple agents start` or `send` in another terminal."""
    data = _recorded(agent_id)
    if data["run"].get("status") not in ("running", "waiting"):
        print(terminal_text(data["text"]))
        return
    pid = int(agent_id.rsplit("-", 1)[1])  # the id names the process that started the agent
    if data.get("pid") != pid or not _runs_maple(pid):
        raise fail(f"{agent_id}'s process is not a maple agent run; nothing to stop.", EXIT_ERROR)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        raise fail(f"{agent_id}'s process is gone; nothing to stop.", EXIT_ERROR) from None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        data = _recorded(agent_id)
        if data["run"]["status"] not in ("running", "waiting"):
            break
        time.sleep(0.1)
    print(terminal_text(data["text"]))


def _runs_maple(pid: int) -> bool:
    """True when ``pid`` is a maple process (where /proc says so; elsewhere, assumed)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return not Path("/proc/self").exists()
    except OSError:
        return False
    return b"maple" in argv
