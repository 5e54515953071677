"""``maple agents status``: the sessions holding claims on a branch, and this machine's others.

Each session is shown with what this machine knows of it (its kind and process, whether it is
still running), or said to be a person or a session elsewhere; a session gone leaves its claims
to lapse at their expiry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from maple_adapters.system import SystemClock
from maple_core.claims import (
    Claim,
    live_claim,
)
from maple_core.json_types import JsonObject
from maple_core.listing import list_all
from maple_core.text import one_line
from maple_entrypoints.cli.common import (
    BranchOption,
    JsonOption,
    branch_of,
    local_here,
    store_here,
)
from maple_entrypoints.cli.output import print_json, warn

__all__ = ["sessions_status"]


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
