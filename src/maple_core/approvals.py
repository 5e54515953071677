"""Approval values: somebody looked at the preview of one commit and approved it."""

from __future__ import annotations

from dataclasses import dataclass, field

from maple_core.fields import object_of, optional_str, required_str
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["Approval", "NewApproval"]

_APPROVAL_KEYS = frozenset({"id", "branch", "commit", "at", "author", "note"})


@dataclass(frozen=True, slots=True)
class NewApproval:
    """An approval before a store gives it an id (Maple ``NewApproval``)."""

    branch: str
    commit: str
    at: str
    author: JsonObject = field(default_factory=dict)
    note: str | None = None
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def from_json(cls, value: JsonValue) -> NewApproval:
        """Read a submitted approval; an ``id`` in the input is ignored."""
        obj = object_of(value, "an approval")
        author = obj.get("author")
        return cls(
            branch=required_str(obj, "branch", "an approval"),
            commit=required_str(obj, "commit", "an approval"),
            at=required_str(obj, "at", "an approval"),
            author=object_of(author, "approval.author") if author is not None else {},
            note=optional_str(obj, "note", "approval"),
            extra={k: v for k, v in obj.items() if k not in _APPROVAL_KEYS},
        )

    def stored(self, approval_id: str) -> Approval:
        """Return the approval a store keeps under ``approval_id``."""
        return Approval(
            self.branch, self.commit, self.at, self.author, self.note, self.extra, id=approval_id
        )


@dataclass(frozen=True, slots=True)
class Approval(NewApproval):
    """A stored approval: the submitted one and the id its store gave it.

    It counts only for the commit it names.
    """

    id: str = field(kw_only=True)

    @property
    def author_name(self) -> str:
        """The approver's display name, or ``somebody`` when the record has none."""
        name = self.author.get("name")
        return name if isinstance(name, str) and name else "somebody"

    @classmethod
    def from_json(cls, value: JsonValue) -> Approval:
        """Read a stored approval from its JSON object."""
        obj = object_of(value, "an approval")
        return NewApproval.from_json(obj).stored(required_str(obj, "id", "a stored approval"))

    def to_json(self) -> JsonObject:
        """Return the approval's JSON object in Maple's shape."""
        out: JsonObject = {
            "id": self.id,
            "branch": self.branch,
            "commit": self.commit,
            "author": self.author,
            "at": self.at,
        }
        if self.note is not None:
            out["note"] = self.note
        out.update(self.extra)
        return out
