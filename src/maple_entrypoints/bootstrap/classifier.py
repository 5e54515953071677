"""The feedback classifier ``MAPLE_CLASSIFIER`` names, checked when a program starts.

A program that receives reviewers' replies (the route, ``maple review``, ``maple solo`` and
``maple-mcp``'s solo bridge) builds it once at start-up; a harness that is missing or signed
out stops the program then, naming both fixes, as a GitHub transport that cannot work does.

A part of the setups, not a setup: the agent loop and the route server build it, and the local
checkout offers it (``LocalCheckout.classifier``) to the commands that read replies.
"""

from __future__ import annotations

from maple_core.classifier_ports import FeedbackClassifier
from maple_core.errors import ConfigurationError
from maple_entrypoints.configuration import (
    MAPLE_CLASSIFIER,
    MAPLE_CLASSIFIER_MODEL,
    SECRETS,
    Settings,
)

__all__: list[str] = []  # a part the setups build; no entrypoint imports it

_HARNESS = {
    "claude": ("Claude Code", "npm install -g @anthropic-ai/claude-code", "claude auth login"),
    "codex": ("Codex", "npm install -g @openai/codex", "codex login"),
}


def _build(settings: Settings) -> FeedbackClassifier | None:
    """The classifier the settings name, unchecked; ``None`` for ``off``."""
    kind = settings[MAPLE_CLASSIFIER]
    if kind in (None, "off"):
        return None
    from maple_adapters.agents.classifiers import ClaudeClassifier, CodexClassifier

    model = settings[MAPLE_CLASSIFIER_MODEL]
    if kind == "claude":
        return ClaudeClassifier("claude", None, model=model, hidden=SECRETS)
    return CodexClassifier("codex", None, model=model, hidden=SECRETS)


def _checked(classifier: FeedbackClassifier) -> FeedbackClassifier:
    """``classifier`` once its harness is installed, signed in and able to read unattended.

    Raises:
        ConfigurationError: naming what is missing and both fixes (set the harness up, or set
            ``MAPLE_CLASSIFIER=off``).
    """
    harness, install, login = _HARNESS.get(
        classifier.name, (classifier.name, "install it", f"{classifier.name} login")
    )
    off = "or set MAPLE_CLASSIFIER=off (reviewers then confirm and reopen with the buttons)"
    info = classifier.detect()
    if not info.installed:
        raise ConfigurationError(
            f"MAPLE_CLASSIFIER={classifier.name} reads reviewers' replies with {harness}, which "
            f"is not installed here: install it ({install}) and run `{login}`, {off}."
        )
    if info.signed_in is False:
        raise ConfigurationError(
            f"MAPLE_CLASSIFIER={classifier.name} reads reviewers' replies with {harness}, which "
            f"is not signed in here: run `{login}` in a terminal, {off}."
        )
    unsupported = info.details.get("unsupported")
    if unsupported:
        raise ConfigurationError(
            f"MAPLE_CLASSIFIER={classifier.name}: this {harness} ({info.version or 'unknown'}) "
            f"does not know the features maple turns off for an unattended reading "
            f"({unsupported}): upgrade {harness}, {off}."
        )
    return classifier


def classifier_from_environment(settings: Settings | None = None) -> FeedbackClassifier | None:
    """The classifier the settings (default: the process environment's) name, checked.

    ``None`` when ``MAPLE_CLASSIFIER`` is off.

    Raises:
        ConfigurationError: ``MAPLE_CLASSIFIER`` is unknown, or its harness cannot read here.
    """
    classifier = _build(settings or Settings())
    return _checked(classifier) if classifier is not None else None
