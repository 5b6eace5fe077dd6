"""The game viewer: recorded games as one offline HTML file, and positions as SVG.

``model`` turns a record into view data through the rules core (pure), ``packed`` packs that
data for a page (columns, deflate, base85: less than the archive's bytes a game), ``svg`` is the
drawing vocabulary (shapes, projection, one position as SVG), ``page`` renders the HTML with
Jinja2.  SPEC.md section 14.5 describes what the page shows and holds.

The names below load on first use (PEP 562): the daemon's live hub needs ``model`` at start,
and Jinja2 (``page``) only with the first page it renders (the daemon starts in under a second).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import game_data, games_data, position_data
    from .page import render_page, render_viewer, write_page, write_viewer
    from .svg import board_svg

__all__ = ["write_viewer", "write_page", "render_viewer", "render_page", "game_data", "games_data", "position_data", "board_svg"]

_MODULES = {
    "write_viewer": "page", "write_page": "page", "render_viewer": "page", "render_page": "page",
    "game_data": "model", "games_data": "model", "position_data": "model", "board_svg": "svg",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_MODULES[name]}", __name__), name)
