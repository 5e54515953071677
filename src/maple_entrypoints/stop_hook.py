"""``maple-stop-hook``: keep a coding agent working while review comments are open.

Reads the client's Stop payload on stdin and writes one JSON object on stdout: Claude Code and
Codex get ``{"decision": "block", "reason": ...}``, ``{}`` or the give-up ``{"reason": ...}``;
Cursor gets ``{"followup_message": ...}`` or ``{}``. The file-store path imports nothing heavy, so
the hook costs about what a bare interpreter does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from maple_core.errors import ConfigurationError, MapleError
from maple_core.quickjson import dumps_flat
from maple_core.stop import (
    CounterUpdate,
    StopPayload,
    decide_loop_count_stop,
    decide_session_stop,
    parse_stop_payload,
)
from maple_entrypoints.bootstrap.hook import blocking_records, find_checkout, resolve_place
from maple_entrypoints.hook_settings import HookSettings, read_hook_settings

__all__ = ["BlockCounter", "main", "open_comments", "run"]

try:  # the interpreter's own SHA-256, which starts faster than hashlib's OpenSSL
    from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from maple_core.json_types import JsonObject

HOOK = "maple-stop-hook"
_BLOCKING = ("open", "needs_reverify")
_USAGE = "usage: maple-stop-hook [--client claude|codex|cursor]"


class BlockCounter:
    """Consecutive blocks per session: ``<temp>/maple-stop-hook/<sha256(session)[:32]>.txt``.

    The folder is Maple's, so both hooks share the count. It sits in a shared temporary
    directory, where another user could have made it first or planted a link in it: a folder
    that is a link or is not this user's is passed over for ``maple-stop-hook-<uid>`` (made
    private), and a counter is never read or written through a link.
    """

    def __init__(self, temp_dir: str) -> None:
        self.temp_dir = temp_dir
        self.directory = os.path.join(temp_dir, HOOK)

    def _folder(self, create: bool) -> str | None:
        """The first usable folder: Maple's, else this user's own; ``None`` when neither is."""
        uid = os.getuid()
        for folder in (self.directory, f"{self.directory}-{uid}"):
            try:
                if create:
                    os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
            except OSError:
                return None
            try:
                found = os.lstat(folder)
            except OSError:
                continue
            if found.st_mode & 0o170000 == 0o040000 and found.st_uid == uid:
                return folder
        return None

    def _path(self, session_id: str, create: bool = False) -> str | None:
        folder = self._folder(create)
        if folder is None:
            return None
        digest = sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return os.path.join(folder, f"{digest}.txt")

    def read(self, session_id: str) -> int:
        """The stored count; missing, unreadable, linked or garbage reads as 0."""
        path = self._path(session_id)
        if path is None:
            return 0
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                count = int(os.read(fd, 64))
            finally:
                os.close(fd)
        except (OSError, ValueError):
            return 0
        return max(count, 0)

    def write(self, session_id: str, count: int) -> None:
        """Store ``count`` for the session.

        Raises:
            OSError: no folder this user owns could hold it, or a link stands in its place.
        """
        path = self._path(session_id, create=True)
        if path is None:
            raise PermissionError(f"no folder of this user's under {self.temp_dir}")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, str(count).encode())
        finally:
            os.close(fd)

    def clear(self, session_id: str) -> None:
        """Forget the session's count."""
        path = self._path(session_id)
        if path is None:
            return
        try:  # noqa: SIM105 - contextlib stays off the hook's start-up path
            os.unlink(path)
        except FileNotFoundError:
            pass


def _forge_comments(cwd: str, branch: str | None) -> list[JsonObject]:
    """Maple's forge path: the store the environment configures (§7.2 step 4), heavy imports."""
    from maple_core.environment import describe_variable
    from maple_core.services import list_all
    from maple_core.statuses import CommentStatus
    from maple_entrypoints.bootstrap.server import build_store
    from maple_entrypoints.settings import (
        load_settings,
        resolve_config,
        store_kind,
    )

    settings = load_settings()
    store_kind(settings, "the Stop hook")
    if branch is None:
        raise ConfigurationError(
            "MAPLE_BRANCH is not set; the Stop hook cannot tell which pull request to check. "
            f"It is: {describe_variable('MAPLE_BRANCH')}"
        )
    config = resolve_config(
        settings.model_copy(update={"MAPLE_URL": None, "MAPLE_GATE_TOKEN": None}), "the Stop hook"
    )
    store = build_store(config, _path(cwd))
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


def open_comments(settings: HookSettings, cwd: str) -> list[JsonObject]:
    """The comments that keep the agent working: ``open`` and ``needs_reverify``, newest first.

    Without a forge it reads ``.maple/`` only if the ledger already exists (it never creates the
    folder), and nothing when no branch is known, ``MAPLE_STORE`` is ``github``, or the working
    directory is gone.
    """
    branch = settings.branch or find_checkout(cwd).branch
    if settings.configured_store:
        return _within(_FORGE_BUDGET_S, lambda: _forge_comments(cwd, branch))
    if branch is None or settings.store == "github" or not os.path.isdir(cwd):
        return []
    # A missing ledger reads as empty (nothing is created); a link in its place is refused.
    return blocking_records(resolve_place(cwd).ledger, branch, _BLOCKING)


def _emit(data: dict[str, str]) -> None:
    # ASCII-escaped, so any locale's stdout can carry it (and half an emoji stays valid JSON).
    sys.stdout.write(dumps_flat(data, ascii_only=True))
    sys.stdout.flush()


def _decide(
    payload: StopPayload, comments: Sequence[JsonObject], client: str, temp_dir: str
) -> dict[str, str]:
    if client == "cursor":
        decision = decide_loop_count_stop(comments, payload)
        if decision.block and decision.reason:
            return {"followup_message": decision.reason}
        if decision.reason:
            sys.stderr.write(f"{HOOK}: {decision.reason}\n")
        return {}
    counter = BlockCounter(temp_dir)
    stored = counter.read(payload.session_id) if payload.session_id else 0
    step = decide_session_stop(comments, payload, stored)
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
    settings = read_hook_settings()
    try:
        comments = open_comments(settings, payload.cwd or os.getcwd())
        answer = _decide(payload, comments, client, settings.temp_dir)
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
