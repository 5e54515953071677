"""The file store's one boundary for the system's errors: each becomes maple's, naming the ledger.

A lock held too long, or a folder or file the system will not read or write (permissions, a full
disk), is :class:`~maple_core.errors.StoreUnavailableError`; an id the ledger lacks is
:class:`~maple_core.errors.NotFoundError`. Both say what to do next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from maple_adapters.files.lock import LockTimeoutError
from maple_core.errors import NotFoundError, StoreUnavailableError

__all__ = ["LOCK_TIMEOUT_S", "not_found", "translated"]

LOCK_TIMEOUT_S = 30.0
"""How long a writer waits for another maple process's lock on the ledger or the claims."""


@contextmanager
def translated(ledger: Callable[[], Path], store: str, operation: str) -> Iterator[None]:
    """Turn the system's errors under ``with`` into maple's, naming the ``ledger`` file."""
    try:
        yield
    except LockTimeoutError:
        raise StoreUnavailableError(
            f"{ledger()} stayed locked by another maple process for "
            f"{LOCK_TIMEOUT_S:.0f} s. Try again; if it persists, find the process "
            "holding the lock.",
            store=store,
            operation=operation,
        ) from None
    except OSError as exc:
        raise StoreUnavailableError(
            f"{ledger()} could not be used ({exc.strerror or exc}); check the "
            "folder's permissions and free space.",
            store=store,
            operation=operation,
        ) from None


def not_found(comment_id: str, ledger: Path, store: str, operation: str) -> NotFoundError:
    """The error for a comment id the ``ledger`` does not hold."""
    return NotFoundError(
        f"No comment with id {comment_id} in {ledger}. "
        "List the branch's comments for the ids there are.",
        store=store,
        operation=operation,
    )
