"""Where the pull request's own review is read: the settings' reading, for one repository."""

from __future__ import annotations

from typing import TYPE_CHECKING

from maple_entrypoints.settings import ReviewReading

__all__: list[str] = []  # a part the setups build; no entrypoint imports it

if TYPE_CHECKING:
    from maple_adapters.github.review_setup import ReviewPlace


def review_place(
    review: ReviewReading,
    owner: str,
    repo: str,
    api_url: str | None,
    token: str | None,
    app_id: str | int | None,
) -> ReviewPlace:
    """The review of ``owner/repo`` read with ``token``, as ``review`` (the settings) says."""
    from maple_adapters.github.review_setup import ReviewPlace

    return ReviewPlace(
        owner=owner,
        repo=repo,
        api_url=api_url,
        token=token,
        app_id=app_id,
        trusted_bots=review.trusted_bots,
        reserve=review.reserve,
        cache_root=review.cache_root,
    )
