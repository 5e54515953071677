"""The route's screenshots: raster images only, each served as a sandboxed document."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from maple_core.raster import RASTER_TYPES, is_raster, raster_type, sniff_raster
from maple_core.storage_ports import MediaStore
from maple_entrypoints.route.answers import (
    RouteRefusalError,
    json_answer,
    read_bytes,
)
from maple_entrypoints.route.handling import RouteHandlers, off_loop

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass

__all__ = [
    "MediaHandlers",
]


_ACCEPTED = ", ".join(RASTER_TYPES[:-1]) + " or " + RASTER_TYPES[-1]

_MEDIA_HEADERS = {
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    # Opened on its own, a blob is a sandboxed document that may load nothing and run nothing.
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
}


class MediaHandlers(RouteHandlers):
    """``POST /media`` and ``GET /media/{key}``."""

    def media_store(self) -> MediaStore:
        """Where screenshots go (404 when this deployment keeps none)."""
        if self.options.media is None:
            raise RouteRefusalError(404, "This deployment keeps no screenshots")
        return self.options.media

    async def put_media(self, request: Request) -> Response:
        """``POST /media``: a raster image whose bytes are what its content type says."""
        media = self.media_store()
        declared = request.headers.get("content-type", "")
        content_type = raster_type(declared)
        if content_type is None:
            shown = declared.split(";", 1)[0].strip()[:60] or "no content type"
            raise RouteRefusalError(
                415,
                f"An image is required: send {_ACCEPTED} bytes under their own content type; "
                f"{shown} is not accepted (an SVG or a page could run script).",
            )
        data = await read_bytes(request, self.options.max_media_bytes, "image")
        if not data:
            raise RouteRefusalError(400, "An image is required: the body was empty")
        if sniff_raster(data) != content_type:
            raise RouteRefusalError(
                415,
                f"An image is required: the body is not the {content_type} image its content "
                f"type says; send {_ACCEPTED} bytes under their own content type.",
            )
        ref = await off_loop(media.put, data, content_type)
        return json_answer(ref.to_json(), 201)

    async def get_media(self, request: Request) -> Response:
        """``GET /media/{key}``: a raster image inline, anything else as a download."""
        media = self.media_store()
        data, content_type = await off_loop(media.get, request.path_params["key"])
        # A raster image shows inline (the overlay's <img>); anything else, such as an SVG an
        # older maple or Maple kept, is only ever downloaded.
        disposition = "inline" if is_raster(content_type) else "attachment"
        return Response(
            data,
            media_type=content_type,
            headers={**_MEDIA_HEADERS, "content-disposition": disposition},
        )
