"""Screenshots and other blobs beside a branch's comments: ``.maple/<slug>/media/<key>.<ext>``."""

from __future__ import annotations

import base64
import contextlib
import uuid
from pathlib import Path

from maple_adapters.files.ledger import replace_atomically
from maple_adapters.files.place import resolve_place
from maple_core.errors import NotFoundError
from maple_core.media import MediaRef, check_media_key, content_type_for, extension_for

__all__ = ["FileMedia"]


class FileMedia:
    """Blobs in the local place's ``media/`` folder (Maple's ``fileMedia``)."""

    def __init__(
        self, cwd: Path | None = None, *, root: Path | None = None, url: str | None = None
    ) -> None:
        self._cwd = cwd
        self._root = root
        self._url = url

    @property
    def name(self) -> str:
        """``file``, the connector name a ``MediaRef`` records."""
        return "file"

    def _folder(self) -> Path:
        place = resolve_place(self._cwd or Path.cwd(), root=self._root, url=self._url)
        return Path(place.directory) / "media"

    def put(self, data: bytes, content_type: str) -> MediaRef:
        """Store a blob atomically under a new ``shot-`` key."""
        key = "shot-" + uuid.uuid4().hex[:12]
        folder = self._folder()
        folder.mkdir(parents=True, exist_ok=True)
        replace_atomically(folder / f"{key}.{extension_for(content_type)}", data)
        return MediaRef(connector="file", key=key, content_type=content_type)

    def _find(self, key: str) -> Path:
        check_media_key(key)
        folder = self._folder()
        if folder.is_dir():
            for path in folder.iterdir():
                if path.stem == key and not path.name.endswith(".tmp"):
                    return path
        raise NotFoundError(f"No blob is held under {key}.", store="file", operation="media")

    def get(self, key: str) -> tuple[bytes, str]:
        """The blob's bytes and the content type its file extension names.

        Raises:
            InvalidMediaKeyError: the key is malformed.
            NotFoundError: nothing is held under the key.
        """
        path = self._find(key)
        return path.read_bytes(), content_type_for(path.suffix.lstrip("."))

    def data_url(self, key: str) -> str:
        """The blob as a ``data:`` URL, as Maple's ``getUrl`` returns it."""
        data, content_type = self.get(key)
        return f"data:{content_type};base64,{base64.b64encode(data).decode()}"

    def remove(self, key: str) -> None:
        """Delete the blob if it is there."""
        with contextlib.suppress(NotFoundError):
            self._find(key).unlink(missing_ok=True)
