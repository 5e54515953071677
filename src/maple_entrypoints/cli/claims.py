"""``maple comments claim|release``: a person's claims, beside the agents'.

A person claims as ``<git user.name> (person)`` in a session named after them on this machine
(``cli-<hash>``), so their own claims release without ``--force``; ``--force`` takes a claim
over from an agent, or ends one, as only a person may.
"""

from __future__ import annotations

import hashlib
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from maple_core.claim_views import (
    describe_holder,
)
from maple_core.claiming import claim_comment
from maple_core.claims import (
    DEFAULT_LEASE_S,
    MAX_LEASE_S,
    MIN_LEASE_S,
    Claimant,
    ClaimOutcome,
    ClaimRequest,
)
from maple_core.display import shown_one
from maple_core.text import one_line
from maple_entrypoints.cli.common import (
    EXIT_ERROR,
    CommentIdArg,
    JsonOption,
    fail,
    git_author,
    store_here,
)
from maple_entrypoints.cli.output import print_json, warn

__all__ = ["claim", "person", "release"]

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


def _as_person(
    comment_id: str, request: Callable[[Claimant], ClaimRequest], as_json: bool, doing: str
) -> None:
    """Make the person here's ``request`` on the comment, and say what became of it."""
    cwd = Path.cwd()
    wanted = request(person(cwd))
    result = claim_comment(store_here(cwd), comment_id, wanted)
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
    _as_person(
        comment_id, lambda me: ClaimRequest.claim(me, lease, force=force), as_json, "take it over"
    )


def release(
    comment_id: CommentIdArg,
    force: ForceOption = False,
    as_json: JsonOption = False,
) -> None:
    """End your claim on a comment (another session's too, with --force): it is everyone's."""
    _as_person(comment_id, lambda me: ClaimRequest.release(me, force=force), as_json, "end it")
