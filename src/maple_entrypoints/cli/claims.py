"""``maple comments claim|release`` (a person's claims) and ``maple agents status`` (sessions).

A person claims as ``<git user.name> (person)`` in a session named after them on this machine
(``cli-<hash>``), so their own claims release without ``--force``; ``--force`` takes a claim
over from an agent, or ends one, as only a person may.
"""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path
from typing import Annotated, Any

import typer

from maple_adapters.system import SystemClock
from maple_core.claiming import claim_comment
from maple_core.claims import (
    DEFAULT_LEASE_S,
    MAX_LEASE_S,
    MIN_LEASE_S,
    Claim,
    Claimant,
    ClaimOutcome,
    ClaimRequest,
    ClaimResult,
    describe_holder,
    live_claim,
)
from maple_core.display import shown_one
from maple_core.json_types import JsonObject
from maple_core.listing import list_all
from maple_core.text import one_line
from maple_entrypoints.cli.common import (
    EXIT_ERROR,
    BranchOption,
    CommentIdArg,
    JsonOption,
    branch_of,
    fail,
    git_author,
    local_here,
    store_here,
)
from maple_entrypoints.cli.output import print_json, warn

__all__ = ["claim", "person", "release", "sessions_status"]

ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="A person's override: take the claim over from the session holding it (claim), or "
        "end that session's claim (release).",
    ),
]


def person(cwd: Path) -> Claimant:
    """The person at this terminal as a claimant: their git name, a session of their own."""
    author = git_author(cwd)
    name = author.get("name") if author is not None else None
    who = name if isinstance(name, str) and name.strip() else "a person"
    seed = f"{who}@{socket.gethostname()}".encode("utf-8", "surrogatepass")
    return Claimant.of(f"{who} (person)", "cli-" + hashlib.sha256(seed).hexdigest()[:12])


def _answer(result: ClaimResult, as_json: bool, doing: str) -> None:
    if as_json:
        print_json({**result.to_json(), "comment": shown_one(result.comment, warn)})
    else:
        holder = result.decision.holder
        said = {
            ClaimOutcome.CLAIMED: "claimed",
            ClaimOutcome.RENEWED: "claimed (renewed)",
            ClaimOutcome.TAKEN_OVER: "taken over",
            ClaimOutcome.RELEASED: "released",
            ClaimOutcome.NOT_HELD: "not claimed by you: nothing to release",
            ClaimOutcome.HELD: "held",
        }[result.outcome]
        line = f"{one_line(result.comment.id)} {said}"
        if holder is not None and result.outcome is not ClaimOutcome.HELD:
            line += f" (from {describe_holder(holder)})"
        print(line)
    if result.outcome is ClaimOutcome.HELD and result.decision.holder is not None:
        raise fail(
            f"{one_line(result.comment.id)} is claimed by {describe_holder(result.decision.holder)}"
            f"; pass --force to {doing} anyway.",
            EXIT_ERROR,
        )


def claim(
    comment_id: CommentIdArg,
    lease: Annotated[
        float,
        typer.Option("--lease", min=MIN_LEASE_S, max=MAX_LEASE_S, help="Seconds the claim lasts."),
    ] = DEFAULT_LEASE_S,
    force: ForceOption = False,
    as_json: JsonOption = False,
) -> None:
    """Claim a comment as yourself, so agents leave it to you (exit 1 when another holds it).

    A claim lapses after --lease seconds; `maple comments release` ends it at once.
    """
    cwd = Path.cwd()
    request = ClaimRequest.claim(person(cwd), lease, force=force)
    _answer(claim_comment(store_here(cwd), comment_id, request), as_json, "take it over")


def release(
    comment_id: CommentIdArg,
    force: ForceOption = False,
    as_json: JsonOption = False,
) -> None:
    """End your claim on a comment (another session's too, with --force): it is everyone's."""
    cwd = Path.cwd()
    request = ClaimRequest.release(person(cwd), force=force)
    _answer(claim_comment(store_here(cwd), comment_id, request), as_json, "end it")


def _local_sessions() -> dict[str, JsonObject]:
    """The session entries of this machine, by session id."""
    registry = local_here(Path.cwd()).sessions
    return {str(e.get("session")): e for e in registry.entries()}


def _where(entry: JsonObject | None) -> str:
    if entry is None:
        return "no entry on this machine: a person, or a session elsewhere"
    kind = one_line(str(entry.get("kind", "session")))[:20]
    state = "running" if entry.get("alive") else "gone (its claims lapse at their expiry)"
    return f"{kind}, pid {entry.get('pid')} on this machine, {state}"


def sessions_status(branch: BranchOption = None, as_json: JsonOption = False) -> None:
    """Every session holding claims on the branch, and this machine's other sessions."""
    cwd = Path.cwd()
    name = branch_of(branch, cwd)
    now = SystemClock().now()
    held: dict[str, list[tuple[str, Claim]]] = {}
    for comment in list_all(store_here(cwd), name, report=warn):
        found = live_claim(comment, now)
        if found is not None:
            held.setdefault(found.session, []).append((comment.id, found))
    local = _local_sessions()
    rows: list[dict[str, Any]] = []
    for session, claims in sorted(held.items()):
        entry = local.get(session)
        rows.append(
            {
                "session": session,
                "agent": claims[0][1].agent,
                "claims": [{"id": i, **c.shown()} for i, c in claims],
                "local": entry,
            }
        )
    idle = [e for s, e in sorted(local.items()) if s not in held and e.get("alive")]
    if as_json:
        print_json({"branch": name, "sessions": rows, "idle": idle})
        return
    if not rows:
        print(f"No session holds a claim on {one_line(name)}.")
    for row in rows:
        ids = ", ".join(one_line(c["id"]) for c in row["claims"])
        until = max(str(c["expires"]) for c in row["claims"])
        print(
            f"{one_line(row['session'])}  {one_line(row['agent'])}  ({_where(row['local'])})  "
            f"{len(row['claims'])} claim(s) until {one_line(until)}: {ids}"
        )
    for entry in idle:
        print(
            f"{one_line(str(entry.get('session')))}  {one_line(str(entry.get('agent')))}  "
            f"({_where(entry)})  no claims"
        )
