"""Whose ledger counts: the identities a store writes as, and who else may write its ledger.

Only a ledger its writers wrote is read: one whose author is the identity the store writes as
(the token's user, or the App ``app_id``'s bot), or has push access by association (``OWNER``,
``MEMBER``, ``COLLABORATOR``). Anyone else who can comment on the pull request may post
ledger-looking text; it is ignored and never deleted. A trusted ledger that cannot be read is
refused (:class:`~maple_core.errors.UnreadableLedgerError`), never skipped or overwritten.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from maple_adapters.github.claim_notes import Note, notes_in, with_notes
from maple_adapters.github.ledger import GitHubLedger
from maple_adapters.github.merging import merge_ledgers
from maple_adapters.github.parsing import parse_ledger_body
from maple_adapters.github.repository import Repository
from maple_adapters.github.transport import GitHubError
from maple_core.authors import guest_author, server_author
from maple_core.errors import InvalidRecordError, UnreadableLedgerError
from maple_core.json_types import JsonObject, JsonValue

_PARSED = 8  # ledger bodies kept parsed (a pull request seldom has more than two at once)

__all__ = ["Ledgers", "WriterTrust"]

_TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


@dataclass(frozen=True, slots=True)
class Ledgers:
    """Every trusted ledger comment on a pull request (oldest update first) and their union."""

    pull: int
    ids: tuple[int, ...]
    merged: GitHubLedger
    updated: tuple[str, ...] = ()
    notes: tuple[Note, ...] = ()


class WriterTrust:
    """Who writes ``owner/repo``'s ledgers, learnt once per store; which ledgers are read.

    Args:
        app_id: the GitHub App whose bot writes ledgers too (``MAPLE_GATE_APP_ID``), if any.
    """

    def __init__(
        self,
        repo: Repository,
        app_id: str | int | None,
    ) -> None:
        self._repo = repo
        self._app_id = str(app_id) if app_id is not None else None
        self._own_logins: set[str] = set()
        self._user_login: str | None = None
        self._parsed: dict[tuple[int, str | None, str], GitHubLedger | None] = {}
        self._parsing = threading.Lock()
        self._merges: dict[
            tuple[tuple[str, int, int], ...],
            tuple[tuple[tuple[str, int, GitHubLedger], ...], GitHubLedger],
        ] = {}
        self._asked_who = False
        self._can_push: dict[str, bool] = {}

    def writer_logins(self) -> frozenset[str]:
        """The logins this store writes as: the token's user (asked once), and what it posted as."""
        if not self._asked_who:
            self._asked_who = True
            try:
                me = self._repo.transport.request("GET", "/user").data
            except GitHubError as exc:
                if not exc.rejected:
                    raise
                me = None  # an App installation token has no user: its bot is learnt on write
            login = me.get("login") if isinstance(me, dict) else None
            if isinstance(login, str) and login:
                self._own_logins.add(login)
                self._user_login = login
        return frozenset(self._own_logins)

    def author(self) -> JsonObject:
        """Who a comment appended without an author is by: the token's user, else the guest."""
        self.writer_logins()
        login = self._user_login
        return server_author(login, login) if login else guest_author()

    def learn(self, created: JsonValue) -> None:
        """The store posted ``created`` (an issue comment): its author is a writer too."""
        user = created.get("user") if isinstance(created, dict) else None
        login = user.get("login") if isinstance(user, dict) else None
        if isinstance(login, str) and login:
            self._own_logins.add(login)

    def trusted(self, comment: JsonObject) -> bool:
        """True when the comment's author may write the ledger (see the module docstring)."""
        association = comment.get("author_association")
        if association == "OWNER":
            return True
        app = comment.get("performed_via_github_app")
        if (
            self._app_id is not None
            and isinstance(app, dict)
            and str(app.get("id")) == self._app_id
        ):
            return True
        user = comment.get("user")
        login = user.get("login") if isinstance(user, dict) else None
        if not isinstance(login, str) or not login:
            return False
        if login in self.writer_logins():
            return True
        return association in _TRUSTED_ASSOCIATIONS and self._pushes(login)

    def _pushes(self, login: str) -> bool:
        """Whether ``login`` can push, asked once per store.

        ``MEMBER`` and ``COLLABORATOR`` include people whose role on the repository is read or
        triage, so their permission is asked; where the token may not ask, the association,
        as GitHub reports it, is taken.
        """
        known = self._can_push.get(login)
        if known is not None:
            return known
        try:
            answer = self._repo.transport.request(
                "GET", f"{self._repo.base}/collaborators/{quote(login, safe='')}/permission"
            ).data
        except GitHubError as exc:
            if not exc.rejected:
                raise
            can = exc.status != 404  # 403: this token may not ask; 404: not a collaborator
        else:
            permission = answer.get("permission") if isinstance(answer, dict) else None
            can = permission in ("admin", "write")
        self._can_push[login] = can
        return can

    def _parse(self, comment_id: int, body: str, branch: str | None) -> GitHubLedger | None:
        """The ledger in ``body``, parsed once per text.

        A ledger comment is read far more often than it changes: every listing, every wait's
        look, every write's read-back.
        """
        key = (comment_id, branch, body)
        with self._parsing:
            found = self._parsed.get(key)
        if found is None:
            found = parse_ledger_body(body, branch)
            with self._parsing:
                if len(self._parsed) >= _PARSED:
                    self._parsed.pop(next(iter(self._parsed)))
                self._parsed[key] = found
        return found

    def notes_in(self, comments: Sequence[JsonObject]) -> tuple[Note, ...]:
        """The trusted claim notes among a pull request's issue comments (:mod:`.claim_notes`)."""
        return notes_in(comments, self.trusted)

    def _merged(self, ledgers: Sequence[tuple[str, int, GitHubLedger]]) -> GitHubLedger:
        """The union of ``ledgers`` (oldest update first), merged once per set of versions.

        Every listing, claim and read-back merges the same ledgers again until one changes.
        """
        # A parsed ledger is known by its object (parsed once per text): the entry holds it,
        # so its id is not reused while the entry lives.
        key = tuple((u, i, id(ledger)) for u, i, ledger in ledgers)
        with self._parsing:
            hit = self._merges.get(key)
        if hit is not None:
            return hit[1]
        merged = merge_ledgers(
            [ledger for _, _, ledger in ledgers],
            ceilings=[u for u, _, _ in ledgers],
            ids=[i for _, i, _ in ledgers],
        )
        with self._parsing:
            if len(self._merges) >= _PARSED:
                self._merges.pop(next(iter(self._merges)))
            self._merges[key] = (tuple(ledgers), merged)
        return merged

    def ledgers_in(
        self,
        pull: int,
        comments: Sequence[JsonObject],
        branch: str | None,
        operation: str,
    ) -> Ledgers | None:
        """The trusted ledgers among a pull request's issue comments, merged.

        Each record's claim is the one its ledger copies and the claim notes decide.

        Raises:
            UnreadableLedgerError: a trusted ledger cannot be read.
        """
        ledgers: list[tuple[str, int, GitHubLedger]] = []
        for comment in comments:
            body, comment_id = comment.get("body"), comment.get("id")
            if not isinstance(body, str) or not isinstance(comment_id, int):
                continue
            if "```maple" not in body or not self.trusted(comment):
                continue
            try:
                ledger = self._parse(comment_id, body, branch)
            except InvalidRecordError as exc:
                where = comment.get("html_url")
                location = where if isinstance(where, str) else f"issue comment {comment_id}"
                raise UnreadableLedgerError(
                    f"The maple ledger at {location} cannot be read: {exc} Fix its ```maple "
                    "block by hand, or delete that comment (its records are then lost); maple "
                    "will not overwrite it.",
                    store=self._repo.store,
                    operation=operation,
                    location=location,
                ) from None
            if ledger is not None:
                updated = comment.get("updated_at")
                ledgers.append((updated if isinstance(updated, str) else "", comment_id, ledger))
        if not ledgers:
            return None
        ledgers.sort(key=lambda item: (item[0], item[1]))
        # A record cannot have changed after GitHub last saw its ledger change: the comment's
        # server time caps the stamps written inside it.
        merged = self._merged(ledgers)
        notes = self.notes_in(comments)
        return Ledgers(
            pull,
            tuple(i for _, i, _ in ledgers),
            with_notes(merged, notes),
            tuple(u for u, _, _ in ledgers),
            notes,
        )
