"""Fixtures several test files share; plain helpers are in ``tests/support.py``."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from contract_tests.support import FakeClock, make_repo
from tests.github.fake_github import FakeGitHub, Served, serve
from tests.postgres import Cluster


@pytest.fixture(scope="session")
def app_key() -> tuple[str, str]:
    """A gate App's RSA key pair, as PEM text: (private, public). Made once per run."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@pytest.fixture
def clock() -> FakeClock:
    """A clock the test moves by hand."""
    return FakeClock()


@pytest.fixture
def repo(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A git repository with the test module's ``BRANCH`` checked out (its main checkout)."""
    return make_repo(tmp_path / "repo", request.module.BRANCH)


@pytest.fixture(scope="module")
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """The fake GitHub over HTTPS for the whole module: the module's ``fake_github()`` if it has
    one (the tokens, logins and apps it knows), else a bare ``FakeGitHub()``. Each test's ``fake``
    fixture resets it and opens the pull request it needs."""
    build = getattr(request.module, "fake_github", FakeGitHub)
    running = serve(build(), tmp_path_factory.mktemp("fake-github"))
    yield running
    running.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def unmigrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new database of each kind, that no maple has migrated yet."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'maple.db'}"
    cluster: Cluster = request.getfixturevalue("postgres")
    return cluster.create_database(f"new_{uuid.uuid4().hex[:8]}")


CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, driven by Playwright; skipped (failed when strict) without it."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip("Chromium is not installed: apt-get install -y chromium (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A desktop-sized page that fails the test if the page threw an error."""
    opened = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    opened.close()
    assert errors == []
