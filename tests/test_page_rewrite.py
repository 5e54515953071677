"""The proxy's page rewriting as pure functions: one script tag, a CSP relaxed only as needed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maple_core.page import inject_script, relax_header, relax_meta_policies, relax_policy

TAG = b'<script src="/__maple/overlay.js"></script>'


def nonce() -> str:
    return "NEWNONCE"


def test_the_tag_goes_before_the_last_body_end() -> None:
    html = b"<html><body><p>a</p><template></BODY></template></Body ></html>"
    out = inject_script(html, TAG)
    assert out == b"<html><body><p>a</p><template></BODY></template>" + TAG + b"</Body ></html>"
    assert inject_script(b"<p>no body</p>", TAG) == b"<p>no body</p>" + TAG


def test_a_page_nonce_is_reused_and_the_policy_kept() -> None:
    policy = "script-src 'nonce-abc123' 'strict-dynamic'; default-src 'self'; img-src 'self' blob:"
    relaxed = relax_policy(policy, nonce)
    assert relaxed.policy == policy
    assert relaxed.nonce == "abc123"


def test_strict_dynamic_without_a_nonce_gets_one() -> None:
    relaxed = relax_policy("script-src 'strict-dynamic' 'sha256-xyz'; connect-src 'self'", nonce)
    assert relaxed.nonce == "NEWNONCE"
    assert "script-src 'strict-dynamic' 'sha256-xyz' 'nonce-NEWNONCE'" in relaxed.policy


def test_self_connect_and_blob_images_are_added_where_missing() -> None:
    relaxed = relax_policy("default-src 'none'; img-src https://cdn.example", nonce)
    assert relaxed.nonce is None
    directives = {part.split()[0]: part.split()[1:] for part in relaxed.policy.split("; ")}
    assert directives["default-src"] == ["'self'"]  # 'none' replaced: scripts and fetches
    assert directives["img-src"] == ["https://cdn.example", "blob:"]


def test_several_policies_in_one_header() -> None:
    value = "script-src 'self'; img-src blob:,default-src https:"
    relaxed = relax_header(value, nonce)
    first, second = relaxed.policy.split(",")
    assert first == "script-src 'self'; img-src blob:"
    assert "'self'" in second
    assert "blob:" in second


def test_a_meta_policy_is_relaxed_in_place() -> None:
    html = (
        b'<head><meta http-equiv="Content-Security-Policy" '
        b"content=\"script-src 'nonce-n1'; connect-src https://api.example\"></head>"
    )
    out, found = relax_meta_policies(html, nonce)
    assert found == "n1"
    assert b"connect-src https://api.example 'self'" in out


SOURCES = st.sampled_from(["'self'", "*", "https:", "data:", "'unsafe-inline'", "blob:"])


@given(
    script=st.lists(SOURCES, max_size=3),
    spacing=st.sampled_from([";", "; ", " ;  "]),
)
def test_a_policy_that_needs_nothing_passes_byte_for_byte(script: list[str], spacing: str) -> None:
    policy = spacing.join(
        [
            "script-src 'self' " + " ".join(script),
            "connect-src 'self' https://api.example",
            "img-src * blob:",
        ]
    )
    assert relax_policy(policy, nonce).policy == policy
    assert relax_header(policy, nonce).policy == policy
