"""A repository's pull requests as the ledger store reads them: the branch's one, its comments.

Each listing is one request per page (GitHub's ``Link`` header says where the next one is), and
a pull request's commits are listed once per head, since they change only with it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from maple_adapters.github.repository import Repository
from maple_adapters.github.transport import GitHubError
from maple_core.comments import Comment
from maple_core.errors import UnreadableLedgerError
from maple_core.json_types import JsonObject
from maple_core.statuses import CommentStatus

__all__ = ["Pull", "PullRequests", "fingerprint"]

_MAX_PAGES = 100
_PULL_COMMITS_CAP = 250  # GitHub lists at most this many of a pull request's commits
_SHORT_SHA = 7  # the shortest abbreviated commit a resolution's sha is matched as


@dataclass(frozen=True, slots=True)
class Pull:
    """A branch's pull request: its number and the commit its head points at."""

    number: int
    head: str | None


class PullRequests:
    """The pull requests of a repository, read through its transport."""

    def __init__(self, repo: Repository) -> None:
        self._repo = repo
        self._commits: dict[tuple[int, str], frozenset[str]] = {}  # (pull, head) -> its commits

    def find(self, branch: str) -> Pull | None:
        """The pull request whose head is ``branch`` (an open one, else the newest), with its head.

        From the listing: one request, or two when no open one has the branch.
        """
        head = f"{self._repo.owner}:{branch}"
        lookups: tuple[dict[str, str | int], ...] = (
            {"head": head, "per_page": 1, "state": "open"},
            {"head": head, "per_page": 1, "state": "all", "sort": "updated", "direction": "desc"},
        )
        for params in lookups:
            pulls = self._repo.transport.request(
                "GET", f"{self._repo.base}/pulls", params=params
            ).data
            if isinstance(pulls, list) and pulls and isinstance(pulls[0], dict):
                number = pulls[0].get("number")
                if isinstance(number, int):
                    head_of = pulls[0].get("head")
                    sha = head_of.get("sha") if isinstance(head_of, dict) else None
                    return Pull(number, sha if isinstance(sha, str) else None)
        return None

    def issue_comments(self, pull: int) -> list[JsonObject]:
        """Every issue comment on the pull request, all pages, oldest first.

        Raises:
            UnreadableLedgerError: there are more than maple reads, so a ledger may be unseen.
        """
        found: list[JsonObject] = []
        page = 1
        while True:
            if page > _MAX_PAGES:  # fail closed: an unread page could hold the newest ledger
                raise UnreadableLedgerError(
                    f"Pull request #{pull} has more than {_MAX_PAGES * 100} comments; maple reads "
                    "at most that many, so it cannot tell it has seen every ledger. Delete "
                    "comments that are not needed (spam first), then try again.",
                    store=self._repo.store,
                    operation="list",
                    location=f"pull request #{pull}",
                )
            response = self._repo.transport.request(
                "GET",
                f"{self._repo.base}/issues/{pull}/comments",
                params={"per_page": 100, "page": page},
            )
            items = response.data if isinstance(response.data, list) else []
            found += [c for c in items if isinstance(c, dict)]
            following = _next_page(response.headers.get("link", ""))
            if following is None and len(items) >= 100:
                following = page + 1  # a full page without a Link: look once more
            if following is None or following <= page:
                break
            page = following
        return found

    def by_number(self, pull: int) -> tuple[Pull, str | None]:
        """Pull request ``pull`` with its head commit, and its head branch (one request)."""
        answer = self._repo.transport.request("GET", f"{self._repo.base}/pulls/{pull}").data
        head = answer.get("head") if isinstance(answer, dict) else None
        sha = head.get("sha") if isinstance(head, dict) else None
        ref = head.get("ref") if isinstance(head, dict) else None
        found = Pull(pull, sha if isinstance(sha, str) else None)
        return found, ref if isinstance(ref, str) else None

    def branch_of(self, pull: int) -> str | None:
        """The head branch of pull request ``pull``, or ``None`` when there is none."""
        return self.by_number(pull)[1]

    def on_pull(self, pull: int, sha: str) -> bool | None:
        """Whether ``sha`` (7 characters or more) is on the pull request; ``None`` if unknown."""
        found = self.by_number(pull)[0]
        if found.head is not None and _abbreviates(sha, found.head):
            return True
        commits = self._listed(found)
        return None if commits is None else any(_abbreviates(sha, c) for c in commits)

    def _listed(self, pull: Pull) -> frozenset[str] | None:
        """The pull request's commits, listed once per head; ``None`` when unknown."""
        key = (pull.number, pull.head or "")
        commits = self._commits.get(key)
        if commits is None:
            try:
                listed = self._commits_of(pull.number)
            except GitHubError:
                return None  # unknown: the gate shows no "not pushed" rather than a wrong one
            if listed is None:
                return None
            commits = self._commits[key] = listed
        return commits

    def pushed(self, pull: Pull, comments: Sequence[Comment]) -> frozenset[str] | None:
        """The commits the pull request holds, as far as the resolved ``comments`` ask.

        Resolutions that all name the head (or an abbreviation of it, 7 characters or more) need
        no request: the head alone is the answer. Otherwise the pull request's commits are
        listed (GitHub lists at most 250), once per head: a pull request's commits change only
        with its head. An abbreviated sha that starts one of them counts as pushed, so the gate
        can match resolutions as written. ``None`` (unknown) when the head is unknown, the
        listing fails, or the pull request has more commits than GitHub lists.
        """
        head = pull.head
        if head is None:
            return None
        named = {
            c.resolution.sha
            for c in comments
            if c.status is CommentStatus.RESOLVED and c.resolution is not None
        }
        if all(_abbreviates(sha, head) for sha in named):
            return frozenset({head, *named})
        commits = self._listed(pull)
        if commits is None:
            return None
        return commits | {s for s in named if any(_abbreviates(s, c) for c in commits)}

    def _commits_of(self, pull: int) -> frozenset[str] | None:
        """The pull request's commit shas, every page (``None`` past GitHub's 250)."""
        shas: set[str] = set()
        page = 1
        while True:
            response = self._repo.transport.request(
                "GET",
                f"{self._repo.base}/pulls/{pull}/commits",
                params={"per_page": 100, "page": page},
            )
            items = response.data if isinstance(response.data, list) else []
            for item in items:
                sha = item.get("sha") if isinstance(item, dict) else None
                if isinstance(sha, str):
                    shas.add(sha)
            following = _next_page(response.headers.get("link", ""))
            if following is None or following <= page or page * 100 >= _PULL_COMMITS_CAP:
                break
            page = following
        # At the cap, the list may be cut short: a commit missing from it is not known unpushed.
        return frozenset(shas) if len(shas) < _PULL_COMMITS_CAP else None


def fingerprint(comments: Sequence[JsonObject]) -> Hashable:
    """A change token for a pull request's issue comments (ids, update times, bodies)."""
    return tuple((c.get("id"), c.get("updated_at"), hash(str(c.get("body")))) for c in comments)


def _abbreviates(sha: str, commit: str) -> bool:
    """True when ``sha`` is ``commit`` or an abbreviation of it (7 characters or more)."""
    sha = sha.lower()
    return sha == commit.lower() or (len(sha) >= _SHORT_SHA and commit.lower().startswith(sha))


def _next_page(link: str) -> int | None:
    for part in link.split(","):
        if 'rel="next"' in part:
            url = part.split(";", 1)[0].strip().strip("<>")
            page = parse_qs(urlsplit(url).query).get("page")
            if page and page[0].isdigit():
                return int(page[0])
    return None
