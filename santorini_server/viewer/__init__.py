"""The game viewer: recorded games as one offline HTML file, and positions as SVG.

``model`` turns a record into view data through the rules core (pure), ``svg`` is the drawing
vocabulary (shapes, projection, one position as SVG), ``page`` renders the HTML with Jinja2.
SPEC.md section 14.5 describes what the page shows.
"""

from .model import game_data, games_data, position_data
from .page import render_page, render_viewer, write_page, write_viewer
from .svg import board_svg

__all__ = ["write_viewer", "write_page", "render_viewer", "render_page", "game_data", "games_data", "position_data", "board_svg"]
