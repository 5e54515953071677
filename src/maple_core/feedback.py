"""Reviewers' words as outcomes (the-loop's Decision 042, points 4–7 and 18): values and rules.

A trusted reviewer's reply on a resolved comment ("LGTM now", "still broken on Safari") is read
by a harness the developer already runs (Claude Code, Codex), which answers with one closed
:class:`Outcome`. That answer is a fact, never a destination: each outcome maps to one declared
:class:`Transition` (:data:`TRANSITIONS`), and policy decides around it, never the model:

- before: only words that arrived from a trusted person are read at all
  (:func:`~maple_core.feedback_policy.unheard`): the agent's and bots' never, a guest's never,
  and only a reply on a resolved comment (:func:`~maple_core.feedback_policy.refusal`);
- after: under the store's write lock, the transition applies only while the reply still
  answers the comment's resolution and nothing later superseded it (an explicit Confirm or
  Reopen, a later reply, a new resolution), and only on the words that were read
  (:func:`~maple_core.readings.classification_note`).

Each classification is kept on the entry it read (:class:`Classification`, under
``classification``), so the same words are never read twice; a person can undo it
(:func:`~maple_core.readings.undo_note`), and a confirmation maple made stops counting once its
classification is undone or the words it read are edited (``conversation.withdrawn``).

This module holds the values; whose words are read is ``feedback_policy.py``, and what the
harness is shown ``feedback_prompt.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from maple_core.conversation import CLASSIFICATION, Reply
from maple_core.json_types import JsonObject, JsonValue
from maple_core.text import text_hash

__all__ = [
    "Answer",
    "CONFIRMING",
    "Classification",
    "HarnessAnswer",
    "MAX_ATTEMPTS",
    "MAX_REMARKS",
    "OUTCOME_SCHEMA",
    "Outcome",
    "REMARK_OF",
    "TRANSITIONS",
    "Transition",
    "Trust",
    "classification_of",
    "read_answer",
    "stale",
]


class Outcome(StrEnum):
    """What a reviewer decided, as the harness reads their words (the closed set)."""

    APPROVED = "approved"
    APPROVED_WITH_COMMENTS = "approved-with-comments"
    CHANGES_REQUESTED = "changes-requested"
    WAIT = "wait"


class Transition(StrEnum):
    """What maple does for an outcome; the model names an outcome, never one of these."""

    CONFIRM = "confirm"
    CONFIRM_AND_OPEN_REMARKS = "confirm-and-open-remarks"
    REOPEN = "reopen"
    NONE = "none"


TRANSITIONS: Mapping[Outcome, Transition] = MappingProxyType(
    {
        Outcome.APPROVED: Transition.CONFIRM,
        Outcome.APPROVED_WITH_COMMENTS: Transition.CONFIRM_AND_OPEN_REMARKS,
        Outcome.CHANGES_REQUESTED: Transition.REOPEN,
        Outcome.WAIT: Transition.NONE,
    }
)
"""The declared transition of each outcome: the reachable states are fixed here, in a diff."""

CONFIRMING = frozenset({Transition.CONFIRM, Transition.CONFIRM_AND_OPEN_REMARKS})
"""The transitions that confirm the resolution."""


class Trust(StrEnum):
    """Why maple takes an entry's words as a trusted person's: the path they arrived on.

    The mark (``trust`` on the entry) is given by the entrypoint that received the words and
    never taken from what a caller posted.
    """

    IDENTIFIED = "identified"  # a route that identified its reviewer
    PAIRED = "paired"  # the solo bridge or the review proxy: the person this machine paired
    GITHUB = "github"  # a pull request's thread: GitHub says OWNER, MEMBER or COLLABORATOR


MAX_REMARKS = 10
"""The most remarks an approved-with-comments reading turns into open comments."""
MAX_ATTEMPTS = 3
"""How many times a harness is asked (a first try and two retries) before its answers that do
not fit the set count as ``wait``."""

OUTCOME_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "outcome": {"type": "string", "enum": [o.value for o in Outcome]},
        "remarks": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["outcome", "remarks"],
    "additionalProperties": False,
}
"""The schema the harness answers in (strict: every property required, nothing else)."""

REMARK_OF = "remarkOf"
"""The key linking an open comment made from a remark to the comment and entry it came from."""


@dataclass(frozen=True, slots=True)
class HarnessAnswer:
    """What one run of a harness said, before maple checks it.

    Attributes:
        structured: the answer it gave in the schema's place (unchecked), or ``None``.
        model: the model it says it used.
        failure: why it gave no answer at all (it hung past its bound, crashed, is signed
            out), in one line with no secret in it; asking again would not help.
    """

    structured: JsonValue | None = None
    model: str | None = None
    failure: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """A harness's answer that fits :data:`OUTCOME_SCHEMA`."""

    outcome: Outcome
    remarks: tuple[str, ...] = ()


def read_answer(value: JsonValue | None) -> Answer | None:
    """The answer in ``value`` when it fits :data:`OUTCOME_SCHEMA` exactly, else ``None``.

    Checked here whatever the harness says it enforced: an outcome outside the set, a missing
    or extra key, or remarks that are not strings are no answer.
    """
    if not isinstance(value, dict) or set(value) != {"outcome", "remarks"}:
        return None
    outcome, remarks = value["outcome"], value["remarks"]
    if outcome not in _OUTCOMES or not isinstance(remarks, list):
        return None
    if not all(isinstance(r, str) for r in remarks):
        return None
    return Answer(_OUTCOMES[outcome], tuple(r for r in remarks if isinstance(r, str)))


_OUTCOMES = {o.value: o for o in Outcome}
_TRANSITION_NAMES = {t.value: t for t in Transition}


@dataclass(frozen=True, slots=True)
class Classification:
    """One reading of a reviewer's entry, as it is kept on the entry.

    Attributes:
        outcome: what the harness read (``wait`` when it could not answer in the set).
        harness: which harness read it (``claude``, ``codex``).
        model: the model the harness used, when it says.
        at: when, in JavaScript's format.
        text_hash: ``sha256:`` of the words read (:func:`~maple_core.text.text_hash`).
        remarks: the reviewer's remarks an approved-with-comments reading found, as quoted.
        attempts: how many times the harness was asked.
        applied: the transition maple made (``none`` when it did not apply: see ``why``).
        why: why the outcome's transition did not apply, when it did not.
        note: what went wrong asking the harness, for a ``wait`` it did not choose.
        undone: who undid it and when (``{by, at}``), once a person did.
    """

    outcome: Outcome
    harness: str
    model: str | None
    at: str
    text_hash: str
    remarks: tuple[str, ...] = ()
    attempts: int = 1
    applied: Transition = Transition.NONE
    why: str | None = None
    note: str | None = None
    undone: JsonObject | None = None

    def to_json(self) -> JsonObject:
        """The record kept on the entry under ``classification``."""
        out: JsonObject = {
            "outcome": self.outcome.value,
            "harness": self.harness,
            "model": self.model,
            "at": self.at,
            "textHash": self.text_hash,
            "remarks": list(self.remarks),
            "attempts": self.attempts,
            "applied": self.applied.value,
        }
        for key, value in (("why", self.why), ("note", self.note), ("undone", self.undone)):
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, value: JsonValue) -> Classification | None:
        """A stored record, or ``None`` when it is not one maple can read."""
        if not isinstance(value, dict):
            return None
        outcome = _OUTCOMES.get(_text(value.get("outcome")) or "")
        applied = _TRANSITION_NAMES.get(_text(value.get("applied")) or "", Transition.NONE)
        harness, at, digest = (_text(value.get(k)) for k in ("harness", "at", "textHash"))
        if outcome is None or harness is None or at is None or digest is None:
            return None
        remarks = value.get("remarks")
        attempts = value.get("attempts")
        undone = value.get("undone")
        return cls(
            outcome=outcome,
            harness=harness,
            model=_text(value.get("model")),
            at=at,
            text_hash=digest,
            remarks=tuple(r for r in remarks if isinstance(r, str))
            if isinstance(remarks, list)
            else (),
            attempts=attempts if isinstance(attempts, int) else 1,
            applied=applied,
            why=_text(value.get("why")),
            note=_text(value.get("note")),
            undone=undone if isinstance(undone, dict) else None,
        )


def _text(value: JsonValue | None) -> str | None:
    return value if isinstance(value, str) else None


def classification_of(entry: Reply) -> Classification | None:
    """The classification kept on ``entry``, if it holds one maple can read."""
    return Classification.from_json(entry.extra.get(CLASSIFICATION))


def stale(entry: Reply) -> bool:
    """True when ``entry``'s words changed after maple classified them."""
    record = classification_of(entry)
    return record is not None and record.text_hash != text_hash(entry.body)
