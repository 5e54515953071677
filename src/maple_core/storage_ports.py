"""What maple keeps besides comments: screenshots, agents' access tokens and waiting tasks.

The file store keeps screenshots beside ``.maple/``; a deployed route on the sql store keeps all
three in its database, so every worker sees the same tokens and tasks.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from maple_core.media import MediaRef
from maple_core.tasks import TaskEnd, TaskRecord
from maple_core.tokens import AccessToken, IssuedToken, TokenScope

__all__ = [
    "MediaStore",
    "TaskStore",
    "TokenStore",
]


class MediaStore(Protocol):
    """Where screenshots attached to comments are kept."""

    @property
    def name(self) -> str:
        """The connector name a ``MediaRef`` records, such as ``file``."""
        ...

    def put(self, data: bytes, content_type: str) -> MediaRef:
        """Keep a blob under a new key."""
        ...

    def get(self, key: str) -> tuple[bytes, str]:
        """A blob's bytes and content type; ``NotFoundError`` when nothing is held."""
        ...


class TokenStore(Protocol):
    """Where the access tokens maple issues are kept: their digests, never their secrets."""

    def issue(
        self, repository: str, scope: TokenScope, expires_at: datetime, label: str | None = None
    ) -> IssuedToken:
        """Make a new token for ``repository``; its secret is in the answer and nowhere else."""
        ...

    def tokens(self, repository: str | None = None) -> builtins.list[AccessToken]:
        """The tokens issued (for ``repository``, or all), oldest first, revoked ones included."""
        ...

    def revoke(self, token_id: str) -> AccessToken:
        """Stop the token ``token_id`` working now; an unknown id is ``NotFoundError``."""
        ...

    def find(self, secret: str) -> AccessToken | None:
        """The token whose secret is ``secret``, or ``None`` when none is (checked by digest)."""
        ...


class TaskStore(Protocol):
    """Where MCP tasks' records are kept, shared by every worker that may be asked about them.

    Times are maple's arrival-stamp strings (fixed width, so they compare as text). Every
    change is conditional on the task still working, so two workers never both end one task.
    """

    def create(self, record: TaskRecord) -> None:
        """Keep a new task's record."""
        ...

    def get(self, task_id: str) -> TaskRecord | None:
        """The task's record, or ``None`` when it is unknown (or forgotten)."""
        ...

    def finish(self, task_id: str, end: TaskEnd) -> TaskRecord | None:
        """End a working task; ``None`` when it was not working any more (nothing changes)."""
        ...

    def renew(self, owner: str, task_ids: Sequence[str], lease_until: str) -> set[str]:
        """Extend ``owner``'s leases on its working tasks.

        Answers which of ``task_ids`` it no longer runs: ended elsewhere (a cancel through
        another worker), taken over, or forgotten.
        """
        ...

    def take_over(self, task_id: str, owner: str, now: str, lease_until: str) -> TaskRecord | None:
        """Claim a working task whose lease ran out before ``now``; ``None`` when it is not free."""
        ...

    def forget(self, finished_before: str) -> None:
        """Drop the records of tasks that stopped working before ``finished_before``."""
        ...
