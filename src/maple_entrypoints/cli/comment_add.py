"""``maple comments add``: a review comment from the terminal, with a browser's full context."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from maple_core.anchors import Anchor
from maple_core.comments import NewComment
from maple_core.page_context import Context
from maple_core.text import one_line
from maple_entrypoints.cli.common import (
    EXIT_CONFIG,
    BranchOption,
    JsonOption,
    branch_of,
    fail,
    git_author,
    store_here,
)
from maple_entrypoints.cli.output import print_json

__all__ = ["ColorScheme", "add_comment"]


class ColorScheme(StrEnum):
    """The colour schemes a page is seen in."""

    LIGHT = "light"
    DARK = "dark"


_VIEWPORT = re.compile(r"(\d{1,5})[x×](\d{1,5})")


def _viewport(text: str) -> tuple[int, int]:
    match = _VIEWPORT.fullmatch(text.strip().lower())
    if match is None:
        raise fail(
            f"--viewport {one_line(text)[:40]!r} is not WIDTHxHEIGHT; give it in CSS pixels, such "
            "as 390x844.",
            EXIT_CONFIG,
        )
    return int(match.group(1)), int(match.group(2))


def add_comment(
    body: Annotated[str, typer.Option("--body", help="The comment's text.")],
    branch: BranchOption = None,
    selector: Annotated[
        str | None, typer.Option("--selector", help="CSS selector of the element it is about.")
    ] = None,
    url: Annotated[str, typer.Option("--url", help="The page it is about.")] = "",
    viewport: Annotated[
        str,
        typer.Option(
            "--viewport",
            help="The viewport it was seen at, WIDTHxHEIGHT in CSS pixels; default 0x0 (no "
            "browser).",
        ),
    ] = "0x0",
    density: Annotated[
        float, typer.Option("--density", min=0.1, max=16, help="The device pixel ratio.")
    ] = 1.0,
    color_scheme: Annotated[
        ColorScheme, typer.Option("--color-scheme", help="light or dark.", case_sensitive=False)
    ] = ColorScheme.LIGHT,
    as_json: JsonOption = False,
) -> None:
    """Add a review comment to a branch.

    The comment records a full context (page, viewport, density, colour scheme) as a browser's
    does, so every reader, Maple's table included, can show it.
    """
    cwd = Path.cwd()
    store = store_here(cwd)
    anchor = Anchor(selector=selector) if selector else Anchor()
    width, height = _viewport(viewport)
    context = Context(
        url=url,
        viewport_width=width,
        viewport_height=height,
        device_pixel_ratio=int(density) if density.is_integer() else density,
        color_scheme=color_scheme.value,
    )
    # The file store has no identity of its own: the git identity signs the comment. The GitHub
    # store signs with the token's user, and a route names its own author.
    author = git_author(cwd) if store.name == "file" else None
    draft = NewComment(
        branch=branch_of(branch, cwd),
        body=body,
        anchor=anchor,
        context=context,
        extra={"author": author} if author is not None else {},
    )
    stored = store.append(draft)
    if as_json:
        print_json(stored.to_json())
    else:
        print(stored.id)
