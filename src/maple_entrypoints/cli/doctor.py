"""``maple doctor``: what is set up, what is broken, and the fix for each."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import typer

from maple_entrypoints.cli.common import EXIT_ERROR, BranchOption, JsonOption, local_here
from maple_entrypoints.cli.doctor_clients import registration_findings
from maple_entrypoints.cli.doctor_store import config_findings, reading_finding, store_findings
from maple_entrypoints.cli.findings import Finding

__all__ = ["doctor", "examine"]


def examine(cwd: Path, branch: str | None) -> list[Finding]:
    """Every check, in order; a broken configuration skips the checks that need it."""
    findings: list[Finding] = []
    config = config_findings(findings)
    findings.append(reading_finding())
    if branch is None:
        branch = local_here(cwd).checkout.branch
    if config is not None:
        store_findings(config, cwd, branch, findings)
    registration_findings(cwd, findings)
    return findings


_MARKS: dict[bool | None, str] = {True: "ok  ", False: "FAIL", None: "--  "}


def doctor(branch: BranchOption = None, as_json: JsonOption = False) -> None:
    """Check the configuration, the store, GitHub access, the harness and the registrations.

    The harness is the one that reads reviewers' replies (``MAPLE_CLASSIFIER``). Each
    problem is printed with its fix; exit 1 when something is broken (a missing registration
    is reported, not counted as broken).
    """
    findings = examine(Path.cwd(), branch)
    if as_json:
        print(json.dumps([asdict(f) for f in findings], indent=2))
    else:
        for f in findings:
            print(f"{_MARKS[f.ok]} {f.check}: {f.detail}")
            if f.fix and f.ok is not True:
                print(f"     fix: {f.fix}")
    if any(f.ok is False for f in findings):
        raise typer.Exit(EXIT_ERROR)
