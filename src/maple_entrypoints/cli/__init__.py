"""``maple``: the command line for humans. Data goes to stdout, diagnostics to stderr.

Exit codes: 0 success, 1 a store, network or input error, 2 a usage or configuration error,
3 ``maple gate decide`` found the gate blocked.
"""

from __future__ import annotations

import typer

from maple_entrypoints.cli.agents import agents_app
from maple_entrypoints.cli.comments import comments_app
from maple_entrypoints.cli.common import EXIT_BLOCKED, EXIT_CONFIG, EXIT_ERROR, MapleCommands
from maple_entrypoints.cli.database import db_app
from maple_entrypoints.cli.demo import demo
from maple_entrypoints.cli.doctor import doctor
from maple_entrypoints.cli.gate import gate_app
from maple_entrypoints.cli.install import install
from maple_entrypoints.cli.readings import classify  # noqa: F401 - registers maple comments classify
from maple_entrypoints.cli.review import review
from maple_entrypoints.cli.route_serve import route_app
from maple_entrypoints.cli.servers import hook_app, mcp_server, solo
from maple_entrypoints.cli.tokens import tokens_app
from maple_entrypoints.cli.watch import watch

__all__ = ["EXIT_BLOCKED", "EXIT_CONFIG", "EXIT_ERROR", "app", "main"]

app = typer.Typer(
    name="maple",
    cls=MapleCommands,
    help="Review comments for coding agents: read, add and resolve them from the terminal.",
    epilog="Start with `maple demo`; `maple doctor` says what is set up and what is not.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,  # a token in a local must never reach a terminal
)
app.add_typer(comments_app, name="comments")
app.add_typer(gate_app, name="gate")
app.add_typer(route_app, name="route")
app.add_typer(hook_app, name="hook")
app.add_typer(agents_app, name="agents")
app.add_typer(db_app, name="db")
app.add_typer(tokens_app, name="tokens")
app.command("mcp", epilog="Example: claude mcp add maple -- maple mcp")(mcp_server)
app.command("solo", epilog="Example: maple solo https://feat-login.preview.example/ --port 4100")(
    solo
)
app.command("review", epilog="Example: maple review --port 3000")(review)
app.command("doctor", epilog="Example: maple doctor")(doctor)
app.command("install", epilog="Example: maple install claude-code --dry-run")(install)
app.command("demo", epilog="Example: maple demo")(demo)
app.command(
    "watch",
    epilog="Example: maple watch --agent codex --session 0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b",
)(watch)


def main() -> None:
    """Run the ``maple`` command; an unexpected failure is one line on stderr, never a traceback."""
    import sys

    from maple_core.text import scrub
    from maple_entrypoints.configuration import Settings

    try:
        app()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except Exception as exc:
        secrets = Settings().secrets()
        text = scrub(f"{type(exc).__name__}: {exc}", secrets).replace("\n", " ")
        sys.stderr.write(f"maple: unexpected error ({text}); please report it.\n")
        raise SystemExit(EXIT_ERROR) from None
