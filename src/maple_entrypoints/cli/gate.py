"""``maple gate``: decide the merge gate here, or publish it from CI (``gate_publish.py``)."""

from __future__ import annotations

from pathlib import Path

import typer

from maple_core.branch_gate import decide_branch_gate
from maple_core.gate import (
    GateConclusion,
)
from maple_core.ports import Capability
from maple_entrypoints.cli.common import (
    EXIT_BLOCKED,
    BranchOption,
    JsonOption,
    branch_of,
    command_group,
    loop_here,
)
from maple_entrypoints.cli.gate_publish import publish
from maple_entrypoints.cli.output import print_verdict

__all__ = ["gate_app"]

gate_app = command_group(
    "The merge gate (check run maple/visual-review).", epilog="Example: maple gate decide --json"
)


@gate_app.command(
    "decide",
    epilog="Example: maple gate decide -b feat/login || echo 'still open'   (exit 3: blocked)",
)
def decide(branch: BranchOption = None, as_json: JsonOption = False) -> None:
    """Decide the gate for a branch from the configured store, without publishing it.

    Exit codes: 0 clear or neutral, 3 blocked, 1 the store failed, 2 a configuration error.
    """
    cwd = Path.cwd()
    loop = loop_here(cwd)
    store = loop.store
    name = branch_of(branch, cwd)
    sha = store.head(name) if Capability.HEAD in store.capabilities else None
    verdict = decide_branch_gate(store, name, sha, loop.target.rules)
    print_verdict(name, sha, verdict, as_json)
    if verdict.conclusion is GateConclusion.BLOCKED:
        raise typer.Exit(EXIT_BLOCKED)


gate_app.command(
    "publish",
    epilog="Example (in a workflow step): maple gate publish   (docs/workflows/maple-gate.yml)",
)(publish)
