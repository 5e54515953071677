"""The fake GitHub's pull-request reviews: review comments, reviews, threads and reactions.

REST shapes as GitHub documents them: review comments with ``in_reply_to_id`` (always the
thread's first comment: GitHub does not nest replies), ``position``/``line``/``original_line``
(``position`` and ``line`` are ``null`` once the line left the diff, and the thread is outdated),
``diff_hunk``, ``author_association``, ``html_url`` and a ``reactions`` summary; reviews with their
states, a ``PENDING`` review (and its comments) visible to its author only; reactions listed and
created per comment. Threads' resolution is GraphQL's alone (``fake_graphql``): REST shows no
trace of it, as on GitHub.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

if TYPE_CHECKING:
    from tests.github.fake_github import Repo

REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
REVIEW_STATES = ("PENDING", "COMMENTED", "APPROVED", "CHANGES_REQUESTED", "DISMISSED")
HUNK = "@@ -8,6 +8,9 @@ def render(page):\n     header = page.header\n+    header.wrap = True\n"


@dataclass
class Thread:
    """A review thread: its GraphQL id, its first comment, and whether it is resolved."""

    node_id: str
    root: int
    pull: int
    resolved: bool = False
    resolved_by: str | None = None


def user_json(login: str) -> dict[str, Any]:
    """A simple user as GitHub sends it; an App's bot (``name[bot]``) is of type ``Bot``."""
    number = zlib.crc32(login.encode())
    bot = login.endswith("[bot]")
    return {
        "login": login,
        "id": number,
        "node_id": f"{'BOT' if bot else 'U'}_{number}",
        "type": "Bot" if bot else "User",
        "site_admin": False,
        "html_url": f"https://github.example/{login}",
    }


class PullReviews:
    """Review comments, reviews, threads and reactions, mixed into ``FakeGitHub``."""

    # -- state, for tests ------------------------------------------------------------------

    def add_review(
        self,
        number: int,
        login: str,
        state: str = "COMMENTED",
        body: str = "",
        comments: tuple[dict[str, Any], ...] = (),
        owner: str = "acme",
        name: str = "web",
    ) -> dict[str, Any]:
        """Submit a review as ``login`` (``PENDING`` keeps it a draft), with line comments.

        Each of ``comments`` is ``{"body", "path"?, "line"?}`` and starts a thread.
        """
        assert state in REVIEW_STATES, state
        with self.lock:
            repo = self.repo(owner, name)
            review = self._new_review(repo, number, login, state, body)
            for comment in comments:
                self._new_review_comment(
                    repo,
                    number,
                    login,
                    comment["body"],
                    path=comment.get("path", "src/app.py"),
                    line=comment.get("line", 10),
                    review_id=review["id"],
                )
            return review

    def add_review_comment(
        self,
        number: int,
        login: str,
        body: str,
        path: str = "src/app.py",
        line: int = 10,
        owner: str = "acme",
        name: str = "web",
    ) -> dict[str, Any]:
        """A single line comment, starting a thread (GitHub files it as a ``COMMENTED`` review)."""
        with self.lock:
            repo = self.repo(owner, name)
            review = self._new_review(repo, number, login, "COMMENTED", "")
            return self._new_review_comment(
                repo, number, login, body, path=path, line=line, review_id=review["id"]
            )

    def reply_review_comment(
        self, number: int, root: int, login: str, body: str, owner: str = "acme", name: str = "web"
    ) -> dict[str, Any]:
        """Reply as ``login`` in the thread whose first comment is ``root``."""
        with self.lock:
            repo = self.repo(owner, name)
            review = self._new_review(repo, number, login, "COMMENTED", "")
            return self._new_review_comment(
                repo, number, login, body, review_id=review["id"], in_reply_to=root
            )

    def review_comments(
        self, number: int, owner: str = "acme", name: str = "web"
    ) -> list[dict[str, Any]]:
        """A pull request's review comments as stored: oldest first, a pending review's too."""
        return [c for c in self.repo(owner, name).review_comments if c["_pull"] == number]

    def thread(self, root: int, owner: str = "acme", name: str = "web") -> Thread:
        """The thread whose first comment is ``root``."""
        return next(t for t in self.repo(owner, name).threads if t.root == root)

    def set_resolved(
        self, root: int, resolved: bool, by: str = "someone", owner: str = "acme", name: str = "web"
    ) -> Thread:
        """Resolve or unresolve a thread as ``by`` would on GitHub's page."""
        with self.lock:
            found = self.thread(root, owner, name)
            found.resolved, found.resolved_by = resolved, by if resolved else None
            return found

    def outdate(self, root: int, owner: str = "acme", name: str = "web") -> None:
        """A push moved the thread's line out of the diff: GitHub then marks it outdated."""
        with self.lock:
            for comment in self.repo(owner, name).review_comments:
                if comment["id"] == root or comment.get("in_reply_to_id") == root:
                    comment["position"] = None
                    comment["line"] = None

    def edit_review_comment(
        self, comment_id: int, body: str, owner: str = "acme", name: str = "web"
    ) -> dict[str, Any]:
        """Its author edits a review comment: the body and ``updated_at`` change."""
        with self.lock:
            comment = self._review_comment(self.repo(owner, name), comment_id)
            assert comment is not None
            comment["body"] = body
            comment["updated_at"] = self._now()
            return comment

    def edit_issue_comment(
        self, comment_id: int, body: str, owner: str = "acme", name: str = "web"
    ) -> dict[str, Any]:
        """Its author edits an issue comment: the body and ``updated_at`` change."""
        with self.lock:
            for comments in self.repo(owner, name).comments.values():
                for comment in comments:
                    if comment["id"] == comment_id:
                        comment["body"] = body
                        comment["updated_at"] = self._now()
                        return comment
        raise KeyError(comment_id)

    def submit_review(self, review_id: int, state: str, owner: str = "acme", name: str = "web"):
        """Submit a pending review (or change a review's state, ``DISMISSED`` say)."""
        with self.lock:
            review = self._review(self.repo(owner, name), review_id)
            assert review is not None
            review["state"] = state
            review.setdefault("submitted_at", self._now())
            return review

    def react(
        self,
        comment_id: int,
        login: str,
        content: str = "+1",
        kind: str = "issue",
        owner: str = "acme",
        name: str = "web",
    ) -> dict[str, Any]:
        """React as ``login`` to an issue comment (``kind="issue"``) or a review comment."""
        with self.lock:
            return self._add_reaction(self.repo(owner, name), (kind, comment_id), login, content)

    def react_to_review(
        self,
        review_id: int,
        login: str,
        content: str = "+1",
        owner: str = "acme",
        name: str = "web",
    ) -> dict[str, Any]:
        """React to a review (GraphQL shows it; REST has no reactions on reviews)."""
        with self.lock:
            return self._add_reaction(self.repo(owner, name), ("review", review_id), login, content)

    def unreact(self, reaction_id: int, owner: str = "acme", name: str = "web") -> None:
        """Take a reaction back."""
        with self.lock:
            for listed in self.repo(owner, name).reactions.values():
                listed[:] = [r for r in listed if r["id"] != reaction_id]

    # -- building records ------------------------------------------------------------------

    @property
    def web_root(self) -> str:
        """Where people see the repository: the API root without ``/api/v3`` (as on GHES)."""
        return self.base_url.removesuffix("/api/v3") or "https://github.example"

    def _head(self, repo: Repo, number: int) -> str:
        return next(p.head_sha for p in repo.pulls if p.number == number)

    def _new_review(
        self, repo: Repo, number: int, login: str, state: str, body: str
    ) -> dict[str, Any]:
        review_id = self._id()
        html = f"{self.web_root}/acme/web/pull/{number}#pullrequestreview-{review_id}"
        pull_url = f"{self.base_url}/repos/acme/web/pulls/{number}"
        review: dict[str, Any] = {
            "id": review_id,
            "node_id": f"PRR_{review_id}",
            "user": user_json(login),
            "body": body,
            "state": state,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": repo.associations.get(login, "NONE"),
            "_links": {"html": {"href": html}, "pull_request": {"href": pull_url}},
            "commit_id": self._head(repo, number),
        }
        if state != "PENDING":
            review["submitted_at"] = self._now()
        repo.reviews.setdefault(number, []).append(review)
        return review

    def _new_review_comment(
        self,
        repo: Repo,
        number: int,
        login: str,
        body: str,
        *,
        review_id: int,
        path: str = "src/app.py",
        line: int = 10,
        in_reply_to: int | None = None,
    ) -> dict[str, Any]:
        root = self._review_comment(repo, in_reply_to) if in_reply_to is not None else None
        if in_reply_to is not None and root is None:
            raise KeyError(in_reply_to)
        comment_id = self._id()
        stamp = self._now()
        url = f"{self.base_url}/repos/acme/web/pulls/comments/{comment_id}"
        html = f"{self.web_root}/acme/web/pull/{number}#discussion_r{comment_id}"
        pull_url = f"{self.base_url}/repos/acme/web/pulls/{number}"
        head = self._head(repo, number)
        where = root or {
            "path": path,
            "line": line,
            "original_line": line,
            "position": 3,
            "original_position": 3,
            "diff_hunk": HUNK,
            "commit_id": head,
            "original_commit_id": head,
        }
        comment: dict[str, Any] = {
            "url": url,
            "pull_request_review_id": review_id,
            "id": comment_id,
            "node_id": f"PRRC_{comment_id}",
            "diff_hunk": where["diff_hunk"],
            "path": where["path"],
            "position": where["position"],
            "original_position": where["original_position"],
            "commit_id": where["commit_id"],
            "original_commit_id": where["original_commit_id"],
            "user": user_json(login),
            "body": body,
            "created_at": stamp,
            "updated_at": stamp,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": repo.associations.get(login, "NONE"),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "line": where["line"],
            "original_line": where["original_line"],
            "side": "RIGHT",
            "subject_type": "line",
            "_pull": number,
        }
        if root is not None:
            comment["in_reply_to_id"] = root["id"]
        repo.review_comments.append(comment)
        if root is None:
            repo.threads.append(Thread(f"PRRT_{comment_id}", comment_id, number))
        return comment

    def _add_reaction(
        self, repo: Repo, target: tuple[str, int], login: str, content: str
    ) -> dict[str, Any]:
        assert content in REACTIONS, content
        listed = repo.reactions.setdefault(target, [])
        for reaction in listed:
            if reaction["user"]["login"] == login and reaction["content"] == content:
                return reaction
        reaction_id = self._id()
        reaction = {
            "id": reaction_id,
            "node_id": f"REA_{reaction_id}",
            "user": user_json(login),
            "content": content,
            "created_at": self._now(),
        }
        listed.append(reaction)
        return reaction

    def _rollup(self, repo: Repo, target: tuple[str, int], url: str) -> dict[str, Any]:
        listed = repo.reactions.get(target, [])
        counts: dict[str, Any] = {"url": f"{url}/reactions", "total_count": len(listed)}
        for content in REACTIONS:
            counts[content] = sum(1 for r in listed if r["content"] == content)
        return counts

    def _review(self, repo: Repo, review_id: int) -> dict[str, Any] | None:
        for reviews in repo.reviews.values():
            for review in reviews:
                if review["id"] == review_id:
                    return review
        return None

    def _review_comment(self, repo: Repo, comment_id: int | None) -> dict[str, Any] | None:
        return next((c for c in repo.review_comments if c["id"] == comment_id), None)

    def visible_to(self, repo: Repo, comment: dict[str, Any], login: str) -> bool:
        """A pending review's comments are its author's alone."""
        review = self._review(repo, comment["pull_request_review_id"])
        pending = review is not None and review["state"] == "PENDING"
        return not pending or comment["user"]["login"] == login

    def review_comment_json(self, repo: Repo, comment: dict[str, Any]) -> dict[str, Any]:
        """A review comment as the REST API answers it."""
        shown = {k: v for k, v in comment.items() if not k.startswith("_")}
        shown["reactions"] = self._rollup(repo, ("pull", comment["id"]), comment["url"])
        return shown

    def issue_comment_json(self, repo: Repo, comment: dict[str, Any]) -> dict[str, Any]:
        """An issue comment as the REST API answers it (with its reactions' summary)."""
        return {
            **comment,
            "reactions": self._rollup(repo, ("issue", comment["id"]), comment["url"]),
        }

    # -- REST ------------------------------------------------------------------------------

    def review_routes(self) -> list[Any]:
        from starlette.routing import Route

        r = "/api/v3/repos/{owner}/{repo}"
        return [
            Route(r + "/pulls/{number:int}/comments", self.list_review_comments),
            Route(
                r + "/pulls/{number:int}/comments/{comment_id:int}/replies",
                self.create_reply,
                methods=["POST"],
            ),
            Route(
                r + "/pulls/comments/{comment_id:int}",
                self.one_review_comment,
                methods=["GET", "PATCH", "DELETE"],
            ),
            Route(r + "/pulls/{number:int}/reviews", self.list_reviews),
            Route(r + "/pulls/{number:int}/reviews/{review_id:int}", self.get_review),
            Route(
                r + "/pulls/{number:int}/reviews/{review_id:int}/dismissals",
                self.dismiss_review,
                methods=["PUT"],
            ),
            Route(
                r + "/issues/comments/{comment_id:int}/reactions",
                self.reactions_endpoint,
                methods=["GET", "POST"],
            ),
            Route(
                r + "/pulls/comments/{comment_id:int}/reactions",
                self.reactions_endpoint,
                methods=["GET", "POST"],
            ),
            Route(
                r + "/issues/comments/{comment_id:int}/reactions/{reaction_id:int}",
                self.reactions_endpoint,
                methods=["DELETE"],
            ),
            Route(
                r + "/pulls/comments/{comment_id:int}/reactions/{reaction_id:int}",
                self.reactions_endpoint,
                methods=["DELETE"],
            ),
        ]

    def _pull_of(self, request: Request) -> tuple[Repo | None, int]:
        repo = self._repo_of(request)
        number = request.path_params.get("number", 0)
        if repo is None or (
            "number" in request.path_params and not any(p.number == number for p in repo.pulls)
        ):
            return None, number
        return repo, number

    async def list_review_comments(self, request: Request) -> Response:
        """``GET /repos/{o}/{r}/pulls/{n}/comments``: oldest first, paged, pending ones hidden."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo, number = self._pull_of(request)
        if repo is None:
            return self._not_found(request)
        login = self.login_of(self._token(request))
        with self.lock:
            items = [
                self.review_comment_json(repo, c)
                for c in repo.review_comments
                if c["_pull"] == number and self.visible_to(repo, c, login)
            ]
        if request.query_params.get("direction") == "desc":
            items.reverse()
        return self._paged(request, items)

    async def create_reply(self, request: Request) -> Response:
        """``POST /repos/{o}/{r}/pulls/{n}/comments/{id}/replies``: a reply in that thread."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo, number = self._pull_of(request)
        if repo is None:
            return self._not_found(request)
        payload = await request.json()
        body = payload.get("body") if isinstance(payload, dict) else None
        if not isinstance(body, str) or not body:
            return self._validation_failed(request, "body", "missing_field")
        login = self.login_of(self._token(request))
        with self.lock:
            target = self._review_comment(repo, request.path_params["comment_id"])
            if target is None or target["_pull"] != number:
                return self._not_found(request)
            root = target.get("in_reply_to_id", target["id"])
            review = self._new_review(repo, number, login, "COMMENTED", "")
            created = self._new_review_comment(
                repo, number, login, body, review_id=review["id"], in_reply_to=root
            )
            shown = self.review_comment_json(repo, created)
        return self._answer(request, 201, shown)

    async def one_review_comment(self, request: Request) -> Response:
        """``GET|PATCH|DELETE /repos/{o}/{r}/pulls/comments/{id}``; only its author changes it."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        login = self.login_of(self._token(request))
        with self.lock:
            comment = (
                self._review_comment(repo, request.path_params["comment_id"]) if repo else None
            )
            if comment is None or repo is None or not self.visible_to(repo, comment, login):
                return self._not_found(request)
            if request.method == "GET":
                return self._answer(request, 200, self.review_comment_json(repo, comment))
            if comment["user"]["login"] != login:
                return self._answer(
                    request,
                    403,
                    {
                        "message": "Must be the comment's author.",
                        "documentation_url": "https://docs.github.com/rest",
                    },
                )
            if request.method == "DELETE":
                repo.review_comments.remove(comment)
                return self._answer(request, 204, None)
        payload = await request.json()
        with self.lock:
            comment["body"] = payload["body"]
            comment["updated_at"] = self._now()
            shown = self.review_comment_json(repo, comment)
        return self._answer(request, 200, shown)

    async def list_reviews(self, request: Request) -> Response:
        """``GET /repos/{o}/{r}/pulls/{n}/reviews``: oldest first, a pending one to its author."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo, number = self._pull_of(request)
        if repo is None:
            return self._not_found(request)
        login = self.login_of(self._token(request))
        with self.lock:
            items = [
                dict(r)
                for r in repo.reviews.get(number, [])
                if r["state"] != "PENDING" or r["user"]["login"] == login
            ]
        return self._paged(request, items)

    async def get_review(self, request: Request) -> Response:
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo, _ = self._pull_of(request)
        login = self.login_of(self._token(request))
        review = self._review(repo, request.path_params["review_id"]) if repo else None
        if review is None or (review["state"] == "PENDING" and review["user"]["login"] != login):
            return self._not_found(request)
        return self._answer(request, 200, dict(review))

    async def dismiss_review(self, request: Request) -> Response:
        """``PUT .../reviews/{id}/dismissals``: needs push access; a pending review cannot be."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo, _ = self._pull_of(request)
        review = self._review(repo, request.path_params["review_id"]) if repo else None
        if review is None:
            return self._not_found(request)
        if self.access.get(self._token(request), "push") != "push":
            return self._answer(
                request, 403, {"message": "Must have push access to dismiss a review."}
            )
        if review["state"] == "PENDING":
            return self._answer(request, 422, {"message": "Can not dismiss a pending review"})
        with self.lock:
            review["state"] = "DISMISSED"
        return self._answer(request, 200, dict(review))

    async def reactions_endpoint(self, request: Request) -> Response:
        """``GET|POST .../comments/{id}/reactions`` (and ``DELETE …/{reaction_id}``) for issue
        and review comments."""
        guard = self._guard(request)
        if isinstance(guard, Response):
            return guard
        repo = self._repo_of(request)
        kind = "pull" if "/pulls/comments/" in request.url.path else "issue"
        comment_id = request.path_params["comment_id"]
        if repo is None or not self._comment_exists(repo, kind, comment_id):
            return self._not_found(request)
        if request.method == "DELETE":
            return self._delete_reaction(request, repo.reactions.get((kind, comment_id), []))
        if request.method == "GET":
            content = request.query_params.get("content")
            with self.lock:
                listed = [
                    dict(r)
                    for r in repo.reactions.get((kind, comment_id), [])
                    if content is None or r["content"] == content
                ]
            return self._paged(request, listed)
        payload = await request.json()
        content = payload.get("content") if isinstance(payload, dict) else None
        if content not in REACTIONS:
            return self._validation_failed(request, "content", "invalid")
        login = self.login_of(self._token(request))
        with self.lock:
            before = len(repo.reactions.get((kind, comment_id), []))
            reaction = self._add_reaction(repo, (kind, comment_id), login, content)
            created = len(repo.reactions[(kind, comment_id)]) > before
        return self._answer(request, 201 if created else 200, dict(reaction))

    def _delete_reaction(self, request: Request, listed: list[dict[str, Any]]) -> Response:
        """``DELETE .../reactions/{reaction_id}``: ``204``, or ``404`` when it is not there."""
        reaction_id = request.path_params["reaction_id"]
        with self.lock:
            kept = [r for r in listed if r["id"] != reaction_id]
            if len(kept) == len(listed):
                return self._not_found(request)
            listed[:] = kept
        return self._answer(request, 204, None)

    def _comment_exists(self, repo: Repo, kind: str, comment_id: int) -> bool:
        if kind == "pull":
            return self._review_comment(repo, comment_id) is not None
        return any(c["id"] == comment_id for cs in repo.comments.values() for c in cs)

    def _validation_failed(self, request: Request, field: str, code: str) -> Response:
        return self._answer(
            request,
            422,
            {"message": "Validation Failed", "errors": [{"field": field, "code": code}]},
        )
