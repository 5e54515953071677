"""The waits one comment wakes share one answer, and take no thread to find no renewal due.

``Watches.answer`` hands the waits that found the very same comments (one shared read) one
answer, built once; a read again, another cursor or other claims get an answer of their own.
``wait_for_fresh`` renews a session's claims on a worker thread only when a renewal is due.
"""

from __future__ import annotations

import dataclasses

import anyio
import pytest

from contract_tests.support import FakeClock
from maple_adapters.memory import InMemoryCommentStore
from maple_core.comments import NewComment
from maple_entrypoints.mcp_watches import Watches, wait_for_fresh

BRANCH = "feat/wake"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_waits_that_found_the_same_comments_share_one_answer() -> None:
    store = InMemoryCommentStore(FakeClock())
    store.append(NewComment(branch=BRANCH, body="The header wraps."))
    watches = Watches(store)
    read = store.state(BRANCH).comments
    made: list[int] = []

    def make() -> object:
        made.append(1)
        return object()

    first = watches.answer(BRANCH, None, "c1", read, {}, make)
    assert watches.answer(BRANCH, None, "c1", read, {}, make) is first
    assert made == [1]
    again = [dataclasses.replace(c) for c in read]  # equal comments, read again: new objects
    assert again == list(read)
    assert watches.answer(BRANCH, None, "c1", again, {}, make) is not first
    assert watches.answer(BRANCH, "c0", "c1", again, {}, make) is not first
    assert watches.answer(BRANCH, "c0", "c2", again, {}, make) is not first
    assert len(made) == 4


class Renewals:
    def __init__(self, due: bool) -> None:
        self.due = due
        self.renewed = 0

    def renewal_due(self) -> bool:
        return self.due

    def renew_due(self) -> None:
        self.renewed += 1


@pytest.mark.parametrize("due", [False, True])
async def test_a_wait_renews_claims_only_when_a_renewal_is_due(due: bool) -> None:
    store = InMemoryCommentStore(FakeClock())
    store.append(NewComment(branch=BRANCH, body="The header wraps."))
    renewals = Renewals(due)
    with anyio.fail_after(30):
        found = await wait_for_fresh(
            Watches(store), store, BRANCH, None, 1_000, None, lambda _: None, renew=renewals
        )
    assert [c.body for c in found.comments] == ["The header wraps."]
    assert renewals.renewed == (1 if due else 0)
