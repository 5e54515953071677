"""The images a comment carries: Maple attachments ``{connector, key, contentType, source?}``.

The overlay attaches its capture of the page (``source: "capture"``) and any image the reviewer
pasted or dropped (``"offered"``). Stored comments keep ``attachments`` as written, so they are
read here leniently: an entry maple cannot read is skipped, never an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from maple_core.comments import Comment
from maple_core.media import MediaRef
from maple_core.raster import is_raster

__all__ = [
    "AGENT_IMAGE_TYPES",
    "Attachment",
    "MAX_AGENT_IMAGE_SIDE",
    "MAX_IMAGES",
    "MAX_IMAGE_BYTES",
    "images_of",
]

MAX_IMAGES = 4
"""The most images one answer carries to an agent; a comment's others are only named."""

MAX_IMAGE_BYTES = 3 * 1024 * 1024
"""The largest image handed to an agent (base64 makes it a third larger on the wire)."""

MAX_AGENT_IMAGE_SIDE = 2000
"""The widest or tallest image handed to an agent, in pixels.

Anthropic's API refuses an image over 8000 px on a side, and over 2000 px once a request holds
more than 20 images; a refused image stays in Claude Code's conversation and ends the session.
"""

AGENT_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The image types the agents' models read (AVIF is kept and shown to people, not agents)."""


@dataclass(frozen=True, slots=True)
class Attachment:
    """One attachment: where its blob is held, and how it came (``capture``, ``offered``)."""

    ref: MediaRef
    source: str | None = None


def images_of(comment: Comment) -> tuple[Attachment, ...]:
    """The comment's raster image attachments, in the order they were attached."""
    listed = comment.extra.get("attachments")
    if not isinstance(listed, list):
        return ()
    images: list[Attachment] = []
    for entry in listed:
        if not isinstance(entry, dict):
            continue
        connector, key = entry.get("connector"), entry.get("key")
        content_type, source = entry.get("contentType"), entry.get("source")
        if not (isinstance(connector, str) and isinstance(key, str)):
            continue
        if not (isinstance(content_type, str) and is_raster(content_type)):
            continue
        ref = MediaRef(connector=connector, key=key, content_type=content_type)
        images.append(Attachment(ref, source if isinstance(source, str) else None))
    return tuple(images)
