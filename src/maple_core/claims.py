"""Claims: which agent session is working on a comment, for how long, and who steps around it.

A claim lives on its comment as ``claim: {agent, session, since, expires}`` (a key Maple does
not know and keeps). ``since`` and ``expires`` are JavaScript timestamps; a claim is *live*
while ``now`` is before ``expires`` (``since`` plays no part, so a clock stepping back never
brings a claim forward past one that replaced it). A claim is a lease, never a lock: it lapses
at its expiry unless its session's activity renews it, it ends at once when its holder
releases it, and no claim is live more than :data:`MAX_LEASE_S` seconds ahead of ``now``,
whatever a stored record says, so nobody can hold a comment forever.

Every decision here takes ``now``: the core never reads the clock. A store applies
:func:`apply_claim` under its write lock (or its compare-and-swap), so of any number of racing
claimants exactly one is granted the claim and the others are told who holds it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from maple_core.comments import Comment
from maple_core.cursor import format_js_timestamp, parse_stamp
from maple_core.errors import InvalidInputError
from maple_core.fields import kind_of, object_of
from maple_core.json_types import JsonObject, JsonValue
from maple_core.stop import CLAIM_HORIZON_S
from maple_core.text import one_line

__all__ = [
    "CLAIM",
    "Claim",
    "ClaimAction",
    "ClaimDecision",
    "ClaimOutcome",
    "ClaimRequest",
    "ClaimResult",
    "Claimant",
    "DEFAULT_LEASE_S",
    "MAX_AGENT_CHARS",
    "MAX_LEASE_S",
    "MIN_LEASE_S",
    "apply_claim",
    "apply_claims",
    "apply_sweep",
    "check_session_id",
    "claim_of",
    "inert_text",
    "live_claim",
    "renewal_due",
    "with_claim",
]

CLAIM = "claim"
"""The comment's key its claim is kept under."""
DEFAULT_LEASE_S = 600
"""How long a claim lasts when nobody says: ten minutes, renewed by the session's activity."""
MIN_LEASE_S = 10
"""The shortest lease taken."""
MAX_LEASE_S = CLAIM_HORIZON_S
"""The longest lease taken, and the furthest ahead of now any stored claim can be live."""
MAX_AGENT_CHARS = 64
"""The longest agent or model name kept; a longer one is cut."""
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}")


def check_session_id(session: str) -> str:
    """``session`` when it is a session id maple takes, else raise naming the rule.

    A session id is 1 to 64 letters, digits and ``. _ : @ -``, starting with a letter or digit,
    so it is inert wherever it is shown (a terminal, Markdown, HTML, an agent's context).

    Raises:
        InvalidInputError: it is not.
    """
    if not _SESSION_ID.fullmatch(session):
        shown = one_line(session)[:40].encode("ascii", "replace").decode()
        raise InvalidInputError(
            f"{shown!r} is not a session id: use 1 to 64 letters, digits, '.', '_', ':', '@' "
            "or '-', starting with a letter or a digit."
        )
    return session


def inert_text(text: str) -> str:
    """``text`` as one capped line without control characters or angle brackets."""
    return one_line(text).replace("<", "‹").replace(">", "›")[:MAX_AGENT_CHARS]


def _name(text: str, what: str) -> str:
    """A name from a client as one inert line: printable characters only, capped."""
    flat = inert_text(text)
    if not flat:
        raise InvalidInputError(f"The {what} is empty once unprintable characters are left out.")
    return flat


@dataclass(frozen=True, slots=True)
class Claimant:
    """Who claims: the agent (a client's name, such as ``claude-code``), its session and model.

    Build one with :meth:`of`, which makes a client's words inert and bounded.
    """

    agent: str
    session: str
    model: str | None = None

    @classmethod
    def of(cls, agent: str, session: str, model: str | None = None) -> Claimant:
        """A claimant from untrusted text: names flattened, unprintables dropped, capped.

        Raises:
            InvalidInputError: the session id is not one (see :func:`check_session_id`), or a
                name is empty.
        """
        return cls(
            _name(agent, "agent's name"),
            check_session_id(session),
            _name(model, "model's name") if model else None,
        )

    def signature(self) -> JsonObject:
        """What a reply or a resolution records of its writer: ``{agent, model?, session}``."""
        out: JsonObject = {"agent": self.agent}
        if self.model:
            out["model"] = self.model
        out["session"] = self.session
        return out


def _bounded_lease(seconds: float) -> float:
    if not MIN_LEASE_S <= seconds <= MAX_LEASE_S:
        raise InvalidInputError(
            f"A lease is {MIN_LEASE_S} to {MAX_LEASE_S} seconds; {seconds:g} is not. A session's "
            "activity renews its claims, so a long lease is seldom needed."
        )
    return seconds


@dataclass(frozen=True, slots=True)
class Claim:
    """A comment's claim as stored: the agent and session holding it, since when, until when.

    Keys maple does not know are kept in ``extra`` (a store's own bookkeeping among them).
    """

    agent: str
    session: str
    since: str
    expires: str
    extra: JsonObject = field(default_factory=dict)

    @classmethod
    def read(cls, value: JsonValue) -> Claim | None:
        """The claim a stored value holds, or ``None`` when it holds none maple can read."""
        if not isinstance(value, dict):
            return None
        agent, session = value.get("agent"), value.get("session")
        since, expires = value.get("since"), value.get("expires")
        if not all(isinstance(v, str) for v in (agent, session, since, expires)):
            return None
        known = ("agent", "session", "since", "expires")
        return cls(
            str(agent),
            str(session),
            str(since),
            str(expires),
            {k: v for k, v in value.items() if k not in known},
        )

    def to_json(self) -> JsonObject:
        """The claim's JSON object: what :meth:`shown` shows, and the ``extra`` keys."""
        return {**self.shown(), **self.extra}

    def ends(self) -> datetime | None:
        """When the claim lapses, or ``None`` when its expiry cannot be read."""
        return parse_stamp(self.expires)

    def live_at(self, now: datetime) -> bool:
        """True while ``now`` is before the expiry, and the expiry is within a lease of ``now``.

        A claim stored with an expiry further ahead than :data:`MAX_LEASE_S` (a hand edit, a
        hostile writer) is not live at all: a lease is bounded whatever the record says.
        """
        ends = self.ends()
        if ends is None or ends <= now:
            return False
        return ends - now <= timedelta(seconds=MAX_LEASE_S)

    def remaining(self, now: datetime) -> float:
        """Seconds until the claim lapses (0 once it has)."""
        ends = self.ends()
        return max((ends - now).total_seconds(), 0.0) if ends is not None else 0.0

    def shown(self) -> JsonObject:
        """The claim as tools and people are shown it: ``{agent, session, since, expires}``."""
        return {
            "agent": self.agent,
            "session": self.session,
            "since": self.since,
            "expires": self.expires,
        }


class ClaimAction(StrEnum):
    """What a claimant asks for."""

    CLAIM = "claim"
    RELEASE = "release"


class ClaimOutcome(StrEnum):
    """What became of a claim request."""

    CLAIMED = "claimed"
    """Granted: nobody held the comment (or the last claim had lapsed)."""
    RENEWED = "renewed"
    """The session held it already; its lease runs from now."""
    TAKEN_OVER = "taken-over"
    """Granted by force over another session's live claim (a person's ``--force``)."""
    RELEASED = "released"
    """The claim ended now."""
    HELD = "held"
    """Refused: another session holds a live claim (named in ``holder``)."""
    NOT_HELD = "not-held"
    """Nothing to release: no live claim of this session's."""


@dataclass(frozen=True, slots=True)
class ClaimRequest:
    """A claimant's request: claim (or renew) with a lease, or release; ``force`` is a person's.

    Raises:
        InvalidInputError: the lease is outside :data:`MIN_LEASE_S`–:data:`MAX_LEASE_S`.
    """

    action: ClaimAction
    claimant: Claimant
    lease_s: float = DEFAULT_LEASE_S
    force: bool = False

    def __post_init__(self) -> None:
        _bounded_lease(self.lease_s)

    @classmethod
    def claim(
        cls, claimant: Claimant, lease_s: float = DEFAULT_LEASE_S, *, force: bool = False
    ) -> ClaimRequest:
        """Claim the comment (renewing the claim, when the session holds it already)."""
        return cls(ClaimAction.CLAIM, claimant, lease_s, force)

    @classmethod
    def release(cls, claimant: Claimant, *, force: bool = False) -> ClaimRequest:
        """End the session's claim (anyone's, with ``force``)."""
        return cls(ClaimAction.RELEASE, claimant, DEFAULT_LEASE_S, force)

    @classmethod
    def from_json(cls, value: JsonValue) -> ClaimRequest:
        """Read a claim posted to a route.

        ``{action?, agent, session, model?, leaseSeconds?, force?}``: ``action`` is ``claim``
        (the default) or ``release``; every text is made inert.

        Raises:
            InvalidInputError: a field is missing or of the wrong type, or out of bounds.
        """
        obj = object_of(value, "a claim")
        action = obj.get("action", "claim")
        if action not in ("claim", "release"):
            raise InvalidInputError("'action' must be claim or release.")
        texts = {k: obj.get(k) for k in ("agent", "session")}
        for key, text in texts.items():
            if not isinstance(text, str):
                raise InvalidInputError(f"A claim needs a string {key!r}; it has {kind_of(text)}.")
        model = obj.get("model")
        if model is not None and not isinstance(model, str):
            raise InvalidInputError(f"'model' must be a string, not {kind_of(model)}.")
        lease = obj.get("leaseSeconds", DEFAULT_LEASE_S)
        if isinstance(lease, bool) or not isinstance(lease, (int, float)):
            raise InvalidInputError(f"'leaseSeconds' must be a number, not {kind_of(lease)}.")
        force = obj.get("force", False)
        if not isinstance(force, bool):
            raise InvalidInputError(f"'force' must be true or false, not {kind_of(force)}.")
        claimant = Claimant.of(str(texts["agent"]), str(texts["session"]), model)
        return cls(ClaimAction(action), claimant, float(lease), force)

    def to_json(self) -> JsonObject:
        """The request as a route reads it (:meth:`from_json`)."""
        out: JsonObject = {
            "action": self.action.value,
            "agent": self.claimant.agent,
            "session": self.claimant.session,
            "leaseSeconds": self.lease_s,
            "force": self.force,
        }
        if self.claimant.model:
            out["model"] = self.claimant.model
        return out


@dataclass(frozen=True, slots=True)
class ClaimDecision:
    """What a request does to a comment's claim.

    Attributes:
        outcome: what became of the request.
        claim: the claim the comment holds afterwards (``None`` when it holds none).
        holder: for ``held``, the other session's live claim; for ``taken-over`` and a forced
            release, the claim that was ended.
        write: whether the store must write the comment (a refusal, or a renewal with most of
            its lease left, writes nothing).
    """

    outcome: ClaimOutcome
    claim: Claim | None
    holder: Claim | None = None
    write: bool = False

    @property
    def granted(self) -> bool:
        """True when the claimant holds the comment now."""
        return self.outcome in (ClaimOutcome.CLAIMED, ClaimOutcome.RENEWED, ClaimOutcome.TAKEN_OVER)


def _new_claim(claimant: Claimant, since: datetime, until: datetime) -> Claim:
    return Claim(
        claimant.agent, claimant.session, format_js_timestamp(since), format_js_timestamp(until)
    )


def renewal_due(claim: Claim, lease_s: float, now: datetime) -> bool:
    """True when less than half of a ``lease_s`` lease is left: a renewal then writes."""
    return claim.remaining(now) < lease_s / 2


def decide_claim(current: Claim | None, request: ClaimRequest, now: datetime) -> ClaimDecision:
    """The one rule for a claim request on a comment whose claim is ``current``, at ``now``."""
    claimant = request.claimant
    live = current if current is not None and current.live_at(now) else None
    mine = live is not None and live.session == claimant.session
    if request.action is ClaimAction.RELEASE:
        if live is None or not (mine or request.force):
            outcome = ClaimOutcome.HELD if live is not None else ClaimOutcome.NOT_HELD
            return ClaimDecision(outcome, current, live)
        ended = replace(live, expires=format_js_timestamp(now))
        return ClaimDecision(ClaimOutcome.RELEASED, ended, None if mine else live, write=True)
    until = now + timedelta(seconds=request.lease_s)
    if live is not None and mine:
        if not renewal_due(live, request.lease_s, now):
            return ClaimDecision(ClaimOutcome.RENEWED, live)
        renewed = replace(live, agent=claimant.agent, expires=format_js_timestamp(until))
        return ClaimDecision(ClaimOutcome.RENEWED, renewed, write=True)
    if live is not None and not request.force:
        return ClaimDecision(ClaimOutcome.HELD, live, live)
    outcome = ClaimOutcome.TAKEN_OVER if live is not None else ClaimOutcome.CLAIMED
    return ClaimDecision(outcome, _new_claim(claimant, now, until), live, write=True)


def claim_of(comment: Comment) -> Claim | None:
    """The comment's stored claim (live or not), or ``None`` when it holds none maple reads."""
    return Claim.read(comment.extra.get(CLAIM)) if CLAIM in comment.extra else None


def live_claim(comment: Comment, now: datetime) -> Claim | None:
    """The comment's claim while it is live at ``now``."""
    claim = claim_of(comment)
    return claim if claim is not None and claim.live_at(now) else None


def with_claim(comment: Comment, claim: Claim | None) -> Comment:
    """The comment holding ``claim`` (or no claim key at all, for ``None``)."""
    extra = {k: v for k, v in comment.extra.items() if k != CLAIM}
    if claim is not None:
        extra[CLAIM] = claim.to_json()
    return replace(comment, extra=extra)


def apply_claim(
    comment: Comment, request: ClaimRequest, now: datetime
) -> tuple[Comment, ClaimDecision]:
    """The comment after ``request`` at ``now``, and the decision (see :func:`decide_claim`).

    A store calls this under its write lock and writes the comment only when
    ``decision.write``.
    """
    decision = decide_claim(claim_of(comment), request, now)
    if not decision.write:
        return comment, decision
    return with_claim(comment, decision.claim), decision


def apply_claims(
    comments: Mapping[str, Comment], ids: Sequence[str], request: ClaimRequest, now: datetime
) -> list[ClaimResult]:
    """:func:`apply_claim` on each of ``ids`` that ``comments`` holds, in turn (``claim_many``)."""
    current, results = dict(comments), list[ClaimResult]()
    for comment_id in (i for i in ids if i in current):
        current[comment_id], decision = apply_claim(current[comment_id], request, now)
        results.append(ClaimResult(current[comment_id], decision))
    return results


def apply_sweep(
    comments: Sequence[Comment], request: ClaimRequest, now: datetime
) -> dict[int, Comment]:
    """Renew (``claim``) or end (``release``) every live claim of the request's session.

    Returns the comments that change, by index; a renewal writes only claims past half their
    lease. ``force`` plays no part: a sweep touches the session's own claims only.
    """
    changed: dict[int, Comment] = {}
    own = replace(request, force=False)
    for index, comment in enumerate(comments):
        claim = live_claim(comment, now)
        if claim is None or claim.session != request.claimant.session:
            continue
        updated, decision = apply_claim(comment, own, now)
        if decision.write:
            changed[index] = updated
    return changed


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """A store's answer to a claim request: the comment as it is now and what was decided."""

    comment: Comment
    decision: ClaimDecision

    @property
    def outcome(self) -> ClaimOutcome:
        """What became of the request."""
        return self.decision.outcome

    def to_json(self) -> JsonObject:
        """``{outcome, claim?, holder?}``: the claim the comment holds, and the other holder."""
        out: JsonObject = {"outcome": self.outcome.value}
        if self.decision.claim is not None:
            out["claim"] = self.decision.claim.shown()
        if self.decision.holder is not None:
            out["holder"] = self.decision.holder.shown()
        return out
