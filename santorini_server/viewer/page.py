"""The viewer page: one self-contained HTML file (inline SVG, CSS and JavaScript, no request).

Jinja2 renders ``templates/viewer.html.j2`` with autoescaping on, so every tag value and player
name a record carries is escaped where the HTML shows it.  The games travel packed
(:mod:`.packed`: columns, raw deflate, base85 text, whose alphabet has no ``<``, so no record
text can close the block), and so does the rest of the page (``viewer_body.html.j2`` rendered,
the stylesheets, ``viewer.js``); ``static/inflate.js``, inline and plain, decodes both in the
browser.  The stylesheet, the SVG defs and the geometry table are the package's own trusted
text.  So a page costs about 18 KB once (its styles, body and script, packed) and a game only
its packed data, about 20 bytes a turn: a tournament's hundred-game file costs less per game
than the archive (``tools/bench_viewer_pages.py``, SPEC.md section 10.7).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from ..records.durable import atomic_file
from ..records.game import GameRecord
from .model import games_data
from .packed import encode_blob, packed_games
from .svg import DEFS, ISO_BOX, STYLE, TOP_BOX

__all__ = ["render_viewer", "render_page", "write_page", "write_viewer"]


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("santorini_server.viewer", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


@functools.cache
def _static(name: str) -> Markup:
    """A file shipped in ``static/``: the package's own text, not escaped."""
    return Markup(resources.files("santorini_server.viewer").joinpath("static", name).read_text(encoding="utf-8"))


def _default_title(games: Sequence[dict[str, Any]]) -> str:
    if len(games) == 1:
        seats = games[0]["seats"]
        return " vs ".join(s["player"] for s in seats) + " \u2014 " + "/".join(s["god"] for s in seats)
    return f"{len(games)} Santorini games"


@functools.cache
def _script() -> str:
    """``viewer.js`` without its ``/* */`` comments (a fifth of the packed page; the script has no
    ``/*`` in a string or a regular expression, and the browser tests run what this leaves)."""
    return re.sub(r"/\*.*?\*/", "", str(_static("viewer.js")), flags=re.S)


def render_page(games: Sequence[dict[str, Any]], *, title: str | None = None) -> str:
    """The HTML of a viewer holding ``games`` (:func:`~.model.game_data` dicts)."""
    if title is None:
        title = _default_title(games)
    env = _environment()
    body = env.get_template("viewer_body.html.j2").render(
        title=title, games=len(games), defs=Markup(DEFS), iso_box=" ".join(map(str, ISO_BOX)),
        top_box=" ".join(map(str, TOP_BOX)),
    )
    page = {"style": STYLE + "\n" + str(_static("viewer.css")), "body": body, "script": _script()}
    return env.get_template("viewer.html.j2").render(
        title=title, page=Markup(encode_blob(page)), data=packed_games(games), inflate=_static("inflate.js"),
    )


def render_viewer(records: Sequence[GameRecord], *, title: str | None = None) -> str:
    """The viewer's HTML for ``records``, each replayed through the rules core."""
    return render_page(games_data(records), title=title)


def write_page(games: Sequence[dict[str, Any]], out: Path, *, title: str | None = None) -> None:
    """Write :func:`render_page` of ``games`` to ``out`` atomically (the old file or the whole new one)."""
    text = render_page(games, title=title)
    with atomic_file(out) as f:
        f.write(text.encode("utf-8"))


def write_viewer(records: Sequence[GameRecord], out: Path, *, title: str | None = None) -> None:
    """Write one self-contained HTML file showing every record of ``records``.

    Each record is replayed in Python through the rules core; one that does not re-validate is
    shown up to its last valid turn with the problem stated.  ``#game=K`` in the URL opens the
    K-th game (1-based; ``&turn=N`` steps to turn N); without it the first game, with the list of
    games when there are several.  Written atomically: ``out`` is either the old file or the
    whole new one.

    Raises:
        ValueError: ``records`` is empty.
        OSError: ``out`` cannot be written.
    """
    if not records:
        raise ValueError("no game to show")
    write_page(games_data(records), out, title=title)
