"""``maple db upgrade`` and ``maple tokens``: the sql store's schema, and agents' access tokens."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from maple_adapters.system import SystemClock
from maple_core.cursor import format_stamp, parse_stamp
from maple_core.text import one_line
from maple_core.tokens import AccessToken, TokenScope, parse_lifetime
from maple_entrypoints.cli.common import JsonOption, command_group, database_here
from maple_entrypoints.cli.output import print_json
from maple_entrypoints.configuration import Settings
from maple_entrypoints.settings import repository_of

__all__ = ["db_app", "tokens_app"]

db_app = command_group(
    "The sql store's database (MAPLE_DATABASE_URL).",
    epilog="Example: MAPLE_DATABASE_URL=postgresql://maple@db/maple maple db upgrade",
)
tokens_app = command_group(
    "Access tokens for agents that reach a deployed route (kept in MAPLE_DATABASE_URL).",
    epilog="Example: maple tokens create --scope read --expires 90d --label 'codex cloud'",
)


@db_app.command("upgrade", epilog="Example: maple db upgrade")
def upgrade() -> None:
    """Bring the database's schema to this maple's revision (safe to run again, or at once)."""
    database = database_here()
    done = database.upgrade()
    where = database.shown
    if done.changed:
        print(f"Migrated {where} from {done.before or 'an empty schema'} to {done.after}.")
    else:
        print(f"{where} is at revision {done.after} already; nothing to do.")


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
    tokens = database_here().tokens(clock)
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
    tokens = (
        database_here().tokens(SystemClock()).tokens(None if every else _repository(repository))
    )
    if as_json:
        print_json([{**t.to_json(), "state": _state(t)} for t in tokens])
        return
    for t in tokens:
        fields = (t.id, t.repository, t.scope.value, _state(t), t.expires_at, t.label or "")
        print("\t".join(one_line(f) for f in fields))


@tokens_app.command("revoke", epilog="Example: maple tokens revoke tok_3f9a1c2b7d4e")
def revoke(token_id: Annotated[str, typer.Argument(help="The token's id (tok_…).")]) -> None:
    """Stop a token working at once (it stays listed, revoked)."""
    token = database_here().tokens(SystemClock()).revoke(token_id)
    when = token.revoked_at or format_stamp(SystemClock().now())
    print(f"Revoked {token.id} ({token.scope.value}, {token.repository}) at {when}.")
