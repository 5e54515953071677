"""The GitHub store over both transports: Maple's ledger rules, racing writers, failures, tokens."""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract_tests.github_peers import TOKEN, api_transport, cli_transport
from contract_tests.support import FakeClock
from maple_adapters.github.ledger import github_length
from maple_adapters.github.parsing import parse_ledger_body
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.transport import GitHubTransport
from maple_core.anchors import Anchor
from maple_core.comments import NewComment, Resolution
from maple_core.errors import (
    LedgerFullError,
    MapleError,
    NotFoundError,
    StoreRejectedError,
    StoreUnavailableError,
)
from maple_core.gate import GatePolicy, decide_gate
from maple_core.listing import list_all
from maple_core.paging import ListQuery
from maple_core.statuses import CommentStatus
from tests.github.fake_github import FakeGitHub, Fault, Served

SECRET = "ghp_recognisable_secret_token_0123456789"


def fake_github() -> FakeGitHub:
    """The fake GitHub this module's tests share (``served`` in tests/conftest.py runs it)."""
    return FakeGitHub(tokens={TOKEN: 1, SECRET: 1})


@pytest.fixture(params=["api", "cli"])
def transport_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_transport(served: Served, name: str, tmp: Path, token: str = TOKEN) -> GitHubTransport:
    return (
        api_transport(served, token) if name == "api" else cli_transport(served, tmp / "gh", token)
    )


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull("feat/x")
    return served.fake


def store_for(served: Served, name: str, tmp: Path, token: str = TOKEN) -> GitHubLedgerStore:
    return GitHubLedgerStore(make_transport(served, name, tmp, token), "acme", "web", FakeClock())


def new(body: str, branch: str = "feat/x") -> NewComment:
    return NewComment(branch=branch, body=body, anchor=Anchor(extra={"kind": "page"}))


def test_appends_repost_one_ledger_and_leave_other_comments_alone(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    fake.add_comment(1, "Looks good to me")
    store = store_for(served, transport_name, tmp_path)
    for body in ("first", "second", "third"):
        store.append(new(body))
    comments = fake.issue_comments(1)
    assert comments[0]["body"] == "Looks good to me"
    ledgers = [c for c in comments if "```maple" in c["body"]]
    assert len(ledgers) == 1
    parsed = parse_ledger_body(ledgers[0]["body"])
    assert parsed is not None
    assert [c.body for c in parsed.comments] == ["first", "second", "third"]
    assert [c.id for c in parsed.comments] == ["gh_1_1", "gh_1_2", "gh_1_3"]
    writes = [(m, p) for m, p, _ in fake.requests if m in ("POST", "DELETE", "PATCH")]
    assert [m for m, _ in writes[-2:]] == ["POST", "DELETE"]


def test_a_resolve_edits_in_place(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    store = store_for(served, transport_name, tmp_path)
    stored = store.append(new("fix"))
    ledger_id = next(c["id"] for c in fake.issue_comments(1) if "```maple" in c["body"])
    store.set_status(stored.id, CommentStatus.RESOLVED)
    [ledger] = [c for c in fake.issue_comments(1) if "```maple" in c["body"]]
    assert ledger["id"] == ledger_id
    assert "| Resolved |" in ledger["body"]


def test_no_pull_request_means_nothing_to_list_and_nowhere_to_post(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    store = store_for(served, transport_name, tmp_path)
    assert store.list(ListQuery(branch="no-pull/x")).comments == ()
    assert store.head("no-pull/x") is None
    with pytest.raises(NotFoundError, match="No pull request for branch no-pull/x"):
        store.append(new("x", branch="no-pull/x"))


def test_ids_that_are_not_githubs_are_refused(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    store = store_for(served, "api", tmp_path)
    with pytest.raises(NotFoundError, match="Not a GitHub comment id: mem_1"):
        store.set_status("mem_1", CommentStatus.RESOLVED)
    with pytest.raises(NotFoundError, match="No Maple record gh_1_999999"):
        store.set_status("gh_1_999999", CommentStatus.RESOLVED)
    with pytest.raises(NotFoundError, match="Not a GitHub approval id"):
        store.unapprove("app_1")


def test_head_is_the_pull_requests_head(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    assert (
        store_for(served, transport_name, tmp_path).head("feat/x") == fake.repo().pulls[0].head_sha
    )


def test_two_writers_racing_lose_nothing(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    writers = [store_for(served, transport_name, tmp_path / f"w{i}") for i in range(2)]
    errors: list[BaseException] = []

    def write(store: GitHubLedgerStore, tag: str) -> None:
        try:
            for i in range(20):
                store.append(new(f"{tag}{i}"))
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(w, t)) for w, t in zip(writers, "ab", strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    bodies = [c.body for c in list_all(writers[0], "feat/x")]
    assert sorted(bodies) == sorted([f"a{i}" for i in range(20)] + [f"b{i}" for i in range(20)])
    assert len({c.id for c in list_all(writers[0], "feat/x")}) == 40
    writers[0].append(new("consolidate"))
    ledgers = [c for c in fake.issue_comments(1) if "```maple" in c["body"]]
    assert len(ledgers) == 1


def test_server_errors_are_retried_and_rate_limits_name_the_reset(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    store = store_for(served, transport_name, tmp_path)
    fake.faults.append(Fault("GET", "/pulls", 502, {"message": "Bad Gateway"}, times=2))
    assert store.list(ListQuery(branch="feat/x")).comments == ()
    fake.faults.append(
        Fault(
            "GET",
            "/pulls",
            403,
            {"message": "API rate limit exceeded"},
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "4102444800"},
            times=5,
        )
    )
    with pytest.raises(
        StoreUnavailableError, match=r"GitHub 403 .*API rate limit exceeded.*resets at"
    ):
        store.list(ListQuery(branch="feat/x"))


def test_a_short_retry_after_is_waited_out(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    store = store_for(served, "api", tmp_path)
    fake.faults.append(
        Fault("GET", "/pulls", 429, {"message": "secondary rate limit"}, {"retry-after": "1"})
    )
    assert store.list(ListQuery(branch="feat/x")).comments == ()


def test_a_rejected_token_names_the_fix_and_never_the_token(
    served: Served,
    fake: FakeGitHub,
    transport_name: str,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    store = store_for(served, transport_name, tmp_path, token="ghp_wrong_" + SECRET[10:])
    with pytest.raises(MapleError) as caught:
        store.append(new("x"))
    message = str(caught.value)
    assert "GitHub 401" in message
    assert "GITHUB_TOKEN" in message
    out, err = capfd.readouterr()
    for text in (message, repr(caught.value), out, err, repr(store.transport)):
        assert SECRET[10:] not in text
    config = tmp_path / "gh"
    if config.exists():
        for path in config.rglob("*"):
            if path.is_file():
                assert SECRET[10:] not in path.read_text(errors="replace")


def test_an_unreachable_github_is_unavailable_without_the_token(tmp_path: Path) -> None:
    from maple_adapters.github.conditional import ConditionalTransport
    from maple_adapters.github.transport import PyGithubTransport
    from maple_adapters.github.wrappers import ResilientTransport

    inner = PyGithubTransport(SECRET, base_url="https://127.0.0.1:9/api/v3")
    transport = ConditionalTransport(
        ResilientTransport(inner, secrets=[SECRET], sleep=lambda _: None)
    )
    store = GitHubLedgerStore(transport, "acme", "web", FakeClock())
    with pytest.raises(StoreUnavailableError) as caught:
        store.list(ListQuery(branch="feat/x"))
    assert "could not be reached" in str(caught.value)
    assert SECRET not in str(caught.value) + repr(caught.value)


def test_an_idle_wait_costs_no_rate_limit_after_the_first_look(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    store = store_for(served, transport_name, tmp_path)
    store.append(new("x"))
    signal = store.changes("feat/x")
    token = signal.token()
    list_all(store, "feat/x")
    counted = fake.counted
    assert signal.wait(token, 4.5) is False
    list_all(store, "feat/x")
    assert fake.counted == counted
    assert any(status == 304 for _, _, status in fake.requests)


STATUSES = st.sampled_from(list(CommentStatus))


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(statuses=st.lists(STATUSES, max_size=5))
def test_both_transports_give_the_same_verdict(
    served: Served, tmp_path: Path, statuses: list[CommentStatus]
) -> None:
    verdicts = []
    for name in ("api", "cli"):
        served.fake.reset()
        served.fake.open_pull("feat/x")
        store = store_for(served, name, tmp_path)
        for i, status in enumerate(statuses):
            stored = store.append(new(f"c{i}"))
            if status is not CommentStatus.OPEN:
                store.set_status(stored.id, status)
        verdicts.append(
            decide_gate(list_all(store, "feat/x"), GatePolicy(commit=store.head("feat/x")))
        )
    assert verdicts[0] == verdicts[1]


def test_a_batch_is_one_post_and_pages_use_decimal_cursors(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    store = store_for(served, "api", tmp_path)
    store.append_many([new("one"), new("two"), new("three")])
    assert [m for m, _, _ in fake.requests].count("POST") == 1
    store.append_many([])
    assert [m for m, _, _ in fake.requests].count("POST") == 1
    first = store.list(ListQuery(branch="feat/x", limit=2))
    assert first.cursor == "2"
    assert store.list(ListQuery(branch="feat/x", limit=2, cursor="2")).cursor is None


def test_other_comments_and_an_empty_foreign_fence_are_not_ledgers(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_comment(1, "Nice work")
    fake.add_comment(1, "```maple\n```")
    assert store_for(served, "api", tmp_path).list(ListQuery(branch="feat/x")).comments == ()


def test_an_html_502_that_persists_names_the_status(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    fake.faults.append(
        Fault("GET", "/pulls", 502, {"message": "<html>Bad Gateway</html>"}, times=3)
    )
    with pytest.raises(StoreUnavailableError, match="GitHub 502"):
        store_for(served, transport_name, tmp_path).list(ListQuery(branch="feat/x"))


def test_a_body_that_spells_a_fence_does_not_break_the_ledger(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    store = store_for(served, "api", tmp_path)
    store.append(new("use a\n```maple\nblock here"))
    store.append(new("after"))
    assert [c.body for c in store.list(ListQuery(branch="feat/x")).comments] == [
        "use a\n```maple\nblock here",
        "after",
    ]


def test_racing_resolves_and_appends_all_land(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    setup = store_for(served, transport_name, tmp_path / "setup")
    first, second = setup.append_many([new("one"), new("two")])
    actors = [store_for(served, transport_name, tmp_path / f"a{i}") for i in range(3)]
    errors: list[BaseException] = []

    def run(action: object) -> None:
        try:
            action()  # type: ignore[operator]
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(
            target=run, args=(lambda: actors[0].set_status(first.id, CommentStatus.RESOLVED),)
        ),
        threading.Thread(
            target=run, args=(lambda: actors[1].set_status(second.id, CommentStatus.RESOLVED),)
        ),
        threading.Thread(target=run, args=(lambda: actors[2].append(new("three")),)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    final = {c.body: c.status for c in list_all(setup, "feat/x")}
    assert final == {
        "one": CommentStatus.RESOLVED,
        "two": CommentStatus.RESOLVED,
        "three": CommentStatus.OPEN,
    }


def test_a_withdrawn_approval_stays_withdrawn_when_a_stale_ledger_survives(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    from maple_core.approvals import NewApproval

    store = store_for(served, "api", tmp_path)
    approval = store.approve(
        NewApproval("feat/x", "9f2c1ab", "2026-01-01T00:00:00.000Z", {"name": "Dana"})
    )
    fake.faults.append(Fault("DELETE", "/issues/comments/", 500, {"message": "boom"}, times=10))
    store.append(new("a comment that reposts the ledger"))  # the old ledger survives
    store.unapprove(approval.id)
    assert len([c for c in fake.issue_comments(1) if "```maple" in c["body"]]) >= 2
    assert store.approvals("feat/x") == []


def test_many_long_comments_stay_under_githubs_body_limit(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    store = store_for(served, "api", tmp_path)
    store.append_many([new(f"{i:02}: " + "word " * 60) for i in range(90)])  # over the fence budget
    [ledger] = [c["body"] for c in fake.issue_comments(1) if "```maple" in c["body"]]
    assert github_length(ledger) <= 65_536
    assert "more comment(s), in the block below." in ledger
    assert len(list_all(store, "feat/x")) == 90


def test_a_token_github_echoes_back_is_scrubbed(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.faults.append(Fault("GET", "/pulls", 400, {"message": f"bad header: token {TOKEN}"}))
    with pytest.raises(StoreRejectedError) as caught:
        store_for(served, "api", tmp_path).list(ListQuery(branch="feat/x"))
    assert "GitHub 400" in str(caught.value)
    assert TOKEN not in str(caught.value)


class SteppingClock(FakeClock):
    """A clock whose sleeps take no time: they move its monotonic clock and are recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)


def test_the_stores_clock_drives_its_change_signal_and_its_pauses(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    clock = SteppingClock()
    store = GitHubLedgerStore(make_transport(served, "api", tmp_path), "acme", "web", clock)
    stored = store.append(new("x"))
    signal = store.changes("feat/x")
    token = signal.token()
    fake.requests.clear()
    started = time.monotonic()
    assert signal.wait(token, 9.0) is False
    assert time.monotonic() - started < 5  # nine seconds on the clock, not on the wall
    assert sum(clock.slept) == pytest.approx(9.0)
    assert [path.rsplit("/", 1)[-1] for _, path, _ in fake.requests] == ["pulls", "comments"] * 4
    clock.slept.clear()
    store.set_status(stored.id, CommentStatus.RESOLVED)
    assert clock.slept == [0.25]  # the edit is read back a moment later, on the clock


def test_a_missing_or_silent_gh_is_unavailable(tmp_path: Path) -> None:
    from maple_adapters.github.transport import GhCliTransport, GitHubUnavailableError

    missing = GhCliTransport(executable=str(tmp_path / "no-gh"))
    with pytest.raises(GitHubUnavailableError, match=r"gh CLI .* is not installed"):
        missing.request("GET", "/user")

    def silent(command: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
        raise subprocess.TimeoutExpired(command, 10)

    with pytest.raises(GitHubUnavailableError, match=r"gh api GET /user did not answer within"):
        GhCliTransport(runner=silent).request("GET", "/user")


NOW = "2026-01-01T00:00:00.000Z"
LONG = 'A "quoted" line.\n\t' * 450  # 9,000 characters that cost far more once JSON-escaped


def ledger_bodies(fake: FakeGitHub) -> list[str]:
    return [c["body"] for c in fake.issue_comments(1) if "```maple" in c["body"]]


def test_a_ledger_is_never_sent_over_githubs_body_limit(
    served: Served, fake: FakeGitHub, transport_name: str, tmp_path: Path
) -> None:
    """Long comments fill the ledger: every one that fits lands, the one that cannot is refused
    with an error naming the limit and what to remove, and the stored ledger stays as it was, so
    the comments there can still be resolved (issue 22, point 4)."""
    store = store_for(served, transport_name, tmp_path)
    stored = []
    refused = None
    for i in range(10):
        try:
            stored.append(store.append(new(f"{i}: {LONG}")))
        except LedgerFullError as exc:
            refused = exc
            break
    assert refused is not None
    assert 2 <= len(stored) < 10  # some fit; GitHub's fake refuses a body over its limit
    message = str(refused)
    assert "65,536" in message
    assert "nothing was written" in message
    assert stored[0].id in message  # the longest comments are named, to shorten or remove
    [before] = ledger_bodies(fake)
    with pytest.raises(LedgerFullError):
        store.append(new("x" * 9_000 + '"' * 1_000))
    assert ledger_bodies(fake) == [before]  # a refused write changes nothing
    for comment in stored:  # what is there can always be resolved
        store.set_status(comment.id, CommentStatus.RESOLVED, Resolution("a" * 40, at=NOW))
    assert {c.status for c in list_all(store, "feat/x")} == {CommentStatus.RESOLVED}
    for body in ledger_bodies(fake):
        assert len(json.dumps(body, ensure_ascii=False)) - 2 <= 65_536
