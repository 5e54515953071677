"""``GET /health``: what a proxy's health check and a person read of a route worker."""

from __future__ import annotations

from pathlib import Path

from maple_adapters.sql import Database, upgrade
from maple_adapters.system import SystemClock
from maple_entrypoints.bootstrap.sql import sql_route
from maple_entrypoints.route import RouteOptions
from tests.route_support import live_route


def test_a_route_on_the_file_store_is_healthy_and_names_its_worker(tmp_path: Path) -> None:
    from maple_adapters.files import FileCommentStore

    options = RouteOptions(store=FileCommentStore(SystemClock(), tmp_path))
    with live_route(options) as route:
        answer = route.client.get("/health")
    assert answer.status_code == 200
    assert answer.json()["ok"] is True
    assert isinstance(answer.json()["worker"], int)


def test_a_database_without_the_schema_is_unhealthy_until_upgraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'maple.db'}"
    parts = sql_route(url, "acme/web", SystemClock())
    options = RouteOptions(
        store=parts.store, media=parts.media, health=parts.health, lifespan=parts.lifespan
    )
    with live_route(options) as route:
        sick = route.client.get("/health")
        assert sick.status_code == 503
        assert sick.json()["ok"] is False
        assert "maple db upgrade" in sick.json()["database"]["problem"]
        database = Database(url)
        upgrade(database)
        database.close()
        well = route.client.get("/health")
    assert well.status_code == 200, well.text
    assert well.json()["database"]["schema"] == well.json()["database"]["wanted"]
    assert "sqlite" not in well.text  # the database's address is not the world's to read
