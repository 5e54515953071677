"""``Frozen``: immutable slotted values for the Stop hook's path, without importing dataclasses.

The Stop hook runs at every stop of every agent turn and must start almost as fast as a bare
interpreter; importing :mod:`dataclasses` (and through it :mod:`inspect`) alone costs about as
much as the interpreter's own start. The few values on that path derive from this class, which
gives them what ``@dataclass(frozen=True, slots=True)`` would: equality, hashing, a repr, copying
and pickling, and no assignment after construction.
"""

from __future__ import annotations

__all__ = ["Frozen"]


class Frozen:
    """Base of a small immutable value whose fields are its ``__slots__``."""

    __slots__: tuple[str, ...] = ()

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot set {name}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; cannot delete {name}")

    def __getstate__(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return isinstance(other, Frozen) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"
