"""``quickjson`` parses exactly as ``json`` does, and fails where it fails."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maple_core.quickjson import dumps_flat, loads

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300)
@given(value=JSON, indent=st.sampled_from([None, 2]), pad=st.sampled_from(["", " \n\t"]))
def test_it_reads_what_json_writes(value: object, indent: int | None, pad: str) -> None:
    text = pad + json.dumps(value, indent=indent, ensure_ascii=False) + pad
    assert loads(text) == json.loads(text)
    assert loads(text.encode()) == json.loads(text)


@pytest.mark.parametrize("text", ["", "   ", "{broken", "[1, 2", '{"a": 1} extra', "nul", '"\\x"'])
def test_it_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - json.JSONDecodeError is the ValueError here
        loads(text)


@settings(max_examples=200)
@given(st.dictionaries(st.text(), st.text(), max_size=4))
def test_flat_dumps_matches_json(mapping: dict[str, str]) -> None:
    assert dumps_flat(mapping) == json.dumps(mapping, ensure_ascii=False, separators=(",", ":"))
