"""The route: listing comments through HTTP, against reading the same store directly."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.run import comment, median_seconds
from contract_tests.support import make_repo
from maple_adapters.files.store import FileCommentStore
from maple_adapters.route.http import RouteHttp
from maple_adapters.route.store import RouteCommentStore
from maple_adapters.system import SystemClock
from maple_core.listing import list_all
from maple_entrypoints.route.app import RouteOptions
from maple_entrypoints.route.serve import served_app
from tests.loopback import serve_asgi

COUNT = 1_000
BUDGET = 4.0


def route_row() -> tuple[str, str, str, float, str, bool]:
    with tempfile.TemporaryDirectory(prefix="maple-bench-route-") as tmp:
        repo = make_repo(Path(tmp) / "repo", "feat/bench")
        store = FileCommentStore(SystemClock(), repo)
        store.append_many([comment(i) for i in range(COUNT)])
        running = serve_asgi(served_app(RouteOptions(store=store)))
        http = RouteHttp(running.url + "/api/maple")
        try:
            through = RouteCommentStore(http)

            def direct() -> object:
                assert len(list_all(FileCommentStore(SystemClock(), repo), "feat/bench")) == COUNT
                return None

            def routed() -> object:
                assert len(list_all(through, "feat/bench")) == COUNT
                return None

            routed()
            anchor = median_seconds(direct, 15)
            figure = median_seconds(routed, 15)
        finally:
            http.close()
            running.stop()
    ratio = figure / anchor
    return (
        f"list {COUNT:,} comments through the route over HTTP (median)",
        f"{figure * 1000:.1f} ms",
        f"the file store read directly: {anchor * 1000:.1f} ms",
        ratio,
        f"≤ {BUDGET:g}×",
        ratio <= BUDGET,
    )
