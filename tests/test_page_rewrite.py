"""The proxy's page rewriting as pure functions: one script tag, and a CSP that gains the overlay's
script and API and nothing else (issue 14, point 8)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from maple_entrypoints.review.page import (
    OverlayNeeds,
    inject_script,
    meta_policies,
    overlay_nonce,
    relax_header,
    relax_meta_policies,
)

TAG = b'<script src="/__maple/overlay.js"></script>'
SCRIPT = "http://127.0.0.1:8123/__maple/overlay.js"
API = "http://127.0.0.1:8123/__maple/api/"
NEEDS = OverlayNeeds(SCRIPT, API)
MINTED = "NEWNONCE"
ADDABLE = {SCRIPT, API, f"'nonce-{MINTED}'"}


def mint() -> str:
    return MINTED


def relaxed_page(*policies: str) -> tuple[list[str], str | None]:
    """Each policy relaxed as the proxy does it, with the one nonce chosen over all of them."""
    nonce = overlay_nonce(policies, mint)
    return [relax_header(policy, NEEDS, nonce) for policy in policies], nonce


def parse(policy: str) -> list[tuple[str, list[str]]]:
    return [(p.split()[0].lower(), p.split()[1:]) for p in policy.split(";") if p.strip()]


def governing(policy: str, chain: tuple[str, ...]) -> list[str] | None:
    directives = parse(policy)
    for name in chain:
        for directive, sources in directives:
            if directive == name:
                return sources
    return None


def test_the_tag_goes_before_the_last_body_end() -> None:
    html = b"<html><body><p>a</p><template></BODY></template></Body ></html>"
    out = inject_script(html, TAG)
    assert out == b"<html><body><p>a</p><template></BODY></template>" + TAG + b"</Body ></html>"
    assert inject_script(b"<p>no body</p>", TAG) == b"<p>no body</p>" + TAG


def test_a_page_nonce_is_reused_and_the_policy_kept() -> None:
    policy = "script-src 'nonce-abc123' 'strict-dynamic'; default-src 'self'"
    assert relaxed_page(policy) == ([policy], "abc123")


def test_strict_dynamic_without_a_nonce_gets_a_new_one_not_a_url() -> None:
    policy = "script-src 'strict-dynamic' 'sha256-xyz'; connect-src 'self'"
    assert relaxed_page(policy) == (
        ["script-src 'strict-dynamic' 'sha256-xyz' 'nonce-NEWNONCE'; connect-src 'self'"],
        MINTED,
    )


def test_the_overlay_gets_its_own_urls_never_self() -> None:
    policy = "script-src https://cdn.example; connect-src https://api.example"
    assert relaxed_page(policy) == (
        [f"script-src https://cdn.example {SCRIPT}; connect-src https://api.example {API}"],
        None,
    )


def test_a_default_src_fallback_gets_its_own_directives_not_a_wider_default() -> None:
    [relaxed], _ = relaxed_page("default-src 'none'; img-src https://cdn.example")
    assert relaxed == (
        f"default-src 'none'; img-src https://cdn.example; script-src {SCRIPT}; connect-src {API}"
    )
    [relaxed], _ = relaxed_page("default-src https: 'unsafe-inline'")
    assert parse(relaxed) == [
        ("default-src", ["https:", "'unsafe-inline'"]),
        ("script-src", ["https:", "'unsafe-inline'", SCRIPT]),
        ("connect-src", ["https:", "'unsafe-inline'", API]),
    ]


def test_script_src_elem_governs_the_overlays_tag() -> None:
    policy = "script-src-elem https://cdn.example; script-src 'self'; connect-src 'self'"
    assert relaxed_page(policy)[0] == [
        f"script-src-elem https://cdn.example {SCRIPT}; script-src 'self'; connect-src 'self'"
    ]


def test_unsafe_inline_keeps_working_because_no_nonce_is_added() -> None:
    # a nonce in the list would switch 'unsafe-inline' off for the page's own inline scripts
    assert relaxed_page("script-src 'unsafe-inline'; connect-src 'self'") == (
        [f"script-src 'unsafe-inline' {SCRIPT}; connect-src 'self'"],
        None,
    )


def test_several_policies_in_one_header_are_each_relaxed() -> None:
    value = "script-src 'self'; connect-src 'self',default-src https:"
    [relaxed], _ = relaxed_page(value)
    first, second = relaxed.split(",")
    assert first == "script-src 'self'; connect-src 'self'"
    assert second == f"default-src https:; script-src https: {SCRIPT}; connect-src https: {API}"


def test_strict_policies_with_different_nonces_share_a_new_one() -> None:
    header = "script-src 'nonce-a' 'strict-dynamic'; connect-src 'self'"
    meta = "script-src 'nonce-b' 'strict-dynamic'; connect-src 'self'"
    relaxed, nonce = relaxed_page(header, meta)
    assert nonce == MINTED  # neither page nonce: adding one to the other policy would widen it
    assert relaxed == [
        "script-src 'nonce-a' 'strict-dynamic' 'nonce-NEWNONCE'; connect-src 'self'",
        "script-src 'nonce-b' 'strict-dynamic' 'nonce-NEWNONCE'; connect-src 'self'",
    ]


def test_a_nonce_shared_by_header_and_meta_is_reused() -> None:
    header = "script-src 'nonce-n1' 'strict-dynamic'; connect-src 'self'"
    meta = "script-src 'nonce-n1' 'nonce-n2'; connect-src 'self'"
    assert relaxed_page(header, meta) == ([header, meta], "n1")


def test_sandbox_reports_and_every_other_directive_survive() -> None:
    policy = "sandbox allow-forms; default-src 'none'; frame-ancestors 'none'; report-uri /csp"
    [relaxed], _ = relaxed_page(policy)
    assert parse(relaxed)[:4] == parse(policy)


def test_a_meta_policy_is_relaxed_in_place() -> None:
    html = (
        b'<head><meta http-equiv="Content-Security-Policy" '
        b"content=\"script-src 'nonce-n1'; connect-src https://api.example\"></head>"
    )
    assert meta_policies(html) == ["script-src 'nonce-n1'; connect-src https://api.example"]
    out = relax_meta_policies(html, NEEDS, "n1")
    assert meta_policies(out) == [f"script-src 'nonce-n1'; connect-src https://api.example {API}"]
    assert out.startswith(b'<head><meta http-equiv="Content-Security-Policy" content="')


def test_an_escaped_single_quoted_meta_stays_well_formed() -> None:
    html = (
        b"<meta http-equiv=content-security-policy "
        b"content='script-src &apos;strict-dynamic&apos;'><p>page</p>"
    )
    [policy] = meta_policies(html)
    assert policy == "script-src 'strict-dynamic'"
    out = relax_meta_policies(html, NEEDS, overlay_nonce([policy], mint))
    assert out == (
        b'<meta http-equiv=content-security-policy content="script-src &#x27;strict-dynamic&#x27;'
        b' &#x27;nonce-NEWNONCE&#x27;"><p>page</p>'
    )
    assert meta_policies(out) == ["script-src 'strict-dynamic' 'nonce-NEWNONCE'"]


def test_a_report_only_meta_is_left_alone() -> None:
    html = (
        b'<meta http-equiv="Content-Security-Policy-Report-Only" content="script-src \'none\'">'
        b'<meta data-content="x" http-equiv="content-security-policy" content="img-src *">'
    )
    assert meta_policies(html) == ["img-src *"]
    assert relax_meta_policies(html, NEEDS, None) == html


NAMES = st.sampled_from(
    [
        "default-src",
        "script-src",
        "script-src-elem",
        "connect-src",
        "img-src",
        "style-src",
        "worker-src",
        "object-src",
        "sandbox",
        "report-uri",
    ]
)
SOURCES = st.sampled_from(
    [
        "'self'",
        "'none'",
        "*",
        "https:",
        "http:",
        "data:",
        "blob:",
        "'unsafe-inline'",
        "'unsafe-eval'",
        "'strict-dynamic'",
        "'nonce-abc'",
        "'nonce-def'",
        "'sha256-xyz'",
        "https://cdn.example",
        "http://127.0.0.1:8123",
        "allow-scripts",
        "/csp",
    ]
)
POLICIES = st.lists(st.tuples(NAMES, st.lists(SOURCES, max_size=4)), min_size=0, max_size=6).map(
    lambda directives: "; ".join(" ".join([name, *sources]) for name, sources in directives)
)
PAGES = st.lists(POLICIES, min_size=1, max_size=3)


@given(PAGES)
def test_relaxing_never_widens_a_policy(policies: list[str]) -> None:
    relaxed, _ = relaxed_page(*policies)
    for before, after in zip(policies, relaxed, strict=True):
        old, new = parse(before), parse(after)
        added: list[str] = []
        for (name, sources), (kept_name, kept) in zip(old, new, strict=False):
            assert kept_name == name  # no directive dropped, renamed or reordered
            assert kept[: len(sources)] == sources or (
                [s for s in sources if s != "'none'"] == kept[: len(kept) - 1]
            )
            added += [s for s in kept if s not in sources]
        default = dict(reversed(old)).get("default-src")
        for name, sources in new[len(old) :]:  # only a script-src or connect-src, from default-src
            assert name in ("script-src", "connect-src")
            assert name not in dict(old)
            assert default is not None
            assert sources[:-1] == [s for s in default if s != "'none'"]
            added.append(sources[-1])
        assert set(added) <= ADDABLE, added  # never *, a scheme, 'unsafe-…', data: or blob:
        assert dict(reversed(new)).get("default-src") == default


@given(PAGES)
def test_relaxing_lets_the_overlay_load_and_fetch(policies: list[str]) -> None:
    relaxed, nonce = relaxed_page(*policies)
    for policy in relaxed:
        scripts = governing(policy, ("script-src-elem", "script-src", "default-src"))
        if scripts is not None:
            allowed_by_url = bool({"'self'", "*", "http:", SCRIPT} & set(scripts))
            strict = "'strict-dynamic'" in scripts
            assert f"'nonce-{nonce}'" in scripts or (allowed_by_url and not strict)
        connects = governing(policy, ("connect-src", "default-src"))
        assert connects is None or {"'self'", "*", "http:", API} & set(connects)


@given(PAGES)
def test_a_relaxed_policy_needs_nothing_more(policies: list[str]) -> None:
    relaxed, nonce = relaxed_page(*policies)
    assert overlay_nonce(relaxed, mint) == nonce
    assert [relax_header(policy, NEEDS, nonce) for policy in relaxed] == relaxed


@given(
    script=st.lists(SOURCES.filter(lambda s: "nonce" not in s and "dynamic" not in s), max_size=3),
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
    assert relaxed_page(policy) == ([policy], None)
