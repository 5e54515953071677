"""Which images a screenshot may be, read from the bytes themselves: raster types and sizes.

A screenshot is a raster image no browser runs script in (PNG, JPEG, GIF, WebP, AVIF); an SVG
never is. The type a header names is checked against the type the data's magic number says,
and a size is read from the image's own header, bounded, without decoding it.
"""

from __future__ import annotations

import struct

__all__ = ["RASTER_TYPES", "is_raster", "raster_size", "raster_type", "sniff_raster"]

RASTER_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif")
"""The content types a screenshot may have: images no browser runs script in."""

_AVIF_BRANDS = (b"avif", b"avis")


def raster_type(content_type: str) -> str | None:
    """The raster type a ``Content-Type`` header names (parameters and case ignored), or ``None``.

    ``image/svg+xml`` and every other type are ``None``: an SVG can carry script.
    """
    bare = content_type.split(";", 1)[0].strip().lower()
    return bare if bare in RASTER_TYPES else None


def is_raster(content_type: str) -> bool:
    """Whether ``content_type`` is one of :data:`RASTER_TYPES`."""
    return raster_type(content_type) is not None


def sniff_raster(data: bytes) -> str | None:
    """The raster type ``data``'s magic number says it is, or ``None`` for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[4:8] == b"ftyp" and _avif_brand(data):
        return "image/avif"
    return None


def _avif_brand(data: bytes) -> bool:
    """Whether an ISO media file's ``ftyp`` box names an AVIF brand (major or compatible)."""
    size = int.from_bytes(data[:4], "big")
    box = data[8 : min(max(size, 16), len(data), 4096)]
    brands = [box[i : i + 4] for i in range(0, len(box) - 3, 4)]
    # brands[1] is the minor version, not a brand
    return any(b in _AVIF_BRANDS for i, b in enumerate(brands) if i != 1)


def raster_size(data: bytes, content_type: str) -> tuple[int, int] | None:
    """The width and height ``data``'s header gives for ``content_type``, or ``None``.

    PNG, GIF, JPEG and WebP (lossy, lossless and extended) are read; anything else, or a header
    cut short or malformed, has no size.
    """
    try:
        if content_type == "image/png" and data[12:16] == b"IHDR":
            return _checked(struct.unpack(">II", data[16:24]))
        if content_type == "image/gif":
            return _checked(struct.unpack("<HH", data[6:10]))
        if content_type == "image/webp":
            return _webp_size(data)
        if content_type == "image/jpeg":
            return _jpeg_size(data)
    except struct.error:
        return None
    return None


def _checked(size: tuple[int, int]) -> tuple[int, int] | None:
    return size if size[0] > 0 and size[1] > 0 else None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        return width, 1 + int.from_bytes(data[27:30], "little")
    if kind == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if kind == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return _checked((width & 0x3FFF, height & 0x3FFF))
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The size in the first start-of-frame segment, walking the segments from the start."""
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return None
        marker, length = data[at + 1], int.from_bytes(data[at + 2 : at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return _checked((width, height))
        if length < 2:
            return None
        at += 2 + length
    return None
