"""The GitHub Actions event a gate publish runs for: the commit, the branch, whether to review.

Read from the JSON GitHub writes at ``GITHUB_EVENT_PATH`` for ``GITHUB_EVENT_NAME``.
"""

from __future__ import annotations

from dataclasses import dataclass

from maple_core.errors import InvalidInputError
from maple_core.json_types import JsonObject, JsonValue

__all__ = ["GitHubEvent", "PullToLookUp", "REVIEW_EVENTS", "looked_up", "read_event"]

REVIEW_EVENTS = (
    "pull_request_review",
    "pull_request_review_comment",
    "pull_request_review_thread",
)
"""Events for the pull request's own review, whose payload carries ``pull_request``."""


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
        skip: why nothing is published for this event, or ``None``.
    """

    name: str
    sha: str
    branch: str
    merge_queue: bool = False
    no_review: str | None = None
    repository: str | None = None
    skip: str | None = None


@dataclass(frozen=True, slots=True)
class PullToLookUp:
    """A conversation comment's event (``issue_comment``) on pull request ``number``.

    Its payload names no head, so the pull request is asked for it (:func:`looked_up`).
    """

    name: str
    number: int
    repository: str | None = None


def _obj(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) and value else None


def _of_pull(name: str, pull: JsonObject, repository: str | None) -> GitHubEvent:
    """The head commit and branch of ``pull`` (a pull request as GitHub writes it)."""
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


def _unreviewed_skipped(event: GitHubEvent) -> GitHubEvent:
    """A review event on a pull request nobody reviews changes nothing: it is not published.

    Its check is neutral whatever is written on it (its pull request events publish that), and
    on a fork's pull request the job's token cannot write check runs at all.
    """
    if event.no_review is None:
        return event
    why = f"nobody reviews this pull request ({event.no_review}); its check stays neutral"
    return GitHubEvent(event.name, event.sha, event.branch, repository=event.repository, skip=why)


def looked_up(event: PullToLookUp, pull: JsonValue) -> GitHubEvent:
    """``event`` with its pull request's head, from ``pull`` (``GET …/pulls/{number}``).

    Raises:
        InvalidInputError: ``pull`` is not a pull request with a head.
    """
    return _unreviewed_skipped(_of_pull(event.name, _obj(pull), event.repository))


def read_event(name: str, payload: JsonValue) -> GitHubEvent | PullToLookUp:
    """Read the event ``name`` from its ``payload``.

    ``pull_request`` and ``pull_request_target`` name the head commit and branch; a head from
    another repository (a fork) or opened by a bot has no review. The review's events
    (:data:`REVIEW_EVENTS`) name them as well, and are skipped on a pull request nobody reviews.
    ``issue_comment`` names only the pull request, whose head is looked up (:class:`PullToLookUp`);
    on an issue it is skipped. ``merge_group`` names the queue's head commit. ``push`` names the
    pushed commit and branch. Nothing else in a payload is read: the verdict is decided from
    the pull request itself, never from the words an event carries.

    Raises:
        InvalidInputError: the payload lacks what the event needs, or the event is not one of
            these.
    """
    data = _obj(payload)
    repository = _text(_obj(data.get("repository")).get("full_name"))
    if name in ("pull_request", "pull_request_target"):
        return _of_pull(name, _obj(data.get("pull_request")), repository)
    if name in REVIEW_EVENTS:
        return _unreviewed_skipped(_of_pull(name, _obj(data.get("pull_request")), repository))
    if name == "issue_comment":
        issue = _obj(data.get("issue"))
        number = issue.get("number")
        if not isinstance(number, int) or isinstance(number, bool):
            raise InvalidInputError("The issue_comment event has no issue.number.")
        if not issue.get("pull_request"):
            why = f"issue #{number} is not a pull request"
            return GitHubEvent(name, "", "", repository=repository, skip=why)
        return PullToLookUp(name, number, repository)
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
        f"maple gate publish runs on pull_request, pull_request_target, "
        f"{', '.join(REVIEW_EVENTS)}, issue_comment, merge_group or push events, not "
        f"{name or 'an unnamed event'}; add those to the workflow's `on:`."
    )
