"""Claimants racing from other processes, for the claim contract.

A store factory in ``conftest.py`` leaves a *recipe* in the test's stash: how another process
opens the same store (the repository's folder, the fake GitHub over a transport, the route's
URL). :class:`Racers` starts claimant processes from it (``python -m
contract_tests.claim_racers``), each ready before any is let go, so their claims truly race; a
store no other process can reach (the in-memory one) races threads instead. The test body is the
same either way.

A claimant process prints ``ready``, waits for ``go`` on stdin, claims, prints the result's
JSON, and then exits (``race``) or waits to be killed (``hold``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from maple_core.claims import Claimant, ClaimRequest
from maple_core.ports import CommentClaims, CommentStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.github.fake_github import Served

__all__ = ["RECIPE", "Holder", "Racers", "gh_recipe", "recipe"]

RECIPE = pytest.StashKey[dict[str, Any]]()
"""Where a store factory leaves how another process opens the same store."""
ROOT = Path(__file__).resolve().parents[1]
_START_S = 120.0


def recipe(kind: str, **fields: Any) -> dict[str, Any]:
    """A recipe for a store another process can open."""
    return {"kind": kind, **fields}


def gh_recipe(served: Served, transport: str, token: str, config_dir: Path) -> dict[str, Any]:
    """A recipe for the GitHub store on the fake GitHub, over ``api`` or the real ``gh``."""
    config_dir.mkdir(parents=True, exist_ok=True)
    return recipe(
        "github",
        transport=transport,
        base_url=served.base_url,
        host=served.host,
        ca_file=served.ca_file,
        token=token,
        config_dir=str(config_dir),
    )


class _FixedClock:
    """A claimant's clock: the test's ``now``, standing still."""

    def __init__(self, now: datetime) -> None:
        self._now = now

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        import time

        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        import time

        time.sleep(seconds)


def open_store(spec: dict[str, Any], now: datetime) -> CommentStore:
    """The store a recipe names, on a clock standing at ``now``."""
    clock = _FixedClock(now)
    kind = spec["kind"]
    if kind == "file":
        from maple_adapters.files.store import FileCommentStore

        return FileCommentStore(clock, Path(spec["repo"]))
    if kind == "route":
        from maple_adapters.route.http import RouteHttp
        from maple_adapters.route.store import RouteCommentStore

        return RouteCommentStore(RouteHttp(spec["url"], spec["token"]))
    if kind == "github":
        from maple_adapters.github.conditional import ConditionalTransport
        from maple_adapters.github.store import GitHubLedgerStore
        from maple_adapters.github.transport import (
            GhCliTransport,
            GitHubTransport,
            PyGithubTransport,
        )
        from maple_adapters.github.wrappers import ResilientTransport

        token = spec["token"]
        inner: GitHubTransport
        if spec["transport"] == "api":
            inner = PyGithubTransport(token, base_url=spec["base_url"], verify=spec["ca_file"])
        else:
            from contract_tests.github_peers import gh_executable

            env = {
                "GH_ENTERPRISE_TOKEN": token,
                "GH_TOKEN": token,
                "SSL_CERT_FILE": spec["ca_file"],
                "GH_CONFIG_DIR": spec["config_dir"],
            }
            inner = GhCliTransport(host=spec["host"], env=env, executable=str(gh_executable()))
        transport = ConditionalTransport(ResilientTransport(inner, secrets=[token]))
        return GitHubLedgerStore(transport, "acme", "web", clock)
    raise ValueError(f"no store kind {kind!r}")


def _request(session: str, lease: float) -> ClaimRequest:
    return ClaimRequest.claim(Claimant.of(f"racer {session}", session), lease)


@dataclass
class Holder:
    """A claimant that claimed and holds on: killed (SIGKILL) or gone, it never releases."""

    result: dict[str, Any]
    process: subprocess.Popen[str] | None = None

    def kill(self) -> None:
        """End the claimant at once, as SIGKILL does: nothing of its claim is released."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(30)
            _close(self.process)


class Racers:
    """Claimants of one store, in other processes (or threads, for a store no process shares)."""

    def __init__(self, store: CommentStore, spec: dict[str, Any] | None) -> None:
        self.store = store
        self.spec = spec

    @property
    def in_processes(self) -> bool:
        """Whether the claimants are other processes (else threads of this one)."""
        return self.spec is not None

    def race(
        self, comment_id: str, sessions: list[str], lease: float, now: datetime
    ) -> list[dict[str, Any]]:
        """Every session claims ``comment_id`` at once; each result's JSON, in session order."""
        if self.spec is None:
            return self._threads(comment_id, sessions, lease)
        with self._processes(comment_id, sessions, lease, now, "race") as started:
            return [self._answer(p) for p in started]

    def hold(self, comment_id: str, session: str, lease: float, now: datetime) -> Holder:
        """One claimant claims ``comment_id`` and holds on until :meth:`Holder.kill`."""
        if self.spec is None:
            [result] = self._threads(comment_id, [session], lease)
            return Holder(result)
        process = self._start(comment_id, session, lease, now, "hold")
        self._ready(process)
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
        return Holder(self._answer(process), process)

    def _threads(self, comment_id: str, sessions: list[str], lease: float) -> list[dict[str, Any]]:
        store = self.store
        assert isinstance(store, CommentClaims)
        gate = threading.Barrier(len(sessions))
        results: list[dict[str, Any]] = [{} for _ in sessions]

        def claim(index: int, session: str) -> None:
            gate.wait(30)
            results[index] = store.claim(comment_id, _request(session, lease)).to_json()

        workers = [threading.Thread(target=claim, args=(i, s)) for i, s in enumerate(sessions)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        return results

    def _start(
        self, comment_id: str, session: str, lease: float, now: datetime, mode: str
    ) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "contract_tests.claim_racers",
                json.dumps(self.spec),
                comment_id,
                session,
                str(lease),
                now.isoformat(),
                mode,
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @staticmethod
    def _ready(process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        line = process.stdout.readline()
        if line.strip() != "ready":
            process.kill()
            _, err = process.communicate(timeout=30)
            raise AssertionError(f"a claimant did not start: {line!r} {err[-2000:]}")

    @staticmethod
    def _answer(process: subprocess.Popen[str]) -> dict[str, Any]:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip():
            process.kill()
            _, err = process.communicate(timeout=30)
            raise AssertionError(f"a claimant answered nothing: {err[-2000:]}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    @contextmanager
    def _processes(
        self, comment_id: str, sessions: list[str], lease: float, now: datetime, mode: str
    ) -> Iterator[list[subprocess.Popen[str]]]:
        started = [self._start(comment_id, s, lease, now, mode) for s in sessions]
        try:
            for process in started:
                self._ready(process)
            for process in started:  # every claimant is waiting: let them go together
                assert process.stdin is not None
                process.stdin.write("go\n")
                process.stdin.flush()
            yield started
        finally:
            for process in started:
                if process.poll() is None:
                    process.kill()
                process.wait(_START_S)
                _close(process)


def _close(process: subprocess.Popen[str]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def _main(argv: list[str]) -> None:
    spec, comment_id, session, lease, now, mode = argv
    store = open_store(json.loads(spec), datetime.fromisoformat(now))
    assert isinstance(store, CommentClaims)
    request = _request(session, float(lease))
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    if sys.stdin.readline().strip() != "go":
        return
    try:
        answer = store.claim(comment_id, request).to_json()
    except Exception as exc:  # the test shows what went wrong
        answer = {"error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    if mode == "hold":
        sys.stdin.readline()  # until killed (or the test closes the pipe)


if __name__ == "__main__":
    _main(sys.argv[1:])
