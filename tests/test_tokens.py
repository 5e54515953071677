"""Access tokens: lifetimes, scopes, who may do what (``maple_core.tokens``, ``token_access``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from maple_core.errors import InvalidInputError
from maple_core.token_access import access_refusal, parse_lifetime
from maple_core.tokens import AccessToken, IssuedToken, TokenScope, token_digest

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def token(**changes: object) -> AccessToken:
    fields: dict[str, object] = {
        "id": "tok_1a2b3c",
        "repository": "acme/web",
        "scope": TokenScope.READ,
        "created_at": "2026-01-01T00:00:00.000000Z",
        "expires_at": "2026-04-01T00:00:00.000000Z",
    }
    return AccessToken(**{**fields, **changes})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "lifetime"),
    [("90d", timedelta(days=90)), ("12h", timedelta(hours=12)), ("30m", timedelta(minutes=30))],
)
def test_a_lifetime_is_a_number_and_a_unit(text: str, lifetime: timedelta) -> None:
    assert parse_lifetime(text) == lifetime


@pytest.mark.parametrize("text", ["", "d", "90", "0d", "-1d", "1.5d", "90 d", "９0d", "1y"])
def test_anything_else_is_refused_with_the_forms_that_work(text: str) -> None:
    with pytest.raises(InvalidInputError, match="90d"):
        parse_lifetime(text)


def test_no_token_lives_longer_than_366_days() -> None:
    assert parse_lifetime("366d") == timedelta(days=366)
    with pytest.raises(InvalidInputError, match="366 days"):
        parse_lifetime("367d")


def test_a_write_token_may_read_and_a_read_token_may_not_write() -> None:
    assert TokenScope.WRITE.allows(TokenScope.READ)
    assert TokenScope.WRITE.allows(TokenScope.WRITE)
    assert TokenScope.READ.allows(TokenScope.READ)
    assert not TokenScope.READ.allows(TokenScope.WRITE)


def test_a_live_token_of_the_repository_may_do_what_its_scope_allows() -> None:
    assert access_refusal(token(), "acme/web", TokenScope.READ, NOW) is None
    refusal = access_refusal(token(), "acme/web", TokenScope.WRITE, NOW)
    assert refusal is not None
    assert "may only read" in refusal
    assert access_refusal(token(scope=TokenScope.WRITE), "acme/web", TokenScope.WRITE, NOW) is None


@pytest.mark.parametrize(
    ("found", "says"),
    [
        (None, "not one this route issued"),
        (token(revoked_at="2026-01-01T06:00:00.000000Z"), "was revoked"),
        (token(expires_at="2026-01-01T12:00:00.000000Z"), "has expired"),
        (token(expires_at="garbage"), "has expired"),
        (token(repository="acme/other"), "another repository"),
    ],
)
def test_an_unknown_revoked_expired_or_foreign_token_is_refused(
    found: AccessToken | None, says: str
) -> None:
    refusal = access_refusal(found, "acme/web", TokenScope.READ, NOW)
    assert refusal is not None
    assert says in refusal


def test_the_digest_is_sha256_and_the_secret_never_shows_in_a_repr() -> None:
    secret = "maple_" + "x" * 43
    assert len(token_digest(secret)) == 64
    assert token_digest(secret) != token_digest(secret + "y")
    assert secret not in repr(IssuedToken(token(), secret))
