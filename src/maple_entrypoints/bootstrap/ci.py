"""The CI gate: what ``maple gate publish`` reads and writes in a GitHub Actions job."""

from __future__ import annotations

from dataclasses import dataclass

from maple_adapters.github.connect import wrapped
from maple_adapters.github.events import GitHubEvent, PullToLookUp, looked_up, read_event
from maple_adapters.github.gate import GitHubCheckRunPublisher
from maple_adapters.github.store import GitHubLedgerStore
from maple_adapters.github.transport import GitHubTransport, PyGithubTransport
from maple_adapters.system import SystemClock
from maple_core.gate_ports import GatePublisher
from maple_core.gate_rules import GateRules
from maple_core.json_types import JsonValue
from maple_core.ports import CommentStore
from maple_entrypoints.ci_settings import ci_config
from maple_entrypoints.configuration import Settings

__all__ = ["CiGate", "ci_gate"]


@dataclass(frozen=True, slots=True)
class CiGate:
    """The event a job runs for, the ledger it reads, the check run it writes, the rules.

    ``reader`` is the reading token's transport, for a pull request's head in the repository
    ``owner/repo`` (:meth:`head`).
    """

    event: GitHubEvent | PullToLookUp
    store: CommentStore
    publisher: GatePublisher
    rules: GateRules
    reader: GitHubTransport
    owner: str
    repo: str

    def head(self) -> GitHubEvent:
        """The event with its head: a conversation comment's pull request is asked for it.

        Asked of GitHub with the reading token; any other event is returned as it is.

        Raises:
            MapleError: GitHub did not answer, or not with a pull request that has a head.
        """
        event = self.event
        if not isinstance(event, PullToLookUp):
            return event
        answer = self.reader.request("GET", f"/repos/{self.owner}/{self.repo}/pulls/{event.number}")
        return looked_up(event, answer.data)


def ci_gate(
    event_name: str,
    payload: JsonValue,
    *,
    review_url: str | None = None,
    settings: Settings | None = None,
) -> CiGate:
    """The CI gate for the GitHub Actions event ``event_name`` (its JSON, ``payload``).

    The ledger is read with ``GITHUB_TOKEN``, else the gate's token; the check run is written
    with ``MAPLE_GATE_TOKEN``, else ``GITHUB_TOKEN``. Both transports are scrubbed of both.
    With ``MAPLE_PR_REVIEW=gate`` the pull request's own review is read beside the ledger (on
    the machine's shared poll), and the gate holds on it too.

    Raises:
        InvalidInputError: the payload lacks what the event needs, or names another event.
        ConfigurationError: no repository or token, or a review URL that is not plain http(s).
    """
    event = read_event(event_name, payload)
    config = ci_config(settings or Settings(), event.repository, review_url)
    secrets = [t for t in (config.token, config.gate_token) if t]
    read_as = PyGithubTransport(config.token or config.gate_token, config.api_url)
    writer = wrapped(PyGithubTransport(config.gate_token, config.api_url), secrets)
    clock = SystemClock()
    owner, repo, app_id = config.owner, config.repo, config.app_id
    store: CommentStore
    review = config.review
    if review is not None:
        from maple_adapters.github.review_setup import review_store
        from maple_entrypoints.bootstrap.review import review_place

        token = config.token or config.gate_token
        place = review_place(review, owner, repo, config.api_url, token, app_id)
        store = review_store(read_as, secrets, place, clock, gate=True)
    else:
        store = GitHubLedgerStore(wrapped(read_as, secrets), owner, repo, clock, app_id=app_id)
    return CiGate(
        event=event,
        store=store,
        publisher=GitHubCheckRunPublisher(writer, owner, repo, now=clock.now, app_id=app_id),
        rules=config.rules,
        reader=wrapped(read_as, secrets),
        owner=owner,
        repo=repo,
    )
