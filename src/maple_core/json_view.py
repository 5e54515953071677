"""A record kept as its JSON object and read field by field: what Maple's anchors and contexts are.

A :class:`JsonView` wraps a stored object without copying it, so listing thousands of comments
stays cheap and every key a newer Maple writes survives a round trip. Each of its fields is a
:class:`JsonField`, read (and type-checked, a mistyped one reading as absent) when asked for;
the keys it declares are the ones ``extra`` leaves out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Self, TypeVar, overload

from maple_core.fields import object_of
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["JsonField", "JsonView"]

T = TypeVar("T")


class JsonField(Generic[T]):
    """The field ``key`` of a :class:`JsonView`, as ``read`` takes it (given ``None`` if absent)."""

    def __init__(self, key: str, read: Callable[[JsonValue], T], doc: str) -> None:
        self.key = key
        self._read = read
        self.__doc__ = doc

    @overload
    def __get__(self, view: None, owner: type[Any]) -> JsonField[T]: ...

    @overload
    def __get__(self, view: JsonView, owner: type[Any]) -> T: ...

    def __get__(self, view: JsonView | None, owner: type[Any]) -> JsonField[T] | T:
        if view is None:
            return self
        return self._read(view.data.get(self.key))


@dataclass(frozen=True, slots=True, init=False)
class JsonView:
    """A JSON object read through the :class:`JsonField` attributes of its subclass.

    A subclass names what it is (``WHAT``, for the error a non-object gets) and declares its
    fields; its own ``__init__`` builds a new one with :meth:`_wrap`.
    """

    WHAT: ClassVar[str] = "a JSON object"
    KEYS: ClassVar[frozenset[str]] = frozenset()
    data: JsonObject

    def __init_subclass__(cls) -> None:
        # No super(): ``slots=True`` makes a new class, which the zero-argument form misses.
        declared = {v.key for v in vars(cls).values() if isinstance(v, JsonField)}
        cls.KEYS = cls.KEYS | declared

    def _wrap(self, fields: JsonObject, extra: JsonObject | None) -> None:
        """Keep ``fields`` (those that are not ``None``) and then ``extra`` as the object."""
        data: JsonObject = {k: v for k, v in fields.items() if v is not None}
        data.update(extra or {})
        object.__setattr__(self, "data", data)

    @classmethod
    def from_json(cls, value: JsonValue) -> Self:
        """Wrap a stored JSON object (it must be an object)."""
        view = cls.__new__(cls)
        object.__setattr__(view, "data", object_of(value, cls.WHAT))
        return view

    @property
    def extra(self) -> JsonObject:
        """Every key but the declared fields'."""
        return {k: v for k, v in self.data.items() if k not in self.KEYS}

    def to_json(self) -> JsonObject:
        """Return the JSON object (a copy)."""
        return dict(self.data)
