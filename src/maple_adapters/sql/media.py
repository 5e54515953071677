"""Screenshots in the database beside their comments, so every route worker serves them."""

from __future__ import annotations

import uuid

from sqlalchemy import Connection, select

from maple_adapters.sql.database import Database
from maple_adapters.sql.schema import media
from maple_core.errors import NotFoundError
from maple_core.media import MediaRef, check_media_key

__all__ = ["SqlMedia"]


class SqlMedia:
    """Blobs in ``maple_media``, one repository's apart (the ``sql`` media connector).

    Args:
        database: the database the comments are in.
        repository: the repository the blobs belong to.
    """

    def __init__(self, database: Database, repository: str = "default") -> None:
        self._database = database
        self.repository = repository

    @property
    def name(self) -> str:
        """``sql``, the connector name a ``MediaRef`` records."""
        return "sql"

    def put(self, data: bytes, content_type: str) -> MediaRef:
        """Store a blob under a new ``shot-`` key."""
        key = "shot-" + uuid.uuid4().hex[:12]

        row = {
            "repository": self.repository,
            "key": key,
            "content_type": content_type,
            "data": data,
        }
        self._database.insert_once("media", media, row, lambda c: self._find(c, key))
        return MediaRef(connector="sql", key=key, content_type=content_type)

    def _find(self, connection: Connection, key: str) -> tuple[bytes, str] | None:
        row = connection.execute(
            select(media.c.data, media.c.content_type)
            .where(media.c.repository == self.repository)
            .where(media.c.key == key)
        ).first()
        return (bytes(row.data), str(row.content_type)) if row is not None else None

    def get(self, key: str) -> tuple[bytes, str]:
        """The blob's bytes and content type.

        Raises:
            InvalidMediaKeyError: the key is malformed.
            NotFoundError: nothing is held under the key.
        """
        check_media_key(key)
        found = self._database.transaction("media", lambda c, _: self._find(c, key))
        if found is None:
            raise NotFoundError(f"No blob is held under {key}.", store="sql", operation="media")
        return found
