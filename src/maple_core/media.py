"""Media references (screenshots attached to comments) and media-key rules.

Which images a screenshot may be, and how their type and size are read from their bytes, is
``raster.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from maple_core.errors import InvalidMediaKeyError

__all__ = ["MediaRef", "check_media_key", "content_type_for", "extension_for"]

_KEY = re.compile(r"[A-Za-z0-9_-]+")
_EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/gif": "gif",
    "image/webp": "webp",
    "image/avif": "avif",
    "image/svg+xml": "svg",  # only to read back what an older maple or Maple's route kept
}


@dataclass(frozen=True, slots=True)
class MediaRef:
    """Where a blob is held: the media store's name, its key and its content type."""

    connector: str
    key: str
    content_type: str

    def to_json(self) -> dict[str, str]:
        """Maple's ``MediaRef`` JSON: ``{connector, key, contentType}``."""
        return {"connector": self.connector, "key": self.key, "contentType": self.content_type}


def check_media_key(key: str) -> str:
    """Return ``key`` when it is a bare name of letters, digits, ``_`` and ``-``.

    Raises:
        InvalidMediaKeyError: the key is empty or holds anything else (``../x``, ``x.png``).
    """
    if not _KEY.fullmatch(key):
        raise InvalidMediaKeyError(
            f"No blob is held under {key}. A media key is letters, digits, '_' and '-' only."
        )
    return key


def extension_for(content_type: str) -> str:
    """The file extension Maple uses for a content type (``bin`` for anything unknown)."""
    return _EXTENSIONS.get(content_type.split(";", 1)[0].strip().lower(), "bin")


def content_type_for(extension: str) -> str:
    """The content type a stored file's extension stands for."""
    for content_type, ext in _EXTENSIONS.items():
        if ext == extension:
            return content_type
    return "application/octet-stream"
