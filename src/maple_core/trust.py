"""Whose words on a pull request become the agent's work: the trust policy, as values.

Anyone who can see a pull request can comment on it, and an agent that acts on anyone's words
is a prompt-injection channel. So a note (a line comment, a review's body, a conversation
comment) is work only when its author is **trusted** or a trusted person **endorsed** it;
anything else is **held**: listed apart for reviewers, never handed to the agent's wait, the
Stop hook or the gate.

- A person is trusted when GitHub says they belong to the repository: ``author_association``
  ``OWNER``, ``MEMBER`` or ``COLLABORATOR``.
- A GitHub App's bot (an account of type ``Bot``, login ``name[bot]``) can write on a repository
  only through an installation there, so it is trusted, unless :attr:`TrustPolicy.bots` (from
  ``MAPLE_TRUSTED_BOTS``) lists the bots to trust, when only those are. A person whose login
  merely looks like a bot's (``coderabbitai``) is a person, judged by their association.
- A held note is endorsed by a trusted person's (never a bot's) reply after it in the same
  thread, or 👍 on it, made after its last edit: editing a note after its endorsement holds it
  again, until someone endorses the new words.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from maple_core.cursor import parse_stamp

__all__ = [
    "Author",
    "Endorsement",
    "Standing",
    "TRUSTED_ASSOCIATIONS",
    "TrustPolicy",
    "bot_login",
]

TRUSTED_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
"""The ``author_association`` values of people who belong to the repository."""

_BOT_SUFFIX = "[bot]"


def bot_login(name: str) -> str:
    """A bot's login as GitHub spells it, lower-cased: ``CodeRabbitAI`` → ``coderabbitai[bot]``."""
    name = name.strip().lower()
    return name if name.endswith(_BOT_SUFFIX) else name + _BOT_SUFFIX


@dataclass(frozen=True, slots=True)
class Author:
    """Who wrote a note, as GitHub reports them.

    Attributes:
        login: their login.
        association: GitHub's ``author_association`` (``NONE`` when unknown).
        bot: the account is a GitHub App's bot (type ``Bot``, login ending ``[bot]``).
    """

    login: str
    association: str = "NONE"
    bot: bool = False

    @classmethod
    def of(cls, login: str, association: str | None, account_type: str | None) -> Author:
        """An author from GitHub's fields: a bot only when both the type and the login say so."""
        bot = account_type == "Bot" and login.lower().endswith(_BOT_SUFFIX)
        return cls(login, association or "NONE", bot)


@dataclass(frozen=True, slots=True)
class Endorsement:
    """A sign that someone vouched for a note: a reply after it, or 👍 on it.

    Attributes:
        by: who made it.
        at: when, as GitHub stamps it (ISO 8601).
        how: ``reply`` or ``reaction``.
    """

    by: Author
    at: str
    how: str = "reaction"


class Standing(StrEnum):
    """Where a note stands with the policy."""

    TRUSTED = "trusted"
    ENDORSED = "endorsed"
    HELD = "held"


@dataclass(frozen=True, slots=True)
class TrustPolicy:
    """Who is trusted (see the module docstring).

    Attributes:
        bots: the bots' logins to trust (normalised by :func:`bot_login`), or ``None`` for every
            App's bot.
    """

    bots: frozenset[str] | None = None

    @classmethod
    def from_list(cls, logins: str | None) -> TrustPolicy:
        """The policy ``MAPLE_TRUSTED_BOTS`` names: unset trusts every App's bot, ``""`` none."""
        if logins is None:
            return cls()
        return cls(frozenset(bot_login(n) for n in logins.split(",") if n.strip()))

    def trusts(self, author: Author) -> bool:
        """Whether the author's own words are work."""
        if author.bot:
            return self.bots is None or bot_login(author.login) in self.bots
        return author.association in TRUSTED_ASSOCIATIONS

    def endorses(self, author: Author) -> bool:
        """Whether the author can vouch for someone else's words: trusted people only."""
        return not author.bot and author.association in TRUSTED_ASSOCIATIONS

    def standing(
        self, author: Author, edited_at: str, endorsements: Iterable[Endorsement] = ()
    ) -> Standing:
        """The note's standing: trusted by its author, endorsed since ``edited_at``, or held.

        An endorsement counts only when it came strictly after the note's last edit, so words
        changed after somebody vouched for them are held again; one whose time cannot be read
        counts for nothing.
        """
        if self.trusts(author):
            return Standing.TRUSTED
        edited = parse_stamp(edited_at)
        for endorsement in endorsements:
            at = parse_stamp(endorsement.at)
            if (
                edited is not None
                and at is not None
                and at > edited
                and self.endorses(endorsement.by)
            ):
                return Standing.ENDORSED
        return Standing.HELD

    def why_held(self, author: Author) -> str:
        """One line saying why the author's words are held (for ``maple comments list --all``)."""
        if author.bot:
            return f"{author.login} is not in MAPLE_TRUSTED_BOTS"
        return (
            f"{author.login} is {author.association} on this repository, not an owner, member "
            "or collaborator; a trusted reply or 👍 would endorse it"
        )
