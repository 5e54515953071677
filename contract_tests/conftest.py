"""The adapters the store contract suite runs over: one ``pytest.param`` per adapter."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from contract_tests.claim_racers import RECIPE, Racers, gh_recipe, recipe
from contract_tests.github_peers import TOKEN, api_transport, cli_transport, shared_transport
from contract_tests.support import FakeClock, make_repo
from maple_adapters.files.media import FileMedia
from maple_adapters.files.store import FileCommentStore
from maple_adapters.github.pull_store import PullRequestStore
from maple_adapters.github.review_source import ReviewSource
from maple_adapters.github.shared_transport import SharedTransport
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.tokens import TokenStores
from maple_adapters.memory import InMemoryCommentStore
from maple_adapters.route.http import RouteHttp
from maple_adapters.route.store import RouteCommentStore
from maple_adapters.sql.media import SqlMedia
from maple_adapters.sql.store import SqlCommentStore
from maple_core.classifier_ports import FeedbackClassifier
from maple_core.ports import CommentStore
from maple_core.trust import TrustPolicy
from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.serve import by_bearer_token, served_app
from tests.github.fake_github import FakeGitHub, Served, serve
from tests.loopback import serve_asgi
from tests.sql_support import fresh_repository

StoreFactory = Callable[[FakeClock, Path, pytest.FixtureRequest], CommentStore]
BRANCHES_WITH_PULLS = ("feat/contract", "feat/other")


def _memory(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    return InMemoryCommentStore(clock)


def _file(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    repo = make_repo(tmp / "repo", "feat/contract")
    request.node.stash[RECIPE] = recipe("file", repo=str(repo))
    return FileCommentStore(clock, repo)


def _github(
    clock: FakeClock,
    served: Served,
    transport_name: str,
    tmp: Path,
    request: pytest.FixtureRequest,
) -> CommentStore:
    served.fake.reset()
    for branch in BRANCHES_WITH_PULLS:
        served.fake.open_pull(branch)
    transport = (
        api_transport(served) if transport_name == "api" else cli_transport(served, tmp / "gh")
    )
    request.node.stash[RECIPE] = gh_recipe(served, transport_name, TOKEN, tmp / "gh-racers")
    return GitHubLedgerStore(transport, "acme", "web", clock)


def _github_api(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    return _github(clock, request.getfixturevalue("github_server"), "api", tmp, request)


def _github_cli(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    return _github(clock, request.getfixturevalue("github_server"), "cli", tmp, request)


def review_store(
    clock: FakeClock,
    served: Served,
    kind: str,
    tmp: Path,
    max_age: float = 0.0,
    classifier: FeedbackClassifier | None = None,
) -> PullRequestStore:
    """The GitHub store with the pull request's own review, as maple builds it (answers kept
    ``max_age`` seconds: none by default, so a test never depends on the poll interval), its
    threads' trusted replies read by ``classifier`` when one is given."""
    transport = shared_transport(served, kind, tmp, max_age=max_age)
    assert isinstance(transport, SharedTransport)
    source = ReviewSource(
        transport, "acme", "web", host=served.host, policy=TrustPolicy(), cache=transport.cache
    )
    ledger = GitHubLedgerStore(transport, "acme", "web", clock)
    return PullRequestStore(ledger, source, clock, classifier=classifier)


def _github_review(kind: str) -> StoreFactory:
    def factory(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
        served: Served = request.getfixturevalue("github_server")
        served.fake.reset()
        for branch in BRANCHES_WITH_PULLS:
            served.fake.open_pull(branch)
        return review_store(clock, served, kind, tmp)

    return factory


def _through_route(
    options: RouteOptions, request: pytest.FixtureRequest, token: str | None = None
) -> CommentStore:
    running = serve_asgi(served_app(options))
    request.addfinalizer(gc.collect)  # closes the route's idle GitHub connections at once
    request.addfinalizer(running.stop)
    http = RouteHttp(running.url + "/api/maple", token)
    request.addfinalizer(http.close)
    request.node.stash[RECIPE] = recipe("route", url=running.url + "/api/maple", token=token)
    return RouteCommentStore(http, poll_s=0.05)


def _route_file(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    repo = make_repo(tmp / "repo", "feat/contract")
    options = RouteOptions(store=FileCommentStore(clock, repo), media=FileMedia(repo), clock=clock)
    return _through_route(options, request)


def _route_github(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    served: Served = request.getfixturevalue("github_server")
    served.fake.reset()
    for branch in BRANCHES_WITH_PULLS:
        served.fake.open_pull(branch)
    stores = TokenStores(
        lambda token: GitHubLedgerStore(api_transport(served, token), "acme", "web", clock)
    )
    options = RouteOptions(store=by_bearer_token(stores.for_token), clock=clock)
    return _through_route(options, request, TOKEN)


def _sql_sqlite(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    return SqlCommentStore(request.getfixturevalue("sqlite_database"), clock, fresh_repository())


def _sql_postgres(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    return SqlCommentStore(request.getfixturevalue("postgres_database"), clock, fresh_repository())


def _route_sql(clock: FakeClock, tmp: Path, request: pytest.FixtureRequest) -> CommentStore:
    database = request.getfixturevalue("postgres_database")
    repository = fresh_repository()
    store = SqlCommentStore(database, clock, repository)
    options = RouteOptions(store=store, media=SqlMedia(database, repository), clock=clock)
    return _through_route(options, request)


STORE_ADAPTERS = [
    pytest.param(_memory, id="memory"),
    pytest.param(_file, id="file"),
    pytest.param(_github_api, id="github-api"),
    pytest.param(_github_cli, id="github-cli"),
    # The store with the pull request's own review, over PyGithub; its review half runs over
    # both transports in test_pull_request_review.py (the whole suite over gh again would add
    # three minutes to a run for what github-cli already shows of the ledger's half).
    pytest.param(_github_review("api"), id="github-review-api"),
    pytest.param(_route_file, id="route-file"),
    pytest.param(_route_github, id="route-github"),
    pytest.param(_sql_sqlite, id="sql-sqlite"),
    pytest.param(_sql_postgres, id="sql-postgres"),
    pytest.param(_route_sql, id="route-sql"),
]
"""Every comment-store adapter. A new adapter is one new entry here."""

OFFLINE_STORE_ADAPTERS = [
    pytest.param(_file, id="file"),
    pytest.param(_sql_sqlite, id="sql-sqlite"),
    pytest.param(_sql_postgres, id="sql-postgres"),
]
"""The adapters the agreement state machine compares with the reference, step by step: those
that answer quickly enough for thousands of steps."""


@pytest.fixture(scope="session")
def github_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One fake GitHub over HTTPS for the whole run; each store resets it."""
    served = serve(FakeGitHub(), tmp_path_factory.mktemp("fake-github"))
    yield served
    served.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=STORE_ADAPTERS)
def store_factory(request: pytest.FixtureRequest) -> StoreFactory:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def store(
    store_factory: StoreFactory, clock: FakeClock, tmp_path: Path, request: pytest.FixtureRequest
) -> CommentStore:
    return store_factory(clock, tmp_path, request)


@pytest.fixture
def racers(store: CommentStore, request: pytest.FixtureRequest) -> Racers:
    """Claimants of ``store`` in other processes (threads, for a store no process shares)."""
    return Racers(store, request.node.stash.get(RECIPE, None))
