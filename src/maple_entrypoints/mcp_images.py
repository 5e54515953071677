"""A comment's images as MCP image content, so a multimodal agent sees what the reviewer saw."""

from __future__ import annotations

import base64

from mcp.types import ImageContent, TextContent

from maple_core.attachments import (
    AGENT_IMAGE_TYPES,
    MAX_AGENT_IMAGE_SIDE,
    MAX_IMAGE_BYTES,
    MAX_IMAGES,
    images_of,
)
from maple_core.comments import Comment
from maple_core.errors import MapleError
from maple_core.raster import raster_size, sniff_raster
from maple_core.storage_ports import MediaStore

__all__ = ["comment_images"]

_MB = MAX_IMAGE_BYTES // (1024 * 1024)


def comment_images(comment: Comment, media: MediaStore | None) -> list[ImageContent | TextContent]:
    """Each image the comment carries that ``media`` holds, then one line naming those left out.

    An image is left out when it is held elsewhere (another connector), missing, not the raster
    image its type says, over :data:`~maple_core.attachments.MAX_IMAGE_BYTES`, of a type or
    size an agent's model refuses (which would end a Claude Code session), or past the first
    :data:`~maple_core.attachments.MAX_IMAGES`. The line is maple's own words: it names images by
    their place in the comment's ``attachments``, never by what a reviewer could have written.
    """
    content: list[ImageContent | TextContent] = []
    left_out: list[str] = []
    for number, image in enumerate(images_of(comment), start=1):
        why = None
        if len(content) >= MAX_IMAGES:
            why = f"only {MAX_IMAGES} images are shown per answer"
        elif media is None or image.ref.connector != media.name:
            why = "it is not held where this server can read it"
        else:
            try:
                data, content_type = media.get(image.ref.key)
            except MapleError:
                data, content_type = b"", ""
            if not data or sniff_raster(data) != content_type:
                why = "it is missing or not the image its type says"
            elif len(data) > MAX_IMAGE_BYTES:
                why = f"it is over {_MB} MB"
            elif content_type not in AGENT_IMAGE_TYPES:
                why = "agents read only PNG, JPEG, GIF and WebP images"
            elif (size := raster_size(data, content_type)) is None:
                why = "its size cannot be read"
            elif max(size) > MAX_AGENT_IMAGE_SIDE:
                why = f"it is larger than {MAX_AGENT_IMAGE_SIDE} pixels on a side"
            else:
                encoded = base64.b64encode(data).decode("ascii")
                content.append(ImageContent(type="image", data=encoded, mime_type=content_type))
        if why is not None:
            left_out.append(f"image {number}: {why}")
    if left_out:
        note = "Attached images not shown here (numbered as in `attachments`): "
        content.append(TextContent(type="text", text=note + "; ".join(left_out) + "."))
    return content
