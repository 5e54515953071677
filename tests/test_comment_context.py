"""``get_comment_context``: anchors, conditions and the mock replay (behaviour §6.6, §10.9)."""

from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from maple_core.comments import Anchor, Comment, Context, RegionMember
from maple_core.context import comment_context, describe_anchors, describe_conditions, replay_url
from maple_core.errors import InvalidInputError, InvalidRecordError, NotFoundError
from maple_core.statuses import CommentStatus

SAMPLE: dict[str, object] = {
    "url": "https://preview.example.com/dashboard",
    "viewport_width": 1440,
    "viewport_height": 900,
    "device_pixel_ratio": 2,
    "color_scheme": "light",
    "extra": {"locale": "en-GB", "breakpoint": "lg"},
}
RECIPE = {
    "version": 2,
    "calls": [
        {"key": "trpc:roast.list", "state": "empty"},
        {"key": "trpc:roast.count", "state": "empty"},
    ],
    "route": "/dashboard",
    "request": "no roasts yet",
}


def c(anchor: Anchor | None = None, mock: dict | None = None, **kw: object) -> Comment:  # type: ignore[type-arg]
    context = Context(**SAMPLE, mock=mock)  # type: ignore[arg-type]
    return Comment(
        id="c1", branch="feature/x", body="b", anchor=anchor or Anchor(), context=context, **kw
    )  # type: ignore[arg-type]


def test_anchors_in_order() -> None:
    anchor = Anchor(
        source="src/App.tsx:4:3", component="App", quote={"exact": "Overview"}, selector="main > h1"
    )
    assert describe_anchors(c(anchor)) == (
        "source src/App.tsx:4:3",
        "component App",
        'quote "Overview"',
        "selector main > h1",
    )


@pytest.mark.parametrize(
    ("located_by", "expected"),
    [
        ("tagger", "source src/App.tsx:4:3"),
        ("owner-stack", "source src/App.tsx:4:3 (found through React's owner stack; check it)"),
        (None, "source src/App.tsx:4:3"),
    ],
)
def test_how_the_source_was_found(located_by: str | None, expected: str) -> None:
    assert describe_anchors(c(Anchor(source="src/App.tsx:4:3", located_by=located_by))) == (
        expected,
    )


def test_region_members() -> None:
    anchor = Anchor(
        selector="main",
        extra={"region": {"x": 0, "y": 0, "width": 1, "height": 0.2}},
        members=(
            RegionMember(
                Anchor(source="src/BrewGuideCard.tsx:9:3", component="BrewGuideCard"), 0.95
            ),
            RegionMember(Anchor(quote={"exact": "How to dial in"}, selector="main > h2"), 1),
        ),
    )
    assert describe_anchors(c(anchor)) == (
        "selector main",
        "covers src/BrewGuideCard.tsx:9:3 (95% inside the rectangle)",
        'covers "How to dial in" (100% inside the rectangle)',
    )


def test_an_orphan_has_no_anchors() -> None:
    assert describe_anchors(c(Anchor(selector="main > h1"), status=CommentStatus.ORPHANED)) == ()


def test_conditions_of_the_sample_context() -> None:
    assert describe_conditions(c()) == (
        "1440×900 · 2× density · light · https://preview.example.com/dashboard"
    )
    fractional = Comment(
        id="x",
        branch="b",
        body="",
        context=Context(viewport_width=390, viewport_height=844, device_pixel_ratio=1.5),
    )
    assert describe_conditions(fractional) == "390×844 · 1.5× density"


def test_an_unknown_id_names_the_branch() -> None:
    with pytest.raises(NotFoundError, match=r"No comment nope on feature/x\."):
        comment_context([c()], "nope", "feature/x")


def decode_replay(replay: str) -> dict:  # type: ignore[type-arg]
    [encoded] = parse_qs(urlsplit(replay).query)["maple-mock"]
    return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))  # type: ignore[no-any-return]


def test_a_mocked_comment_carries_its_recipe_and_a_replay_link() -> None:
    context = comment_context([c(mock=RECIPE)], "c1", "feature/x")
    assert context.mock is not None
    assert context.mock["recipe"] == RECIPE
    replay = str(context.mock["replay"])
    parts = urlsplit(replay)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == SAMPLE["url"]
    assert decode_replay(replay) == RECIPE
    assert list(decode_replay(replay)) == ["version", "calls", "route", "request"]
    assert (
        'mocked: trpc:roast.list empty, trpc:roast.count empty ("no roasts yet")'
        in context.conditions
    )


def test_flags_and_identity_layers() -> None:
    recipe = {
        **RECIPE,
        "flags": {"new-roaster": True, "tier": "gold"},
        "as": {"role": "barista", "permissions": {"roast:delete": False}},
    }
    assert (
        "mocked: trpc:roast.list empty, trpc:roast.count empty; flags new-roaster=true, "
        'tier="gold"; as barista, without roast:delete (the page was told so; the server '
        'acted as the reviewer) ("no roasts yet")'
    ) in describe_conditions(c(mock=recipe))


def test_without_a_mock_there_is_no_mock() -> None:
    context = comment_context([c()], "c1", "feature/x")
    assert context.mock is None
    assert "mock" not in context.to_json()
    assert "mocked" not in context.conditions


def test_replay_sets_the_parameter_where_it_stands_as_urlsearchparams_does() -> None:
    replay = replay_url(
        "https://p.example/a?maple-mock=old&x=1&maple-mock=older", {"version": 1, "calls": []}
    )
    keys = [pair.split("=")[0] for pair in urlsplit(replay).query.split("&")]
    assert keys == ["maple-mock", "x"]
    assert replay_url("https://p.example?x=1", {"version": 2, "calls": []}).startswith(
        "https://p.example/?x=1&maple-mock="
    )


def test_members_round_half_up_and_keep_non_ascii_quotes() -> None:
    anchor = Anchor(
        members=(
            RegionMember(Anchor(quote={"exact": "Café"}), 0.125),
            RegionMember(Anchor(component="Card"), 0.005),
        )
    )
    assert describe_anchors(c(anchor)) == (
        'covers "Café" (13% inside the rectangle)',
        "covers Card (1% inside the rectangle)",
    )


def test_replay_replaces_an_old_mock_parameter_and_keeps_the_rest() -> None:
    replay = replay_url(
        "https://p.example/a?x=1&maple-mock=old&y=a%20b#frag", {"version": 1, "calls": []}
    )
    parts = urlsplit(replay)
    query = parse_qs(parts.query)
    assert query["x"] == ["1"]
    assert query["y"] == ["a b"]
    assert parts.fragment == "frag"
    assert decode_replay(replay) == {"version": 2, "calls": []}
    assert "y=a+b" in parts.query


@pytest.mark.parametrize(
    "recipe",
    [
        {"version": 3, "calls": []},
        {"version": 2, "calls": [{"key": "nope", "state": "empty"}]},
        {"version": 2, "calls": [{"key": "rest:GET /x", "state": "weird"}]},
        {"version": 2, "calls": [], "as": {}},
        {"version": 2, "calls": [], "route": "dashboard"},
    ],
)
def test_an_unreadable_recipe_is_a_clear_error(recipe: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidRecordError, match="recipe is unreadable"):
        comment_context([c(mock=recipe)], "c1", "feature/x")


def test_a_mock_on_a_page_without_an_http_url_is_a_clear_error() -> None:
    comment = Comment(id="c1", branch="b", body="", context=Context(url="not a url", mock=RECIPE))
    with pytest.raises(InvalidInputError, match="not an http"):
        comment_context([comment], "c1", "b")


def test_the_overlays_markup_copy_is_returned_bounded_and_the_path_into_frames_named() -> None:
    markup = '<li class="row"><span data-maple-picked>Sencha</span></li>'
    anchor = Anchor(
        selector="body > button",
        extra={"within": ['iframe[title="Receipt"]', "x-pay"], "markup": markup},
    )
    context = comment_context([c(anchor)], "c1", "feature/x")
    assert context.to_json()["markup"] == markup
    assert context.anchors == (
        'selector body > button (inside iframe[title="Receipt"], then x-pay)',
    )
    huge = comment_context([c(Anchor(extra={"markup": "<p>" + "x" * 9000}))], "c1", "feature/x")
    assert len(str(huge.to_json()["markup"])) == 4000
    assert "markup" not in comment_context([c(Anchor(selector="main"))], "c1", "b").to_json()


def test_a_source_found_in_vues_component_data_says_so() -> None:
    anchor = Anchor(source="src/components/TeaCard.vue:7:5", located_by="owner-stack")
    assert describe_anchors(c(anchor)) == (
        "source src/components/TeaCard.vue:7:5 (found through Vue's component data; check it)",
    )
