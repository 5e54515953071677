"""JSON through the interpreter's C scanner, without importing :mod:`json`.

``import json`` also imports :mod:`re`, :mod:`enum` and :mod:`functools`, which costs about half
a bare interpreter's start. The Stop hook runs at every stop of every agent turn, so the code on
its path reads and writes JSON through ``_json`` (the accelerator :mod:`json` itself uses) and
falls back to :mod:`json` where that module is missing. Results are the same as ``json.loads``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from maple_core.json_types import JsonValue

__all__ = ["dumps_flat", "loads"]

_WHITESPACE = " \t\n\r"


class _Context:
    """The attributes ``_json.make_scanner`` reads, set as ``json.JSONDecoder()`` sets them."""

    __slots__ = (
        "object_hook",
        "object_pairs_hook",
        "parse_constant",
        "parse_float",
        "parse_int",
        "strict",
    )

    def __init__(self) -> None:
        constants = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = constants.__getitem__


try:
    from _json import encode_basestring as _encode
    from _json import encode_basestring_ascii as _encode_ascii
    from _json import make_scanner as _make_scanner
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    _scan: Callable[[str, int], tuple[JsonValue, int]] | None = None
else:
    _scan = _make_scanner(_Context())  # type: ignore[arg-type]  # typeshed wants a JSONDecoder


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def loads(data: str | bytes) -> JsonValue:
    """Parse one JSON document; bytes are read as UTF-8 with bad bytes replaced, as Node does.

    A string parses exactly as ``json.loads`` parses it. Bytes differ from ``json.loads`` in
    following Node: no UTF-16/32 detection, and invalid UTF-8 becomes U+FFFD.

    Raises:
        ValueError: the text is not one JSON document (``json.JSONDecodeError`` is one).
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if _scan is None:  # pragma: no cover
        return _json_loads(text)
    try:
        value, end = _scan(text, _skip(text, 0))
    except (StopIteration, ValueError, SystemError):
        # A malformed document. The C scanner reports errors through json.decoder, which is
        # not loaded here (it then raises SystemError), so json itself says what is wrong.
        return _json_loads(text)
    if _skip(text, end) != len(text):
        return _json_loads(text)
    return value


def _json_loads(text: str) -> JsonValue:
    import json

    return json.loads(text)  # type: ignore[no-any-return]


def dumps_flat(mapping: Mapping[str, str], *, ascii_only: bool = False) -> str:
    """A flat object of strings as compact JSON, like ``json.dumps``.

    With ``ascii_only`` every non-ASCII character (a lone surrogate too) is escaped, so the text
    can be written in any encoding.
    """
    if _scan is None:  # pragma: no cover
        import json

        return json.dumps(mapping, ensure_ascii=ascii_only, separators=(",", ":"))
    encode = _encode_ascii if ascii_only else _encode
    return "{" + ",".join(f"{encode(k)}:{encode(v)}" for k, v in mapping.items()) + "}"
