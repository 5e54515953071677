"""``maple-stop-hook``: keep a coding agent working while review comments are open.

Reads the client's Stop payload on stdin and writes one JSON object on stdout: Claude Code and
Codex get ``{"decision": "block", "reason": ...}``, ``{}`` or the give-up ``{"reason": ...}``;
Cursor gets ``{"followup_message": ...}`` or ``{}``. The file-store path imports nothing heavy, so
the hook costs about what a bare interpreter does.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence

from maple_adapters.files.git import find_checkout
from maple_adapters.files.place import resolve_place
from maple_adapters.files.records import blocking_records
from maple_core.errors import ConfigurationError, MapleError
from maple_core.quickjson import dumps_flat
from maple_core.stop import CLAIM_HORIZON_S
from maple_core.stop_budget import CounterUpdate, decide_loop_count_stop, decide_session_stop
from maple_core.stop_claims import split_by_claims
from maple_core.stop_payload import StopPayload, parse_stop_payload
from maple_entrypoints.block_counter import HOOK, BlockCounter, temp_folder
from maple_entrypoints.configuration import (
    MAPLE_BRANCH,
    MAPLE_GATE_TOKEN,
    MAPLE_GITHUB_OWNER,
    MAPLE_GITHUB_REPO,
    MAPLE_STORE,
    MAPLE_URL,
    Settings,
)

__all__ = ["OwnSessions", "main", "open_comments", "run", "sorted_by_claims"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from maple_core.json_types import JsonObject

_BLOCKING = ("open", "needs_reverify")
_USAGE = "usage: maple-stop-hook [--client claude|codex|cursor]"


def _forge_comments(settings: Settings, cwd: str, branch: str | None) -> list[JsonObject]:
    """Maple's forge path: the agent loop's store (§7.2 step 4), heavy imports; never a gate."""
    from maple_core.listing import list_all
    from maple_core.statuses import CommentStatus
    from maple_entrypoints.bootstrap.agent_loop import agent_loop
    from maple_entrypoints.settings import store_kind

    program = "the Stop hook"
    store_kind(settings, program)
    if branch is None:
        raise ConfigurationError(
            f"{MAPLE_BRANCH.name} is not set; the Stop hook cannot tell which pull request to "
            f"check. It is: {MAPLE_BRANCH.description}"
        )
    reading = settings.without(MAPLE_URL, MAPLE_GATE_TOKEN)
    store = agent_loop(_path(cwd), program=program, settings=reading).store
    wanted = (CommentStatus.OPEN, CommentStatus.NEEDS_REVERIFY)
    return [c.to_json() for c in list_all(store, branch, wanted)]


_FORGE_BUDGET_S = 10.0


def _within(seconds: float, read: Callable[[], list[JsonObject]]) -> list[JsonObject]:
    """Run ``read`` on a worker thread; give up after ``seconds`` (the hook never hangs)."""
    import threading

    outcome: list[list[JsonObject] | BaseException] = []

    def work() -> None:
        try:
            outcome.append(read())
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(seconds)
    if not outcome:
        raise TimeoutError(f"The store did not answer within {seconds:.0f} s")
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _path(cwd: str) -> Path:
    from pathlib import Path

    return Path(cwd)


def open_comments(settings: Settings, cwd: str) -> list[JsonObject]:
    """The comments that keep the agent working: ``open`` and ``needs_reverify``, newest first.

    Maple's hook consults the forge when an owner or a repository is set (not a token alone),
    and the database when ``MAPLE_STORE=sql``.
    Without a forge it reads ``.maple/`` only if the ledger already exists (it never creates the
    folder), and nothing when no branch is known, ``MAPLE_STORE`` is ``github``, or the working
    directory is gone.
    """
    branch = settings[MAPLE_BRANCH] or find_checkout(cwd).branch
    store = settings.text(MAPLE_STORE)
    # On a forge (as Maple's hook), or when MAPLE_STORE=sql keeps comments in a database.
    if settings[MAPLE_GITHUB_OWNER] or settings[MAPLE_GITHUB_REPO] or store == "sql":
        return _within(_FORGE_BUDGET_S, lambda: _forge_comments(settings, cwd, branch))
    if branch is None or store == "github" or not os.path.isdir(cwd):
        return []
    # A missing ledger reads as empty (nothing is created); a link in its place is refused.
    return blocking_records(resolve_place(cwd).ledger, branch, _BLOCKING)


def _js_stamp(seconds: float) -> str:
    """``seconds`` since the epoch as JavaScript's ``toISOString`` writes it."""
    whole = int(seconds)
    millis = int((seconds - whole) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{millis:03d}Z"


class OwnSessions:
    """Whether a session holding a claim is the one this hook runs in.

    It is when this machine's entry for it (``maple_adapters.sessions``) names the client's own
    session the payload names (Claude Code's ``session_id``), or, when the two do not both name
    one, names as its client a process this hook runs under (Codex, ``maple watch``). A session
    with no entry here (another machine's, a person's) is never this one.
    """

    def __init__(self, payload_session: str | None, temp_dir: str) -> None:
        self._payload_session = payload_session
        self._temp_dir = temp_dir
        self._above: set[int] | None = None
        self._known: dict[str, bool] = {}

    def __call__(self, session: str) -> bool:
        """True when ``session`` is the one this hook runs in (asked once per session)."""
        known = self._known.get(session)
        if known is None:
            known = self._known[session] = self._decide(session)
        return known

    def _decide(self, session: str) -> bool:
        from maple_adapters.sessions import SessionRegistry  # only when a stop meets a claim

        entry = SessionRegistry(self._temp_dir).read(session)
        if entry is None:
            return False
        conversation = entry.get("conversation")
        if self._payload_session and isinstance(conversation, str):
            # Both name a conversation: that settles it. Two conversations can share an
            # ancestor (a terminal, a test runner), so the processes are asked only otherwise.
            return conversation == self._payload_session
        if self._above is None:
            from maple_adapters.sessions import ancestors

            self._above = set(ancestors())
        client = entry.get("client")
        return isinstance(client, int) and client > 1 and client in self._above


def sorted_by_claims(
    comments: Sequence[JsonObject], payload: StopPayload, temp_dir: str
) -> tuple[list[JsonObject], list[JsonObject]]:
    """The comments that may hold this session, and those another live session claimed."""
    now = time.time()
    own = OwnSessions(payload.session_id, temp_dir)
    return split_by_claims(comments, own, _js_stamp(now), _js_stamp(now + CLAIM_HORIZON_S))


def _emit(data: dict[str, str]) -> None:
    # ASCII-escaped, so any locale's stdout can carry it (and half an emoji stays valid JSON).
    sys.stdout.write(dumps_flat(data, ascii_only=True))
    sys.stdout.flush()


def _decide(
    payload: StopPayload, every: Sequence[JsonObject], client: str, temp_dir: str
) -> dict[str, str]:
    comments, claimed = sorted_by_claims(every, payload, temp_dir)
    if client == "cursor":
        decision = decide_loop_count_stop(comments, payload, claimed)
        if decision.block and decision.reason:
            return {"followup_message": decision.reason}
        if decision.reason:
            sys.stderr.write(f"{HOOK}: {decision.reason}\n")
        return {}
    counter = BlockCounter(temp_dir)
    stored = counter.read(payload.session_id) if payload.session_id else 0
    step = decide_session_stop(comments, payload, stored, claimed)
    try:
        if payload.session_id is not None and step.counter == CounterUpdate.WRITE:
            counter.write(payload.session_id, step.count)
        elif payload.session_id is not None and step.counter == CounterUpdate.CLEAR:
            counter.clear(payload.session_id)
    except OSError as exc:
        sys.stderr.write(f"{HOOK}: could not keep the block count in {counter.directory}: {exc}\n")
    return step.decision.to_json()


def _client(argv: Sequence[str]) -> str | None:
    if not argv:
        return None
    value = argv[1] if len(argv) == 2 and argv[0] == "--client" else None
    if len(argv) == 1 and argv[0].startswith("--client="):
        value = argv[0].split("=", 1)[1]
    if value not in ("claude", "codex", "cursor"):
        raise ValueError(argv)
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the hook and return its exit code.

    Exit 1 (which Claude Code and Codex treat as a hook error that lets the stop go ahead) for a
    configuration or usage the hook cannot use; never exit 2, which they read as "block".
    """
    try:
        chosen = _client(sys.argv[1:] if argv is None else argv)
    except ValueError:
        sys.stderr.write(f"{_USAGE}\n")
        return 1
    try:
        payload = parse_stop_payload(sys.stdin.buffer.read().decode("utf-8", "replace"))
    except RecursionError:
        sys.stderr.write(
            f"{HOOK}: the Stop payload nests too deeply to read; the stop goes ahead.\n"
        )
        _emit({})
        return 0
    client = chosen or ("cursor" if payload.client_counts_loops else "claude")
    settings = Settings()
    try:
        comments = open_comments(settings, payload.cwd or os.getcwd())
        answer = _decide(payload, comments, client, temp_folder(settings))
    except ConfigurationError as exc:
        sys.stderr.write(f"{HOOK}: {exc}\n")
        return 1
    except (MapleError, OSError, ValueError, RecursionError, TimeoutError) as exc:
        sys.stderr.write(
            f"{HOOK}: could not read the review comments, so the stop goes ahead: {exc}\n"
        )
        answer = {}
    _emit(answer)
    return 0


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
