"""The overlay on real framework apps (React 19 and 18, Vue 3, each through Vite's dev server):
what an anchor says about the element, checked against the fixture's real source lines, and how
the pin keeps its element through re-renders, a virtual list, a route change and a fix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from contract_tests.support import make_repo
from maple_entrypoints.review import review_app
from tests.framework_apps import app_copy, line_of, serving
from tests.loopback import Running, serve_asgi
from tests.test_review_browser import browser

__all__ = ["browser"]

BRANCH = "feat/beans"
OVERLAY = "[data-maple-overlay]"


@dataclass
class App:
    repo: Path
    folder: Path
    url: str
    proxy: Running

    def comments(self) -> list[dict[str, Any]]:
        answer = httpx.get(self.proxy.url + "/__maple/api/comments", params={"branch": BRANCH})
        answer.raise_for_status()
        return list(answer.json()["comments"])

    def comment(self, body: str) -> dict[str, Any]:
        return next(c for c in self.comments() if c["body"] == body)

    def where(self, file: str, text: str) -> str:
        """``path:line:col`` of the first line of ``file`` (in the app) holding ``text``."""
        lines = (self.folder / file).read_text(encoding="utf-8").splitlines()
        number = next(i for i, line in enumerate(lines, 1) if text in line)
        column = lines[number - 1].index(text) + 1
        return f"{self.folder.name}/{file}:{number}:{column}"


@contextmanager
def reviewed(tmp: Path, name: str, react: str = "19") -> Iterator[App]:
    repo = make_repo(tmp / "repo", BRANCH)
    folder = app_copy(name, repo)
    with serving(folder, react=react) as url:
        proxy = serve_asgi(review_app(url, repo, BRANCH))
        try:
            yield App(repo, folder, url, proxy)
        finally:
            proxy.stop()


@pytest.fixture(scope="module")
def react19(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    with reviewed(tmp_path_factory.mktemp("react19"), "react") as app:
        yield app


@pytest.fixture(scope="module")
def react18(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    with reviewed(tmp_path_factory.mktemp("react18"), "react", react="18") as app:
        yield app


@pytest.fixture(scope="module")
def vue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    with reviewed(tmp_path_factory.mktemp("vue"), "vue") as app:
        yield app


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    opened.close()
    assert errors == []


def open_app(page: Any, app: App, path: str = "/?manual") -> None:
    page.goto(app.proxy.url + path)
    page.wait_for_selector(f"{OVERLAY} >> button.mode")


def comment_on(page: Any, selector: str, body: str) -> dict[str, Any]:
    page.click(f"{OVERLAY} >> button.mode")
    page.click(selector)
    page.wait_for_selector(f"{OVERLAY} >> textarea:focus")
    page.fill(f"{OVERLAY} >> textarea", body)
    page.click(f"{OVERLAY} >> button.send")
    page.wait_for_selector(f"{OVERLAY} >> li:has-text({json.dumps(body)})", state="attached")
    return page.evaluate("0") or {}


def test_react_19_anchor_names_the_component_and_the_line_through_the_source_map(
    react19: App, page: Any
) -> None:
    open_app(page, react19)
    comment_on(page, ".card:nth-child(1) .stage", "The stage should be bold.")
    comment_on(page, ".welcome", "Say good morning.")
    stage = react19.comment("The stage should be bold.")["anchor"]
    assert stage["component"] == "Card"
    assert stage["locatedBy"] == "owner-stack"
    assert stage["source"] == react19.where("src/Cards.tsx", '<p className="stage">')
    welcome = react19.comment("Say good morning.")["anchor"]
    assert welcome["component"] == "Home"
    assert welcome["source"] == react19.where("src/App.tsx", '<h2 className="welcome">')
    path, line, _ = welcome["source"].rsplit(":", 2)
    assert "Today's beans" in line_of(react19.repo / path, int(line))


def test_react_18_anchor_names_the_component_and_the_line_from_the_fibers_source(
    react18: App, page: Any
) -> None:
    open_app(page, react18)
    comment_on(page, ".card:nth-child(2) .stage", "React 18 stage.")
    anchor = react18.comment("React 18 stage.")["anchor"]
    assert page.evaluate("Object.keys(document.querySelector('.stage')).length") > 0
    assert anchor["component"] == "Card"
    assert anchor["locatedBy"] == "owner-stack"
    assert anchor["source"] == react18.where("src/Cards.tsx", '<p className="stage">')


def test_vue_anchor_names_the_component_and_its_line_in_the_template(vue: App, page: Any) -> None:
    open_app(page, vue)
    comment_on(page, ".card:nth-child(2) .mood", "Vue mood.")
    comment_on(page, ".welcome", "Vue welcome.")
    mood = vue.comment("Vue mood.")["anchor"]
    assert mood["component"] == "TeaCard"
    assert mood["source"] == vue.where("src/components/TeaCard.vue", '<p class="mood">')
    welcome = vue.comment("Vue welcome.")["anchor"]
    assert welcome["component"] == "App"
    assert welcome["source"] == vue.where("src/App.vue", '<h2 class="welcome">')
