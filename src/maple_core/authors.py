"""Who wrote a comment or an approval, as Maple's route records it (``CommentAuthor``)."""

from __future__ import annotations

from dataclasses import dataclass

from maple_core.json_types import JsonObject

__all__ = [
    "COLOR_SLOTS",
    "Reviewer",
    "client_author",
    "color_slot",
    "guest_author",
    "server_author",
]


@dataclass(frozen=True, slots=True)
class Reviewer:
    """A person the route identified (Maple's ``MapleUser``)."""

    id: str
    name: str
    avatar_url: str | None = None

    def author(self) -> JsonObject:
        """The author record a comment or approval by this reviewer carries."""
        return server_author(self.id, self.name, self.avatar_url)

    def to_json(self) -> JsonObject:
        """``{id, name, avatarUrl?}``, as ``GET /me`` reports the user."""
        out: JsonObject = {"id": self.id, "name": self.name}
        if self.avatar_url is not None:
            out["avatarUrl"] = self.avatar_url
        return out


COLOR_SLOTS = 10
"""The reviewer hues an overlay draws marks in."""

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193


def _fnv1a32(text: str) -> int:
    """FNV-1a (32 bit) over the UTF-16 code units of ``text``, as JavaScript's ``charCodeAt``."""
    value = _FNV_OFFSET
    data = text.encode("utf-16-le", "surrogatepass")
    for index in range(0, len(data), 2):
        value ^= data[index] | data[index + 1] << 8
        value = (value * _FNV_PRIME) & 0xFFFFFFFF
    return value


def color_slot(user_id: str) -> int:
    """The hue a reviewer's marks are drawn in: FNV-1a-32 of their id, modulo ten.

    A hash rather than a counter, so one reviewer has one hue on every machine.
    """
    return _fnv1a32(user_id) % COLOR_SLOTS


def guest_author() -> JsonObject:
    """The author of a comment written with no identity behind it."""
    return {"id": "guest", "name": "Guest", "provenance": "guest"}


def server_author(user_id: str, name: str, avatar_url: str | None = None) -> JsonObject:
    """The author the route records for a reviewer it identified itself."""
    author: JsonObject = {
        "id": user_id,
        "name": name,
        "provenance": "server",
        "colorSlot": color_slot(user_id),
    }
    if avatar_url is not None:
        author["avatarUrl"] = avatar_url
    return author


def client_author(user_id: str, name: str) -> JsonObject:
    """The author a tool on the reviewer's machine names (the git identity): ``client``."""
    return {"id": user_id, "name": name, "provenance": "client", "colorSlot": color_slot(user_id)}
