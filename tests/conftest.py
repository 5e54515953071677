"""Fixtures several test files share; plain helpers are in ``tests/support.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from contract_tests.support import FakeClock, make_repo


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
