"""The feedback classifier ``MAPLE_CLASSIFIER`` names, checked when a program starts.

A program that receives reviewers' replies (the route, ``maple review``, ``maple solo`` and
``maple-mcp``'s solo bridge) builds it once at start-up; a harness that is missing or signed
out stops the program then, naming both fixes, as a GitHub transport that cannot work does.
"""

from __future__ import annotations

from collections.abc import Mapping

from maple_core.errors import ConfigurationError
from maple_core.ports import FeedbackClassifier
from maple_entrypoints.settings import ClassifierKind, ClassifierSettings

__all__ = ["build_classifier", "check_classifier", "classifier_from_environment"]

_HARNESS = {
    "claude": ("Claude Code", "npm install -g @anthropic-ai/claude-code", "claude auth login"),
    "codex": ("Codex", "npm install -g @openai/codex", "codex login"),
}


def build_classifier(
    settings: ClassifierSettings, *, binary: str | None = None, env: Mapping[str, str] | None = None
) -> FeedbackClassifier | None:
    """The classifier the settings name, unchecked; ``None`` for ``off``.

    ``binary`` and ``env`` point it at another executable and environment (tests).
    """
    kind = settings.MAPLE_CLASSIFIER
    if kind is ClassifierKind.OFF:
        return None
    from maple_adapters.agents.classifiers import ClaudeClassifier, CodexClassifier

    model = settings.MAPLE_CLASSIFIER_MODEL
    if kind is ClassifierKind.CLAUDE:
        return ClaudeClassifier(binary or "claude", env, model=model)
    return CodexClassifier(binary or "codex", env, model=model)


def check_classifier(classifier: FeedbackClassifier) -> FeedbackClassifier:
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


def classifier_from_environment(
    environ: Mapping[str, str] | None = None,
) -> FeedbackClassifier | None:
    """The classifier the environment (default: the process's) names, checked; ``None`` if off.

    Raises:
        ConfigurationError: ``MAPLE_CLASSIFIER`` is unknown, or its harness cannot read here.
    """
    classifier = build_classifier(ClassifierSettings.load(environ))
    return check_classifier(classifier) if classifier is not None else None
