"""``maple tokens``: access tokens for agents that reach a deployed route, kept in its database.

A token's secret is printed once, when it is issued, and kept nowhere (only its digest); the
list shows every token's state, and a revoked one stops working at once.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from maple_adapters.system import SystemClock
from maple_core.cursor import format_stamp, parse_stamp
from maple_core.ports import Clock
from maple_core.storage_ports import TokenStore
from maple_core.text import one_line
from maple_core.token_access import parse_lifetime
from maple_core.tokens import AccessToken, TokenScope
from maple_entrypoints.cli.common import JsonOption, command_group, local_here
from maple_entrypoints.cli.output import print_json
from maple_entrypoints.configuration import Settings
from maple_entrypoints.settings import repository_of

__all__ = ["tokens_app"]

tokens_app = command_group(
    "Access tokens for agents that reach a deployed route (kept in MAPLE_DATABASE_URL).",
    epilog="Example: maple tokens create --scope read --expires 90d --label 'codex cloud'",
)


def _repository(given: str | None) -> str:
    if given is not None:
        return given
    return repository_of(Settings())


RepositoryOption = Annotated[
    str | None,
    typer.Option(
        "--repository",
        help="owner/name; default: MAPLE_GITHUB_OWNER/MAPLE_GITHUB_REPO, else 'default'.",
    ),
]


@tokens_app.command(
    "create", epilog="Example: maple tokens create --scope write --expires 30d --label ci"
)
def create(
    scope: Annotated[
        TokenScope,
        typer.Option("--scope", help="read: list and wait; write: also resolve, reply, gate."),
    ] = TokenScope.READ,
    expires: Annotated[
        str, typer.Option("--expires", help="Lifetime: 90d, 12h or 30m (at most 366d).")
    ] = "90d",
    label: Annotated[
        str | None, typer.Option("--label", max=200, help="What it is for, for the list.")
    ] = None,
    repository: RepositoryOption = None,
    as_json: JsonOption = False,
) -> None:
    """Issue a token; its secret is printed once, here, and kept nowhere (only its digest)."""
    lifetime = parse_lifetime(expires)
    clock = SystemClock()
    tokens = _tokens(clock)
    issued = tokens.issue(
        _repository(repository), scope, clock.now() + lifetime, one_line(label) if label else None
    )
    token = issued.token
    if as_json:
        print_json({"secret": issued.secret, **token.to_json()})
        return
    print(issued.secret)
    sys.stderr.write(
        f"maple: issued {token.id} ({token.scope.value}, {token.repository}), expiring "
        f"{token.expires_at}. The secret above is shown this once; give it to the agent as "
        "its bearer token.\n"
    )


def _state(token: AccessToken) -> str:
    if token.revoked_at is not None:
        return "revoked"
    expires = parse_stamp(token.expires_at)
    return "expired" if expires is None or expires <= SystemClock().now() else "active"


@tokens_app.command("list", epilog="Example: maple tokens list --json")
def list_tokens(
    repository: RepositoryOption = None,
    every: Annotated[bool, typer.Option("--all", help="Every repository's tokens.")] = False,
    as_json: JsonOption = False,
) -> None:
    """List the tokens issued (never their secrets): active, expired and revoked ones."""
    tokens = _tokens(SystemClock()).tokens(None if every else _repository(repository))
    if as_json:
        print_json([{**t.to_json(), "state": _state(t)} for t in tokens])
        return
    for t in tokens:
        fields = (t.id, t.repository, t.scope.value, _state(t), t.expires_at, t.label or "")
        print("\t".join(one_line(f) for f in fields))


@tokens_app.command("revoke", epilog="Example: maple tokens revoke tok_3f9a1c2b7d4e")
def revoke(token_id: Annotated[str, typer.Argument(help="The token's id (tok_…).")]) -> None:
    """Stop a token working at once (it stays listed, revoked)."""
    token = _tokens(SystemClock()).revoke(token_id)
    when = token.revoked_at or format_stamp(SystemClock().now())
    print(f"Revoked {token.id} ({token.scope.value}, {token.repository}) at {when}.")


def _tokens(clock: Clock) -> TokenStore:
    """The tokens kept in the database ``MAPLE_DATABASE_URL`` names."""
    return local_here(Path.cwd()).database().tokens(clock)
