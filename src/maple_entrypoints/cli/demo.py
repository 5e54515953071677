"""``maple demo``: the whole loop on the local file store, in a scratch git repository.

A reviewer comments through the solo bridge; an agent (an MCP client of the real ``maple-mcp``)
drains the comments, is held by the real Stop hook, commits a fix for each and resolves it with
that commit; the gate goes from blocked to clear and the hook lets the agent stop.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from maple_entrypoints.cli.common import EXIT_ERROR, fail
from maple_entrypoints.configuration import MAPLE_STORE

__all__ = ["demo"]

PREVIEW = "https://feat-checkout.preview.example/checkout"
BRANCH = "feat/checkout-flow"
REVIEW = (
    ("The Pay button overlaps the total at 375px.", "button.pay", "padding-bottom: 72px;"),
    ("Use the brand green for the success banner.", ".banner-success", "color: #1f8a4c;"),
)
_BIN = Path(sys.executable).parent


class DemoError(Exception):
    """A step of the demo did not do what it should."""


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAPLE_", "GITHUB_"))}
    return {**env, MAPLE_STORE.name: "file", **extra}


def _git(repo: Path, *args: str) -> str:
    identity = ["-c", "user.name=maple demo", "-c", "user.email=demo@maple.invalid"]
    done = subprocess.run(
        ["git", *identity, *args], cwd=repo, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise DemoError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def _say(step: str, detail: str = "") -> None:
    print(f"\n== {step}")
    if detail:
        print(detail)
    sys.stdout.flush()


def _stop_hook(repo: Path, session: str, active: bool, temp: Path) -> dict[str, Any]:
    payload = {
        "session_id": session,
        "transcript_path": str(temp / "transcript.jsonl"),
        "cwd": str(repo),
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }
    done = subprocess.run(
        [str(_BIN / "maple-stop-hook")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=_clean_env(TMPDIR=str(temp)),
        timeout=30,
        check=False,
    )
    if done.returncode != 0:
        raise DemoError(f"the Stop hook failed: {done.stderr.strip()}")
    answer = json.loads(done.stdout or "{}")
    return answer if isinstance(answer, dict) else {}


def _gate(repo: Path) -> str:
    from maple_core.branch_gate import decide_branch_gate
    from maple_entrypoints.cli.common import local_here

    verdict = decide_branch_gate(local_here(repo).store, BRANCH, None)
    return f"{verdict.conclusion.value} ({verdict.reason.value}): {verdict.title}"


def _structured(result: Any) -> Any:
    if result.is_error:
        raise DemoError(f"a tool call failed: {result.content[0].text}")
    data = result.structured_content or {}
    data = {k: v for k, v in data.items() if k != "notice"}
    return data["result"] if set(data) == {"result"} else data


async def _agent(repo: Path, temp: Path, env: Mapping[str, str]) -> None:
    import anyio
    import httpx2 as httpx
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    from maple_entrypoints.solo_pairing import pairing_of

    params = StdioServerParameters(command=str(_BIN / "maple-mcp"), cwd=repo, env=dict(env))
    async with Client(params) as agent:
        started = _structured(await agent.call_tool("start_solo", {"previewUrl": PREVIEW}))
        token, bridge = pairing_of(started["link"]) or ("", "")
        _say(
            "The agent starts a solo bridge (start_solo) and hands the reviewer a link",
            f"   {started['link'][:96]}…\n   bridge {bridge}, paired with "
            "https://feat-checkout.preview.example only",
        )
        _say("The reviewer leaves two comments in the preview (POST through the bridge)")
        with httpx.Client(base_url=bridge, timeout=10) as browser:
            for body, selector, _ in REVIEW:
                answer = browser.post(
                    "/api/maple/comments",
                    json={
                        "branch": BRANCH,
                        "body": body,
                        "anchor": {"selector": selector},
                        "context": {"url": PREVIEW, "viewportWidth": 375, "viewportHeight": 812},
                    },
                    headers={
                        "origin": "https://feat-checkout.preview.example",
                        "x-maple-solo": token,
                    },
                )
                if answer.status_code != 201:
                    raise DemoError(f"the bridge answered {answer.status_code}: {answer.text}")
                print(f"   {answer.json()['id']}  {body}")
            stranger = browser.post(
                "/api/maple/comments",
                json={"branch": BRANCH, "body": "spam", "anchor": {}},
                headers={"origin": "https://evil.example", "x-maple-solo": token},
            )
            if stranger.status_code != 403:
                raise DemoError(f"the bridge let another origin in ({stranger.status_code})")
            print(f"   (a page from another origin is refused: {stranger.status_code})")
        waited = _structured(await agent.call_tool("wait_for_comments", {"branch": BRANCH}))
        comments = sorted(waited["comments"], key=lambda c: c["createdAt"])
        _say(
            "The agent drains them with wait_for_comments",
            "\n".join(f"   {c['id']}  {c['body']}" for c in comments),
        )
        _say("The merge gate (decide_gate over .maple/)", f"   {_gate(repo)}")
        session = "demo-" + secrets.token_hex(4)
        held = await anyio.to_thread.run_sync(_stop_hook, repo, session, False, temp)
        if held.get("decision") != "block":
            raise DemoError(f"the Stop hook should have held the agent; it answered {held}")
        _say(
            "The agent tries to stop; the Stop hook holds it",
            "   " + str(held.get("reason", "")).replace("\n", "\n   "),
        )
        _say("The agent fixes each comment, commits, and resolves it with that commit")
        css = repo / "checkout.css"
        for comment, (_, selector, rule) in zip(comments, REVIEW, strict=True):
            with css.open("a", encoding="utf-8") as sheet:
                sheet.write(f"{selector} {{ {rule} }}\n")
            _git(repo, "commit", "-q", "-am", f"Fix: {comment['body']}")
            sha = _git(repo, "rev-parse", "HEAD")
            resolved = _structured(
                await agent.call_tool(
                    "resolve_comment",
                    {"id": comment["id"], "sha": sha, "note": f"Added `{rule}` to {selector}."},
                )
            )
            print(f"   {resolved['id']} resolved at {sha[:7]}")
        _say("The merge gate", f"   {_gate(repo)}")
        released = await anyio.to_thread.run_sync(_stop_hook, repo, session, True, temp)
        if released.get("decision") == "block":
            raise DemoError(f"the Stop hook should have let the agent stop; it answered {released}")
        _say("The agent stops again; nothing is open, so the Stop hook lets it", "   (no block)")


def demo(
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the scratch repository and print where it is.")
    ] = False,
) -> None:
    """Run the whole loop on the local file store in a scratch git repository (about 5 s).

    A reviewer comments through the solo bridge, the agent (a scripted MCP client of the real
    maple-mcp) drains the comments, is held by the real Stop hook, commits a fix for each,
    resolves it with that commit, and stops; the gate goes from blocked to clear.
    """
    import anyio

    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="maple-demo-"))
    repo, temp = scratch / "shop", scratch / "tmp"
    repo.mkdir()
    temp.mkdir()
    try:
        _git(repo, "init", "-q", "-b", BRANCH)
        (repo / "checkout.css").write_text("button.pay { margin: 0; }\n", encoding="utf-8")
        _git(repo, "add", "checkout.css")
        _git(repo, "commit", "-q", "-m", "Checkout page")
        _say("A scratch repository", f"   {repo} on {BRANCH}; comments go to .maple/ there")
        anyio.run(_agent, repo, temp, _clean_env(TMPDIR=str(temp)))
    except DemoError as exc:
        raise fail(f"the demo stopped: {exc}", EXIT_ERROR) from None
    finally:
        if not keep:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
    where = f" The repository is kept at {repo}." if keep else ""
    _say(f"Done in {time.monotonic() - started:.1f} s.{where}")
