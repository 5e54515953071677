"""Screenshots and other blobs beside a branch's comments: ``.maple/<slug>/media/<key>.<ext>``.

The folders and blobs are opened without following symbolic links, like the ledger's.
"""

from __future__ import annotations

import base64
import contextlib
import uuid
from pathlib import Path, PurePath

from maple_adapters.files.folders import MAPLE, Folder, make_folder, open_folder
from maple_adapters.files.place import resolve_place
from maple_core.errors import NotFoundError
from maple_core.media import MediaRef, check_media_key, content_type_for, extension_for

__all__ = ["FileMedia"]

_MEDIA = "media"


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

    def _parts(self) -> tuple[str, tuple[str, str, str]]:
        place = resolve_place(self._cwd or Path.cwd(), root=self._root, url=self._url)
        return place.root, (MAPLE, place.key, _MEDIA)

    def put(self, data: bytes, content_type: str) -> MediaRef:
        """Store a blob atomically under a new ``shot-`` key.

        Raises:
            UnsafePathError: ``.maple``, the branch's folder or ``media`` is a symbolic link.
        """
        key = "shot-" + uuid.uuid4().hex[:12]
        root, parts = self._parts()
        with make_folder(root, parts, operation="media") as folder:
            folder.replace(f"{key}.{extension_for(content_type)}", data)
        return MediaRef(connector="file", key=key, content_type=content_type)

    def _find(self, key: str) -> tuple[Folder, str]:
        """The open media folder and the blob's name in it; close the folder when done."""
        check_media_key(key)
        folder = open_folder(*self._parts(), operation="media")
        if folder is not None:
            for name in folder.names():
                if PurePath(name).stem == key and not name.endswith(".tmp"):
                    return folder, name
            folder.close()
        raise NotFoundError(f"No blob is held under {key}.", store="file", operation="media")

    def get(self, key: str) -> tuple[bytes, str]:
        """The blob's bytes and the content type its file extension names.

        Raises:
            InvalidMediaKeyError: the key is malformed.
            NotFoundError: nothing is held under the key.
            UnsafePathError: the blob, or a folder on the way to it, is a symbolic link.
        """
        folder, name = self._find(key)
        with folder:
            data = folder.read(name)
        return data, content_type_for(PurePath(name).suffix.lstrip("."))

    def location(self, key: str) -> Path:
        """The blob's file, for a person to open (``<root>/.maple/<slug>/media/<key>.png``).

        Raises:
            InvalidMediaKeyError: the key is malformed.
            NotFoundError: nothing is held under the key.
        """
        folder, name = self._find(key)
        folder.close()
        root, parts = self._parts()
        return Path(root, *parts, name)

    def data_url(self, key: str) -> str:
        """The blob as a ``data:`` URL, as Maple's ``getUrl`` returns it."""
        data, content_type = self.get(key)
        return f"data:{content_type};base64,{base64.b64encode(data).decode()}"

    def remove(self, key: str) -> None:
        """Delete the blob if it is there."""
        with contextlib.suppress(NotFoundError):
            folder, name = self._find(key)
            with folder:
                folder.unlink(name)
