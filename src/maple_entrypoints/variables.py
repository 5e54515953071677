"""What a configuration variable is: its :class:`Kind` of value, and the :class:`Variable` itself.

Every variable maple reads is declared with these in :mod:`maple_entrypoints.configuration`. The
Stop hook imports this module at every stop of every agent turn, so it holds to the standard
library's cheapest modules (no ``typing``, ``enum`` or ``dataclasses``), and its values derive
from :class:`~maple_core.frozen.Frozen` (docs/stop-hook.md).
"""

from __future__ import annotations

from maple_core.errors import ConfigurationError
from maple_core.frozen import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Generic, TypeVar

    T = TypeVar("T", covariant=True)
    V = TypeVar("V")

    class _Typed(Generic[T]):
        """What type checkers see: a kind or a variable of values of type ``T``."""

        __slots__ = ()

else:
    T = V = object

    class _Typed:
        """At run time ``Kind[str]`` is ``Kind``: ``typing`` stays off the hook's start-up."""

        __slots__ = ()

        def __class_getitem__(cls, item):
            return cls


__all__ = [
    "FLAG",
    "Kind",
    "NAMES",
    "NUMBER",
    "PATH",
    "Secret",
    "TEXT",
    "TOKEN",
    "URL",
    "Variable",
    "choice",
]


class Secret(Frozen):
    """A credential's text, never shown: its repr and str are ``**********``."""

    __slots__ = ("_value",)
    _value: str

    def __init__(self, value: str) -> None:
        self._set(_value=value)

    def get_secret_value(self) -> str:
        """The credential itself, for the one call that sends it."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"


class Kind(_Typed[T], Frozen):
    """What a variable's value must be: the docs' word for it, and how its text becomes one.

    ``parse`` raises ``ValueError`` for text that is not of the kind.
    """

    __slots__ = ("parse", "word")
    word: str
    parse: Callable[[str], T]

    def __init__(self, word: str, parse: Callable[[str], T]) -> None:
        self._set(parse=parse, word=word)


def _number(text: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise ValueError(text)
    return int(text)


def _names(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


def _flag(text: str) -> bool:
    return text == "true"


def _one_of(values: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in values:
            raise ValueError(text)
        return text

    return parse


TEXT: Kind[str] = Kind("text", str)
URL: Kind[str] = Kind("URL", str)
PATH: Kind[str] = Kind("path", str)
TOKEN: Kind[Secret] = Kind("token", Secret)
NUMBER: Kind[int] = Kind("number", _number)
NAMES: Kind[tuple[str, ...]] = Kind("list", _names)
FLAG: Kind[bool] = Kind("true or unset", _flag)
"""Exactly ``true`` is true; anything else, unset included, is false."""


def choice(*values: str) -> Kind[str]:
    """One of ``values``, in the docs as ``a, b or c``."""
    word = ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]
    return Kind(word, _one_of(values))


class Variable(_Typed[T], Frozen):
    """One environment variable: its name, kind, default, whether it is a secret, what it is.

    ``description`` is one sentence. An empty value reads as unset (so as ``default``) unless
    ``empty_is_unset`` is false. ``refusal`` is what a value not of the kind is told, with
    ``{name}``, ``{value}`` and ``{kind}`` filled in. A ``per_session`` variable names who a
    session is (each session its own value), never how maple behaves, so nothing is keyed on it.
    """

    __slots__ = (
        "default",
        "description",
        "empty_is_unset",
        "kind",
        "name",
        "per_session",
        "refusal",
        "secret",
    )
    name: str
    kind: Kind[T]
    description: str
    default: str | None
    secret: bool
    empty_is_unset: bool
    per_session: bool
    refusal: str

    def __init__(
        self,
        name: str,
        kind: Kind[T],
        description: str,
        *,
        default: str | None = None,
        secret: bool = False,
        empty_is_unset: bool = True,
        refusal: str = "Unknown {name} {value}; it must be {kind}.",
        per_session: bool = False,
    ) -> None:
        self._set(
            default=default,
            description=description,
            empty_is_unset=empty_is_unset,
            kind=kind,
            name=name,
            per_session=per_session,
            refusal=refusal,
            secret=secret,
        )

    def text(self, environ: Mapping[str, str]) -> str | None:
        """The variable's text in ``environ``: an empty one as unset, an unset one as default."""
        value = environ.get(self.name)
        if value is None or (value == "" and self.empty_is_unset):
            return self.default
        return value

    def read(self, environ: Mapping[str, str]) -> T | None:
        """The variable's value in ``environ``, or ``None`` when it is unset without a default.

        Raises:
            ConfigurationError: the text is not of the variable's kind, in :attr:`refusal`'s
                words.
        """
        text = self.text(environ)
        if text is None:
            return None
        try:
            return self.kind.parse(text)
        except ValueError:
            refused = self.refusal.format(name=self.name, value=text, kind=self.kind.word)
            raise ConfigurationError(refused) from None
