"""``maple gate publish`` as CI runs it: recorded event payloads, the real ``maple`` process, the
fake GitHub. Also ``maple doctor`` against the same fake."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contract_tests.github_peers import TOKEN, api_transport
from contract_tests.support import FakeClock, make_repo
from maple_adapters.github.store import GitHubLedgerStore
from maple_core.anchors import Anchor
from maple_core.comments import NewComment, Resolution
from maple_core.statuses import CommentStatus
from tests.github.fake_github import FakeGitHub, Served
from tests.support import EVENTS, MAPLE, clean_env, publish_gate

HEAD = "c0ffee1" + "a" * 33


@pytest.fixture
def fake(served: Served) -> FakeGitHub:
    served.fake.reset()
    served.fake.open_pull("feat/checkout", head_sha=HEAD)
    return served.fake


def comment(served: Served, body: str) -> str:
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    return store.append(
        NewComment(branch="feat/checkout", body=body, anchor=Anchor(selector="h1"))
    ).id


def runs_on(fake: FakeGitHub, sha: str) -> list[dict[str, Any]]:
    return [r for r in fake.repo().check_runs if r["head_sha"] == sha]


def test_a_pull_request_with_an_open_comment_is_held_then_cleared(
    served: Served, fake: FakeGitHub
) -> None:
    comment_id = comment(served, "The Pay button overlaps the total.")
    held = publish_gate(served, "pull_request.json")
    assert held.returncode == 0, held.stderr
    assert json.loads(held.stdout)["verdict"]["reason"] == "comments-open"
    [run] = runs_on(fake, HEAD)
    assert (run["name"], run["status"]) == ("maple/visual-review", "in_progress")
    assert json.loads(run["external_id"]) == {"r": "comments-open", "o": 1, "t": 1}
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    store.set_status(comment_id, CommentStatus.RESOLVED)
    cleared = publish_gate(served, "pull_request.json")
    assert cleared.returncode == 0, cleared.stderr
    [run] = runs_on(fake, HEAD)  # the same run, completed
    assert (run["status"], run["conclusion"]) == ("completed", "success")


@pytest.mark.parametrize("event", ["pull_request_fork.json", "pull_request_bot.json"])
def test_a_fork_or_a_bot_is_neutral_no_review(served: Served, fake: FakeGitHub, event: str) -> None:
    done = publish_gate(served, event)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)["verdict"]
    assert (verdict["conclusion"], verdict["reason"]) == ("neutral", "no-review")
    sha = json.loads((EVENTS / event).read_text())["pull_request"]["head"]["sha"]
    [run] = runs_on(fake, sha)
    assert (run["status"], run["conclusion"]) == ("completed", "neutral")


def test_no_review_can_be_said_for_a_pull_request_without_a_preview(
    served: Served, fake: FakeGitHub
) -> None:
    comment(served, "Open, but there is no preview to look at.")
    done = publish_gate(served, "pull_request.json", "--no-review")
    assert json.loads(done.stdout)["verdict"]["reason"] == "no-review"


def test_a_merge_queue_commit_passes_at_once(served: Served, fake: FakeGitHub) -> None:
    comment(served, "Still open on the pull request.")
    fake.requests.clear()
    done = publish_gate(served, "merge_group.json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"]["reason"] == "merge-queue"
    [run] = runs_on(fake, "e1e1e1e" + "d" * 33)
    assert (run["status"], run["conclusion"]) == ("completed", "success")
    assert not any(p.endswith("/comments") for _, p, _ in fake.requests)  # no ledger read


def test_a_push_is_judged_on_the_pushed_commit(served: Served, fake: FakeGitHub) -> None:
    done = publish_gate(served, "push.json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"]["reason"] == "no-comments"
    [run] = runs_on(fake, HEAD)
    assert run["conclusion"] == "success"


def test_a_refused_publish_is_exit_1_without_the_token(served: Served, fake: FakeGitHub) -> None:
    done = publish_gate(served, "pull_request.json", GITHUB_TOKEN="ghp_not_known_to_github_0001")
    assert done.returncode == 1
    assert "could not publish maple/visual-review" in done.stderr
    assert "GitHub 401" in done.stderr
    assert "ghp_not_known_to_github_0001" not in done.stderr + done.stdout


@pytest.mark.parametrize(
    ("name", "env", "says"),
    [
        ("workflow_run", {}, "not workflow_run"),
        ("issue_comment", {}, "has no issue.number"),
        ("pull_request", {"GITHUB_TOKEN": ""}, "GITHUB_TOKEN is not set"),
    ],
)
def test_what_cannot_be_published_is_a_configuration_error(
    served: Served, fake: FakeGitHub, name: str, env: dict[str, str], says: str
) -> None:
    done = subprocess.run(
        [str(MAPLE), "gate", "publish"],
        env=clean_env(
            **{
                "GITHUB_EVENT_NAME": name,
                "GITHUB_EVENT_PATH": str(EVENTS / "pull_request.json"),
                "GITHUB_REPOSITORY": "acme/web",
                "GITHUB_TOKEN": TOKEN,
                **env,
            }
        ),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 2
    assert says in done.stderr
    assert fake.repo().check_runs == []


def test_the_documented_workflow_runs_this_command_on_the_events_it_handles() -> None:
    from maple_adapters.github.events import read_event

    workflow = Path(__file__).resolve().parents[2] / "docs" / "workflows" / "maple-gate.yml"
    lines = [line.split("#", 1)[0].rstrip() for line in workflow.read_text().splitlines()]
    start = lines.index("on:")
    triggers = []
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        if line.startswith("  ") and not line.startswith("    ") and line.strip().endswith(":"):
            triggers.append(line.strip().rstrip(":"))
    assert triggers == [
        "pull_request_target",
        "merge_group",
        "pull_request_review",
        "pull_request_review_comment",
        "issue_comment",
    ]
    recorded = {"pull_request_target": "pull_request.json"}
    for trigger in triggers:  # every trigger is an event publish understands
        payload = recorded.get(trigger, f"{trigger}.json")
        read_event(trigger, json.loads((EVENTS / payload).read_text()))
    body = "\n".join(lines)
    assert "checks: write" in body
    assert "run: maple gate publish" in body
    assert "github.repository" not in body  # never install from the repository under review
    assert "actions/checkout" not in body  # pull_request_target must not run a fork's code


def test_doctor_checks_github_access(served: Served, fake: FakeGitHub, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "feat/checkout")
    env = {
        "MAPLE_GITHUB_OWNER": "acme",
        "MAPLE_GITHUB_REPO": "web",
        "MAPLE_GITHUB_API": served.base_url,
        "REQUESTS_CA_BUNDLE": served.ca_file,
    }
    good = subprocess.run(
        [str(MAPLE), "doctor"],
        cwd=repo,
        env=clean_env(GITHUB_TOKEN=TOKEN, **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "ok   github transport: api" in good.stdout
    assert "ok   repository access: acme/web: role pull, push" in good.stdout
    assert "ok   store: pull request #1: 0 comment(s) on feat/checkout" in good.stdout
    bad = subprocess.run(
        [str(MAPLE), "doctor"],
        cwd=repo,
        env=clean_env(GITHUB_TOKEN="ghp_revoked_token_000000001", **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 1
    assert "FAIL repository access: GitHub 401" in bad.stdout
    assert "fix:" in bad.stdout
    assert "ghp_revoked_token_000000001" not in bad.stdout + bad.stderr


def test_the_check_runs_link_comes_only_from_a_checked_review_url(
    served: Served, fake: FakeGitHub
) -> None:
    refused = publish_gate(served, "pull_request.json", "--review-url", "javascript:alert(1)")
    assert refused.returncode == 2
    assert "--review-url must be an http or https URL" in refused.stderr
    assert runs_on(fake, HEAD) == []
    done = publish_gate(served, "pull_request.json", MAPLE_REVIEW_URL="https://preview.example/")
    assert done.returncode == 0, done.stderr
    [run] = runs_on(fake, HEAD)
    assert run["details_url"] == "https://preview.example/"


def test_the_summary_says_a_resolution_is_not_pushed_until_the_pull_request_holds_it(
    served: Served, fake: FakeGitHub
) -> None:
    fix = "f1e2d3c" + "b" * 33
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    comment_id = comment(served, "The Pay button overlaps the total.")
    store.set_status(comment_id, CommentStatus.RESOLVED, Resolution(fix, "2026-01-01T12:00:00Z"))
    early = publish_gate(served, "pull_request.json")
    assert early.returncode == 0, early.stderr
    [run] = runs_on(fake, HEAD)
    assert "Not pushed" in run["output"]["summary"]
    assert f"`{fix}`, which is not pushed to this pull request yet" in run["output"]["summary"]
    fake.push(1, fix, "a" * 40)  # the fix, then another commit on top of it
    fake.requests.clear()
    later = publish_gate(served, "pull_request.json")
    assert later.returncode == 0, later.stderr
    run = runs_on(fake, HEAD)[-1]  # a completed run is not reused: the newest says it now
    assert (run["status"], run["conclusion"]) == ("completed", "success")
    assert "Not pushed" not in run["output"]["summary"]
    assert [p for _, p, _ in fake.requests if p.endswith("/commits")] == [
        "/api/v3/repos/acme/web/pulls/1/commits"
    ]


def test_a_resolution_at_the_head_costs_no_commit_listing(served: Served, fake: FakeGitHub) -> None:
    store = GitHubLedgerStore(api_transport(served), "acme", "web", FakeClock())
    comment_id = comment(served, "The Pay button overlaps the total.")
    store.set_status(
        comment_id, CommentStatus.RESOLVED, Resolution(HEAD[:7], "2026-01-01T12:00:00Z")
    )
    fake.requests.clear()
    done = publish_gate(served, "pull_request.json")
    assert done.returncode == 0, done.stderr
    [run] = runs_on(fake, HEAD)
    assert "Not pushed" not in run["output"]["summary"]
    assert not any(p.endswith("/commits") for _, p, _ in fake.requests)


def test_in_gate_mode_an_open_collaborators_thread_holds_the_check_with_its_link(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.repo().associations["rev"] = "COLLABORATOR"
    root = fake.add_review_comment(1, "rev", "The total is rounded twice.")
    fake.add_review_comment(1, "drive-by", "Approve this or else.")
    cache = str(tmp_path / "cache")
    # agent mode: not gated
    ignored = publish_gate(served, "pull_request.json", XDG_CACHE_HOME=cache)
    assert ignored.returncode == 0, ignored.stderr
    assert json.loads(ignored.stdout)["verdict"]["conclusion"] == "clear"
    held = publish_gate(served, "pull_request.json", MAPLE_PR_REVIEW="gate", XDG_CACHE_HOME=cache)
    assert held.returncode == 0, held.stderr
    assert json.loads(held.stdout)["verdict"]["reason"] == "comments-open"
    run = runs_on(fake, HEAD)[-1]  # a completed run is not reopened: a new one holds
    assert run["status"] == "in_progress"
    assert json.loads(run["external_id"]) == {"r": "comments-open", "o": 1, "t": 1}
    summary = run["output"]["summary"]
    assert "The total is rounded twice." in summary
    assert f"/acme/web/pull/1#discussion_r{root['id']}" in summary
    assert "Approve this or else" not in summary  # a stranger's words never gate


REVIEW_EVENTS = [
    "pull_request_review.json",
    "pull_request_review_comment.json",
    "pull_request_review_thread.json",
    "issue_comment.json",
]


def gate_mode(served: Served, event: str, tmp_path: Path) -> Any:
    """Publish for ``event`` in gate mode as a fresh CI job would (a runner's cache is empty)."""
    cache = tmp_path / f"cache-{len(list(tmp_path.glob('cache-*')))}"
    done = publish_gate(served, event, MAPLE_PR_REVIEW="gate", XDG_CACHE_HOME=str(cache))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("event", REVIEW_EVENTS)
def test_a_review_event_publishes_the_pull_requests_verdict_again(
    served: Served, fake: FakeGitHub, tmp_path: Path, event: str
) -> None:
    fake.repo().associations["rev"] = "COLLABORATOR"
    root = fake.add_review_comment(1, "rev", "The total is rounded twice.")
    held = gate_mode(served, event, tmp_path)
    assert (held["sha"], held["verdict"]["reason"]) == (HEAD, "comments-open")
    [run] = runs_on(fake, HEAD)
    assert run["status"] == "in_progress"
    assert f"/acme/web/pull/1#discussion_r{root['id']}" in run["output"]["summary"]
    fake.set_resolved(root["id"], True, by="rev")
    cleared = gate_mode(served, event, tmp_path)
    assert cleared["verdict"]["conclusion"] == "clear"
    assert (runs_on(fake, HEAD)[-1]["status"], runs_on(fake, HEAD)[-1]["conclusion"]) == (
        "completed",
        "success",
    )


def test_a_conversation_comment_asks_for_its_pull_requests_head(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.requests.clear()
    done = gate_mode(served, "issue_comment.json", tmp_path)
    assert (done["branch"], done["sha"]) == ("feat/checkout", HEAD)
    assert ("GET", "/api/v3/repos/acme/web/pulls/1") in [(m, p) for m, p, _ in fake.requests]
    [run] = runs_on(fake, HEAD)
    assert run["conclusion"] == "success"


@pytest.mark.parametrize(
    ("event", "says"),
    [
        ("pull_request_review_comment_stranger.json", "comments-open"),
        ("pull_request_review_thread.json", "comments-open"),
    ],
)
def test_an_events_words_never_clear_the_check(
    served: Served, fake: FakeGitHub, tmp_path: Path, event: str, says: str
) -> None:
    """A stranger's comment dressed as a resolution and a ledger, or a thread event saying
    "resolved" while GitHub still shows the thread open: the check holds, read from GitHub."""
    fake.repo().associations["rev"] = "COLLABORATOR"
    fake.add_review_comment(1, "rev", "The total is rounded twice.")
    fake.add_review_comment(1, "drive-by", "Resolved, the gate may pass.")
    done = gate_mode(served, event, tmp_path)
    assert done["verdict"]["reason"] == says
    [run] = runs_on(fake, HEAD)
    assert run["status"] == "in_progress"
    assert "the gate may pass" not in run["output"]["summary"]


@pytest.mark.parametrize(
    ("event", "says"),
    [
        ("pull_request_review_comment_fork.json", "it comes from a fork"),
        ("issue_comment_issue.json", "issue #2 is not a pull request"),
    ],
)
def test_an_event_that_changes_no_check_publishes_nothing(
    served: Served, fake: FakeGitHub, tmp_path: Path, event: str, says: str
) -> None:
    fake.requests.clear()
    done = gate_mode(served, event, tmp_path)
    assert done["published"] is False
    assert says in done["why"]
    assert fake.repo().check_runs == []
    assert fake.requests == []  # not even a read


def test_a_conversation_comment_on_a_forks_pull_request_publishes_nothing(
    served: Served, fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.repo().pulls[0].head_repo = "mallory/web"
    done = gate_mode(served, "issue_comment.json", tmp_path)
    assert done["published"] is False
    assert "fork" in done["why"]
    assert fake.repo().check_runs == []
