"""The adapters the store contract suite runs over: one ``pytest.param`` per adapter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from contract_tests.support import FakeClock, make_repo
from maple_adapters.files import FileCommentStore
from maple_adapters.memory import InMemoryCommentStore
from maple_core.ports import CommentStore

StoreFactory = Callable[[FakeClock, Path], CommentStore]


def _memory(clock: FakeClock, tmp: Path) -> CommentStore:
    return InMemoryCommentStore(clock)


def _file(clock: FakeClock, tmp: Path) -> CommentStore:
    return FileCommentStore(clock, make_repo(tmp / "repo", "feat/contract"))


STORE_ADAPTERS = [
    pytest.param(_memory, id="memory"),
    pytest.param(_file, id="file"),
]
"""Every comment-store adapter. A new adapter is one new entry here."""


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=STORE_ADAPTERS)
def store_factory(request: pytest.FixtureRequest) -> StoreFactory:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def store(store_factory: StoreFactory, clock: FakeClock, tmp_path: Path) -> CommentStore:
    return store_factory(clock, tmp_path)
