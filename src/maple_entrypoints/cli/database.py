"""``maple db upgrade`` and ``maple tokens``: the sql store's schema, and agents' access tokens."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from maple_core.cursor import format_stamp, parse_stamp
from maple_core.text import one_line
from maple_core.tokens import AccessToken, TokenScope, parse_lifetime
from maple_entrypoints.bootstrap.local import system_clock
from maple_entrypoints.cli.common import JsonOption, print_json

__all__ = ["db_app", "tokens_app"]

db_app = typer.Typer(
    help="The sql store's database (MAPLE_DATABASE_URL).",
    no_args_is_help=True,
    epilog="Example: MAPLE_DATABASE_URL=postgresql://maple@db/maple maple db upgrade",
)
tokens_app = typer.Typer(
    help="Access tokens for agents that reach a deployed route (kept in MAPLE_DATABASE_URL).",
    no_args_is_help=True,
    epilog="Example: maple tokens create --scope read --expires 90d --label 'codex cloud'",
)


def _database_url() -> str | None:
    from maple_entrypoints.settings import load_settings

    url = load_settings().MAPLE_DATABASE_URL
    return url.get_secret_value() if url is not None else None


@db_app.command("upgrade", epilog="Example: maple db upgrade")
def upgrade() -> None:
    """Bring the database's schema to this maple's revision (safe to run again, or at once)."""
    from maple_entrypoints.bootstrap.sql import database_for, upgrade_database

    url = _database_url()
    done = upgrade_database(url)
    where = database_for(url).shown
    if done.changed:
        print(f"Migrated {where} from {done.before or 'an empty schema'} to {done.after}.")
    else:
        print(f"{where} is at revision {done.after} already; nothing to do.")


def _repository(given: str | None) -> str:
    if given is not None:
        return given
    from maple_entrypoints.settings import load_settings

    return load_settings().repository


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
    from maple_entrypoints.bootstrap.sql import token_store

    lifetime = parse_lifetime(expires)
    clock = system_clock()
    tokens = token_store(_database_url(), clock)
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
    return "expired" if expires is None or expires <= system_clock().now() else "active"


@tokens_app.command("list", epilog="Example: maple tokens list --json")
def list_tokens(
    repository: RepositoryOption = None,
    every: Annotated[bool, typer.Option("--all", help="Every repository's tokens.")] = False,
    as_json: JsonOption = False,
) -> None:
    """List the tokens issued (never their secrets): active, expired and revoked ones."""
    from maple_entrypoints.bootstrap.sql import token_store

    tokens = token_store(_database_url(), system_clock()).tokens(
        None if every else _repository(repository)
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
    from maple_entrypoints.bootstrap.sql import token_store

    token = token_store(_database_url(), system_clock()).revoke(token_id)
    when = token.revoked_at or format_stamp(system_clock().now())
    print(f"Revoked {token.id} ({token.scope.value}, {token.repository}) at {when}.")
