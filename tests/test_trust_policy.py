"""The trust policy: whose words on a pull request become the agent's work, and who vouches."""

from __future__ import annotations

import pytest

from maple_core.trust import Author, Endorsement, Standing, TrustPolicy, bot_login

COLLABORATOR = Author("rev", "COLLABORATOR")
STRANGER = Author("drive-by", "NONE")
CONTRIBUTOR = Author("past-contributor", "CONTRIBUTOR")
RABBIT = Author.of("coderabbitai[bot]", "NONE", "Bot")
EDITED = "2026-03-01T10:00:00Z"


@pytest.mark.parametrize(
    ("association", "trusted"),
    [
        ("OWNER", True),
        ("MEMBER", True),
        ("COLLABORATOR", True),
        ("CONTRIBUTOR", False),
        ("FIRST_TIME_CONTRIBUTOR", False),
        ("FIRST_TIMER", False),
        ("MANNEQUIN", False),
        ("NONE", False),
    ],
)
def test_people_are_trusted_by_their_association(association: str, trusted: bool) -> None:
    assert TrustPolicy().trusts(Author("someone", association)) is trusted


def test_every_apps_bot_is_trusted_until_the_list_names_the_trusted_ones() -> None:
    assert TrustPolicy().trusts(RABBIT)
    listed = TrustPolicy.from_list(" CodeRabbitAI , copilot-pull-request-reviewer[bot]")
    assert listed.trusts(RABBIT)
    assert not listed.trusts(Author.of("cursor[bot]", "NONE", "Bot"))
    assert not TrustPolicy.from_list("").trusts(RABBIT)  # empty: no bot at all
    assert TrustPolicy.from_list(None) == TrustPolicy()


def test_a_person_named_like_a_bot_is_a_person() -> None:
    """Logins cannot hold ``[``: only GitHub's own bots end in ``[bot]``, and only as type Bot."""
    lookalike = Author.of("coderabbitai", "NONE", "User")
    forged = Author.of("coderabbitai[bot]", "NONE", "User")  # a shape GitHub never sends
    policy = TrustPolicy.from_list("coderabbitai")
    assert not lookalike.bot
    assert not forged.bot
    assert not policy.trusts(lookalike)
    assert not policy.trusts(forged)
    assert bot_login("coderabbitai") == "coderabbitai[bot]"


def test_a_trusted_persons_reply_or_thumbs_up_after_the_last_edit_endorses() -> None:
    policy = TrustPolicy()
    after = Endorsement(COLLABORATOR, "2026-03-01T10:00:01Z", "reply")
    before = Endorsement(COLLABORATOR, "2026-03-01T09:59:59Z", "reaction")
    same_second = Endorsement(COLLABORATOR, EDITED, "reaction")
    assert policy.standing(STRANGER, EDITED, [after]) is Standing.ENDORSED
    assert policy.standing(STRANGER, EDITED, [before]) is Standing.HELD  # edited since
    assert policy.standing(STRANGER, EDITED, [same_second]) is Standing.HELD
    assert policy.standing(STRANGER, EDITED) is Standing.HELD
    assert policy.standing(COLLABORATOR, EDITED) is Standing.TRUSTED


def test_only_people_who_belong_endorse_never_a_bot_nor_a_stranger() -> None:
    policy = TrustPolicy()
    later = "2026-03-02T00:00:00Z"
    for voucher in (RABBIT, CONTRIBUTOR, Author("x", "NONE")):
        assert policy.standing(STRANGER, EDITED, [Endorsement(voucher, later)]) is Standing.HELD
    assert policy.standing(STRANGER, "not a time", [Endorsement(COLLABORATOR, later)]) is (
        Standing.HELD
    )


def test_why_held_names_the_author_and_what_would_endorse() -> None:
    assert "NONE on this repository" in TrustPolicy().why_held(STRANGER)
    assert "MAPLE_TRUSTED_BOTS" in TrustPolicy.from_list("").why_held(RABBIT)
