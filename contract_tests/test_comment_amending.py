"""The amend contract: a store declares ``Capability.AMEND`` exactly when it edits and deletes
comments (``CommentAmending``), and then edits, deletes and refuses as the port says; one
without it has neither method. Runs over every adapter in ``STORE_ADAPTERS``."""

from __future__ import annotations

import pytest

from contract_tests.test_comment_store import BRANCH, new
from maple_core.comments import Comment
from maple_core.errors import NotFoundError
from maple_core.paging import ListQuery
from maple_core.ports import Capability, CommentAmending, CommentStore


class RefusedError(Exception):
    """What the test's check raises to refuse a change."""


def accept(comment: Comment) -> None:
    """A check that lets every change through."""


def refuse(comment: Comment) -> None:
    raise RefusedError(comment.id)


def amending(store: CommentStore) -> CommentAmending | None:
    """The store as one that amends, or None (after checking it offers neither half of it)."""
    if Capability.AMEND in store.capabilities:
        assert isinstance(store, CommentAmending)
        return store
    assert not hasattr(store, "edit")
    assert not hasattr(store, "delete")
    return None


def bodies(store: CommentStore) -> list[str]:
    return [c.body for c in store.list(ListQuery(branch=BRANCH)).comments]


def test_an_edit_replaces_the_body_and_keeps_the_rest(store: CommentStore) -> None:
    stored = store.append(new("Tighten the header."))
    editor = amending(store)
    if editor is None:
        return
    edited = editor.edit(stored.id, "Tighten the footer.", accept)
    assert edited.body == "Tighten the footer."
    assert (edited.id, edited.status, edited.anchor) == (stored.id, stored.status, stored.anchor)
    assert bodies(store) == ["Tighten the footer."]


def test_a_delete_removes_only_that_comment(store: CommentStore) -> None:
    first, second = store.append(new("First.")), store.append(new("Second."))
    editor = amending(store)
    if editor is None:
        return
    editor.delete(first.id, accept)
    assert [c.id for c in store.list(ListQuery(branch=BRANCH)).comments] == [second.id]


def test_the_check_sees_the_stored_comment_and_a_refusal_changes_nothing(
    store: CommentStore,
) -> None:
    stored = store.append(new("Keep me."))
    editor = amending(store)
    if editor is None:
        return
    seen: list[Comment] = []
    editor.edit(stored.id, "Changed.", seen.append)
    assert [(c.id, c.body) for c in seen] == [(stored.id, "Keep me.")]
    with pytest.raises(RefusedError):
        editor.edit(stored.id, "Not this.", refuse)
    with pytest.raises(RefusedError):
        editor.delete(stored.id, refuse)
    assert bodies(store) == ["Changed."]


def test_an_unknown_id_is_not_found(store: CommentStore) -> None:
    store.append(new())
    editor = amending(store)
    if editor is None:
        return
    with pytest.raises(NotFoundError):
        editor.edit("no-such-comment", "Hello.", accept)
    with pytest.raises(NotFoundError):
        editor.delete("no-such-comment", accept)
