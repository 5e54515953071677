"""A record kept as its JSON object and read field by field: what Maple's anchors and contexts are.

A :class:`JsonView` wraps a stored object without copying it, so listing thousands of comments
stays cheap and every key a newer Maple writes survives a round trip. A subclass declares each
field once, with :func:`json_field` (name, type, key, reader, description); its constructor is
derived from those (for type checkers too), and ``extra`` holds every key they do not name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, Self, TypeVar, dataclass_transform, overload

from maple_core.fields import object_of
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["JsonField", "JsonView", "json_field"]

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
    def __get__(self, view: _Fields, owner: type[Any]) -> T: ...

    def __get__(self, view: _Fields | None, owner: type[Any]) -> JsonField[T] | T:
        if view is None:
            return self
        return self._read(view.data.get(self.key))


def json_field(
    key: str, read: Callable[[JsonValue], T], doc: str, *, default: T | None = None
) -> T:
    """Declare a :class:`JsonView` field kept under ``key`` (see :class:`JsonField`).

    ``default`` is what type checkers see the constructor take when the field is not given (an
    absent field reads as ``read(None)``).
    """
    return JsonField(key, read, doc)  # type: ignore[return-value]


def _written(value: Any) -> JsonValue:
    """``value`` as JSON: a view as its object, a tuple as a list (none when it is empty)."""
    if isinstance(value, tuple):
        return [_written(item) for item in value] or None
    return value.to_json() if isinstance(value, _Fields) else value


def _extra(view: _Fields) -> JsonObject:
    """Every key of the object but the declared fields'."""
    return {k: v for k, v in view.data.items() if k not in view.KEYS}


def _unknown_keys(*, default: JsonObject | None) -> JsonObject:
    return property(_extra)  # type: ignore[return-value]


@dataclass_transform(
    kw_only_default=True, frozen_default=True, field_specifiers=(json_field, _unknown_keys)
)
class _Fields:
    """The machinery of :class:`JsonView`: its fields, the constructor they make, immutability."""

    __slots__ = ("data",)
    WHAT: ClassVar[str] = "a JSON object"
    KEYS: ClassVar[frozenset[str]] = frozenset()
    FIELDS: ClassVar[dict[str, JsonField[Any]]] = {}
    BY_POSITION: ClassVar[tuple[str, ...]] = ()
    data: JsonObject

    def __init_subclass__(cls, *, kw_only: bool = True) -> None:
        declared = {n: v for n, v in vars(cls).items() if isinstance(v, JsonField)}
        cls.FIELDS = {**cls.FIELDS, **declared}
        cls.KEYS = frozenset(f.key for f in cls.FIELDS.values())
        cls.BY_POSITION = cls.BY_POSITION if kw_only else (*cls.BY_POSITION, *declared)

    def __init__(self, *args: Any, extra: JsonObject | None = None, **values: Any) -> None:
        by_position = self.BY_POSITION
        if len(args) > len(by_position) or values.keys() & set(by_position[: len(args)]):
            raise TypeError(f"{type(self).__name__}() takes {list(by_position)} by position")
        values.update(zip(by_position, args, strict=False))
        unknown = values.keys() - self.FIELDS.keys()
        if unknown:
            raise TypeError(f"{type(self).__name__}() has no field {sorted(unknown)[0]!r}")
        written = {spec.key: _written(values.get(name)) for name, spec in self.FIELDS.items()}
        data = {key: value for key, value in written.items() if value is not None}
        object.__setattr__(self, "data", {**data, **(extra or {})})

    @classmethod
    def from_json(cls, value: JsonValue) -> Self:
        """Wrap a stored JSON object (it must be an object)."""
        view = cls.__new__(cls)
        object.__setattr__(view, "data", object_of(value, cls.WHAT))
        return view

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot delete {name}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, _Fields):
            return NotImplemented
        return self.data == other.data

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data={self.data!r})"

    def __reduce__(self) -> tuple[Callable[[JsonValue], Self], tuple[JsonObject]]:
        return (type(self).from_json, (self.data,))

    def to_json(self) -> JsonObject:
        """Return the JSON object (a copy)."""
        return dict(self.data)


class JsonView(_Fields):
    """A JSON object read through the fields its subclass declares with :func:`json_field`.

    A subclass names what it is (``WHAT``, for the error a non-object gets). It is built with a
    keyword for each field (or its position too, in a subclass declared with ``kw_only=False``),
    and ``extra`` for the keys it does not declare.
    """

    extra: JsonObject = _unknown_keys(default=None)
