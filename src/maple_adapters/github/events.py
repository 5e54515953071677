"""The GitHub Actions event a gate publish runs for: the commit, the branch, whether to review.

Read from the JSON GitHub writes at ``GITHUB_EVENT_PATH`` for ``GITHUB_EVENT_NAME``.
"""

from __future__ import annotations

from dataclasses import dataclass

from maple_core.errors import InvalidInputError
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["GitHubEvent", "read_event"]


@dataclass(frozen=True, slots=True)
class GitHubEvent:
    """What ``maple gate publish`` needs from an event.

    Attributes:
        name: the event's name, such as ``pull_request``.
        sha: the commit the check run goes on.
        branch: the pull request's head branch (the store's surface), or the pushed branch.
        merge_queue: the commit is a merge queue's, which passes at once.
        no_review: why nobody reviews this pull request (a fork, a bot), or ``None``.
        repository: ``owner/name`` from the payload, when it names one.
    """

    name: str
    sha: str
    branch: str
    merge_queue: bool = False
    no_review: str | None = None
    repository: str | None = None


def _obj(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) and value else None


def read_event(name: str, payload: JsonValue) -> GitHubEvent:
    """Read the event ``name`` from its ``payload``.

    ``pull_request`` and ``pull_request_target`` name the head commit and branch; a head from
    another repository (a fork) or opened by a bot has no review. ``merge_group`` names the
    queue's head commit. ``push`` names the pushed commit and branch.

    Raises:
        InvalidInputError: the payload lacks what the event needs, or the event is not one of
            these.
    """
    data = _obj(payload)
    repository = _text(_obj(data.get("repository")).get("full_name"))
    if name in ("pull_request", "pull_request_target"):
        pull = _obj(data.get("pull_request"))
        head, base = _obj(pull.get("head")), _obj(pull.get("base"))
        sha, branch = _text(head.get("sha")), _text(head.get("ref"))
        if sha is None or branch is None:
            raise InvalidInputError(
                f"The {name} event has no pull_request.head.sha and .ref; is GITHUB_EVENT_PATH "
                "the event's payload?"
            )
        head_repo = _text(_obj(head.get("repo")).get("full_name"))
        base_repo = _text(_obj(base.get("repo")).get("full_name")) or repository
        why = None
        if head_repo is None or (base_repo is not None and head_repo != base_repo):
            why = "it comes from a fork, whose preview and comments maple cannot reach"
        elif _obj(pull.get("user")).get("type") == "Bot":
            why = "a bot opened it"
        return GitHubEvent(name, sha, branch, no_review=why, repository=base_repo)
    if name == "merge_group":
        group = _obj(data.get("merge_group"))
        queued = _text(group.get("head_sha"))
        queue_ref = _text(group.get("head_ref")) or ""
        if queued is None:
            raise InvalidInputError("The merge_group event has no merge_group.head_sha.")
        return GitHubEvent(
            name,
            queued,
            queue_ref.removeprefix("refs/heads/"),
            merge_queue=True,
            repository=repository,
        )
    if name == "push":
        after, pushed = _text(data.get("after")), _text(data.get("ref"))
        if after is None or pushed is None:
            raise InvalidInputError("The push event has no 'after' commit and 'ref'.")
        return GitHubEvent(name, after, pushed.removeprefix("refs/heads/"), repository=repository)
    raise InvalidInputError(
        f"maple gate publish runs on pull_request, pull_request_target, merge_group or push "
        f"events, not {name or 'an unnamed event'}; add those to the workflow's `on:`."
    )
