"""The merge gate as a GitHub check run, ``maple/visual-review`` (behaviour §5.3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from urllib.parse import quote

from maple_adapters.github.transport import GitHubTransport
from maple_core.cursor import format_js_timestamp
from maple_core.gate import GateConclusion, GateReason, GateReport, GateVerdict
from maple_core.json_types import JsonObject

__all__ = ["CHECK_NAME", "GitHubCheckRunPublisher"]

CHECK_NAME = "maple/visual-review"
"""The check run's name, which branch protection requires."""


class GitHubCheckRunPublisher:
    """Publishes verdicts as check runs: blocked is ``in_progress``, the rest ``completed``.

    A blocked run stays open so a later resolve can complete it on the same commit; a completed
    run is never reopened (a new one is created). With ``app_id``, only that App's runs are
    edited: another App's run (GitHub Actions', say) is superseded by a new one, because GitHub
    refuses an edit from any App but the one that created the run.
    """

    def __init__(
        self,
        transport: GitHubTransport,
        owner: str,
        repo: str,
        *,
        now: Callable[[], datetime],
        app_id: str | int | None = None,
        name: str = CHECK_NAME,
    ) -> None:
        self._transport = transport
        self._base = f"/repos/{owner}/{repo}"
        self._app_id = str(app_id) if app_id is not None else None
        self._name = name
        self._now = now

    @property
    def name(self) -> str:
        """``github``."""
        return "github"

    def _existing(self, sha: str) -> JsonObject | None:
        response = self._transport.request(
            "GET",
            f"{self._base}/commits/{quote(sha, safe='')}/check-runs",
            params={"check_name": self._name, "filter": "all" if self._app_id else "latest"},
        )
        data = response.data
        runs = data.get("check_runs") if isinstance(data, dict) else None
        if not isinstance(runs, list):
            return None
        objects: list[JsonObject] = [r for r in runs if isinstance(r, dict)]
        if self._app_id is None:
            return objects[0] if objects else None
        mine = [r for r in objects if str(_app_id(r)) == self._app_id]
        return mine[-1] if mine else None

    def publish(self, report: GateReport) -> None:
        """Create or update the commit's check run to show ``report``'s verdict."""
        verdict = report.verdict
        now = format_js_timestamp(self._now())
        payload: JsonObject = {
            "name": self._name,
            "head_sha": report.sha,
            "external_id": json.dumps(
                {"r": verdict.reason.value, "o": verdict.open, "t": verdict.total},
                separators=(",", ":"),
            ),
            "started_at": now,
            "output": {"title": verdict.title, "summary": verdict.summary},
        }
        if verdict.conclusion is GateConclusion.BLOCKED:
            payload["status"] = "in_progress"
        else:
            payload["status"] = "completed"
            payload["conclusion"] = (
                "success" if verdict.conclusion is GateConclusion.CLEAR else "neutral"
            )
            payload["completed_at"] = now
        if report.review_url:
            payload["details_url"] = report.review_url
        run = self._existing(report.sha)
        if run is not None and run.get("status") != "completed":
            self._transport.request(
                "PATCH", f"{self._base}/check-runs/{run.get('id')}", body=payload
            )
        else:
            self._transport.request("POST", f"{self._base}/check-runs", body=payload)

    def read(self, branch: str, sha: str) -> GateVerdict | None:
        """The verdict the commit's run shows, or ``None`` when it has none."""
        run = self._existing(sha)
        if run is None:
            return None
        if run.get("status") != "completed":
            conclusion = GateConclusion.BLOCKED
        elif run.get("conclusion") == "success":
            conclusion = GateConclusion.CLEAR
        else:
            conclusion = GateConclusion.NEUTRAL
        reason, open_, total = GateReason.UNREADABLE, 0, 0
        try:
            external = json.loads(str(run.get("external_id")))
            reason = GateReason(external["r"])
            open_, total = int(external["o"]), int(external["t"])
        except (ValueError, KeyError, TypeError):
            reason, open_, total = GateReason.UNREADABLE, 0, 0
        output = run.get("output")
        title = output.get("title") if isinstance(output, dict) else None
        summary = output.get("summary") if isinstance(output, dict) else None
        return GateVerdict(
            conclusion,
            reason,
            title if isinstance(title, str) else "",
            summary if isinstance(summary, str) else "",
            open=open_,
            total=total,
        )


def _app_id(run: JsonObject) -> object:
    app = run.get("app")
    return app.get("id") if isinstance(app, dict) else None
