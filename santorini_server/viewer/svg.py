"""The drawing vocabulary: the 2.5D and top-down boards as SVG, defined once.

The shapes (ground tile, the three narrowing blocks, the dome, the pawn) are SVG elements in
:data:`DEFS`, placed with ``<use>``; the projection is the table :func:`geometry` computes (the
screen anchor of every square in each of the four rotations, the height of each level, the
top-down grid).  :func:`board_svg` draws one position from them (``santorini show --svg``), and
the viewer page's JavaScript draws every position of a game from the *same* defs and table,
building the same elements: it places shapes and never computes a projection or a rule.
``tests/test_viewer_browser.py`` holds the two drawings to each other.

Each square is one ``<g class="sq">`` (2.5D) or ``<g class="cell">`` (top-down) carrying what
it shows as data attributes, so tests read the board back from the SVG: ``data-square`` (``c3``),
``data-height`` (blocks drawn, 0-3; under a dome the level it stands on), ``data-dome`` (0/1),
``data-worker`` (0/1), and for a worker ``data-group`` (its worker group, 1-based: the seat, or
with four seats the team) and ``data-letter`` (X/O/V, or team A/B).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ..rules.squares import SQUARE_NAMES
from .model import LETTERS, decode_board

__all__ = ["TILE_W", "TILE_H", "LEVEL_Z", "CELL", "DEFS", "STYLE", "geometry", "board_svg", "iso_anchor", "draw_order"]

#: The ground diamond of one square (isometric: twice as wide as deep).
TILE_W, TILE_H = 72, 36
#: Height above the ground of the top of level 0, 1, 2, 3 (blocks get lower as they narrow).
LEVEL_Z = (0, 14, 26, 36)
#: Each block's width as a share of the tile: the physical pieces narrow as the tower grows.
_BLOCK_SCALE = (0.86, 0.72, 0.58)
#: Side of a top-down cell.
CELL = 44
#: The 2.5D view box: the board diamond plus room for towers, domes and pawns above it.
ISO_BOX = (-200, -148, 400, 256)
TOP_BOX = (-22, -6, CELL * 5 + 30, CELL * 5 + 30)


def _prism(level: int) -> str:
    """One block: the top face and the two visible sides of an isometric box."""
    hw = TILE_W / 2 * _BLOCK_SCALE[level - 1]
    hd = TILE_H / 2 * _BLOCK_SCALE[level - 1]
    top, bottom = -LEVEL_Z[level], -LEVEL_Z[level - 1] - 1

    def pts(*xy: tuple[float, float]) -> str:
        return " ".join(f"{x:g},{y:g}" for x, y in xy)

    return (
        f'<g id="v-b{level}">'
        f'<polygon style="{_PAINT["bl"]}" points="{pts((-hw, top), (0, top + hd), (0, bottom + hd), (-hw, bottom))}"/>'
        f'<polygon style="{_PAINT["br"]}" points="{pts((0, top + hd), (hw, top), (hw, bottom), (0, bottom + hd))}"/>'
        f'<polygon style="{_PAINT["bt"]}" points="{pts((0, top - hd), (hw, top), (0, top + hd), (-hw, top))}"/>'
        "</g>"
    )


_HW, _HD = TILE_W / 2, TILE_H / 2
#: How each part of a shape is painted.  Inline styles, not classes: the copies ``<use>`` makes
#: live in shadow trees that the document's selectors do not reach, while the colour variables
#: (set on the ``<svg>``, light or dark) are inherited through them.
_EDGE = "stroke:var(--edge);stroke-width:.8;stroke-linejoin:round"
_PAINT = {
    "tile": "fill:var(--tile);stroke:var(--tile-edge);stroke-width:1",
    "bt": f"fill:var(--bt);{_EDGE}",
    "bl": f"fill:var(--bl);{_EDGE}",
    "br": f"fill:var(--br);{_EDGE}",
    "dome": "fill:var(--dome);stroke:#0d3470;stroke-width:1",
    "dome-hi": "fill:none;stroke:var(--dome-hi);stroke-width:2",
    "pawn": "fill:currentColor;stroke:var(--ink);stroke-width:1.2",
}
#: The shapes, once: every drawing of a board (Python's and the page's) ``<use>``s these.
DEFS = (
    "<defs>"
    f'<polygon id="v-tile" style="{_PAINT["tile"]}" points="0,{-_HD:g} {_HW:g},0 0,{_HD:g} {-_HW:g},0"/>'
    + "".join(_prism(k) for k in (1, 2, 3))
    + f'<g id="v-dome"><path style="{_PAINT["dome"]}" d="M-17,0 A17,8 0 0 0 17,0 L17,-3 A17,15 0 0 0 -17,-3 Z"/>'
    f'<path style="{_PAINT["dome-hi"]}" d="M-9,-12 A10,6 0 0 1 5,-15"/></g>'
    f'<g id="v-pawn"><ellipse style="{_PAINT["pawn"]}" cx="0" cy="0" rx="11" ry="5"/>'
    f'<path style="{_PAINT["pawn"]}" d="M-10,0 C-10,-4 -5,-10 -5,-17 L5,-17 C5,-10 10,-4 10,0 Z"/>'
    f'<circle style="{_PAINT["pawn"]}" cx="0" cy="-23" r="7.5"/></g>'
    + "".join(
        f'<marker id="v-arrow-{kind}" viewBox="0 0 10 10" refX="7" refY="5" markerWidth="4" markerHeight="4" '
        f'orient="auto"><path d="M0,0 L10,5 L0,10 z" style="fill:var(--{kind})"/></marker>'
        for kind in ("move", "forced")
    )
    + "</defs>"
)

#: The board's colours (light and dark), shared by the page and the standalone SVG.
STYLE = """
:root,.vb{--tile:#9fc57a;--tile-edge:#6f9552;--bt:#fbfaf5;--bl:#d9d5c8;--br:#bdb8a8;--edge:#77735f;--dome:#1f5fbf;
--dome-hi:#9cc2ff;--g1:#d23b2f;--g2:#f2c230;--g3:#2f9e57;--ink:#1b1b1b;--label:#555;--move:#e8590c;--forced:#7b2cbf;
--build:#0b7285;--cell0:#e9f1df;--cell1:#d6ccb4;--cell2:#bfae8a;--cell3:#a38b61}
@media (prefers-color-scheme: dark){:root,.vb{--tile:#4f6b3d;--tile-edge:#2f4424;--label:#bbb;--ink:#111;--cell0:#2d3a27;
--cell1:#5a5140;--cell2:#77684c;--cell3:#94805b;--move:#ff922b;--forced:#c77dff;--build:#3bc9db}}
.vb .g1{color:var(--g1)}.vb .g2{color:var(--g2)}.vb .g3{color:var(--g3)}
.vb .wl{font:bold 10px sans-serif;fill:var(--ink);text-anchor:middle;dominant-baseline:central;pointer-events:none}
.vb .lab{font:12px sans-serif;fill:var(--label);text-anchor:middle;dominant-baseline:central}
.vb .td{stroke:#6d6555;stroke-width:1}.vb .td0{fill:var(--cell0)}.vb .td1{fill:var(--cell1)}.vb .td2{fill:var(--cell2)}
.vb .td3{fill:var(--cell3)}.vb .tdh{font:bold 13px sans-serif;fill:#222;text-anchor:start;dominant-baseline:hanging}
.vb .tdd{fill:var(--dome);stroke:#0d3470}.vb .tdw{fill:currentColor;stroke:var(--ink);stroke-width:1.2}
""".strip()


def _rotated(sq: int, rotation: int) -> tuple[int, int]:
    """Grid column and row (from the back) of ``sq`` seen after ``rotation`` quarter turns."""
    c, d = sq % 5, sq // 5
    for _ in range(rotation % 4):
        c, d = 4 - d, c
    return c, d


def iso_anchor(sq: int, rotation: int) -> tuple[float, float]:
    """Screen point of the centre of ``sq``'s ground tile in the 2.5D view."""
    c, d = _rotated(sq, rotation)
    return (c - d) * TILE_W / 2, (c + d - 4) * TILE_H / 2


def draw_order(rotation: int) -> list[int]:
    """The squares back to front (the painter's order), so nearer towers hide farther ones."""
    return sorted(range(25), key=lambda sq: iso_anchor(sq, rotation)[::-1])


def _labels(rotation: int) -> list[list[Any]]:
    """File letters and rank digits along the two front edges, beside the edge squares."""
    out: list[list[Any]] = []
    for axis, dx in ((1, -1), (0, 1)):  # the front-left edge (front row), the front-right edge (right column)
        squares = [sq for sq in range(25) if _rotated(sq, rotation)[axis] == 4]
        files_vary = len({SQUARE_NAMES[sq][0] for sq in squares}) > 1
        for sq in squares:
            x, y = iso_anchor(sq, rotation)
            text = SQUARE_NAMES[sq][0 if files_vary else 1]
            out.append([text, round(x + dx * TILE_W * 0.45, 1), round(y + TILE_H * 0.45, 1)])
    return out


def geometry() -> dict[str, Any]:
    """The projection as data for the page: per rotation the anchor of every square and the
    back-to-front drawing order, the levels' heights, the top-down cell size, the view boxes."""
    iso = [[[round(v, 2) for v in iso_anchor(sq, r)] for sq in range(25)] for r in range(4)]
    order = [draw_order(r) for r in range(4)]
    return {
        "iso": iso,
        "order": order,
        "z": list(LEVEL_Z),
        "cell": CELL,
        "labels": [_labels(r) for r in range(4)],
        "isoBox": list(ISO_BOX),
        "topBox": list(TOP_BOX),
    }


def _attrs(sq: int, level: int, domed: bool, group: int | None, letter: str | None) -> str:
    worker = int(group is not None)
    text = f'data-square="{SQUARE_NAMES[sq]}" data-height="{level}" data-dome="{int(domed)}" data-worker="{worker}"'
    if group is not None:
        text += f' data-group="{group + 1}" data-letter="{letter}"'
    return text


def _groups_by_square(workers: Sequence[Sequence[int]]) -> dict[int, int]:
    return {sq: g for g, squares in enumerate(workers) for sq in squares}


def iso_square(sq: int, level: int, domed: bool, group: int | None, letter: str | None, x: float, y: float) -> str:
    """One square of the 2.5D view (the page's JavaScript builds exactly these elements)."""
    parts = [f'<g class="sq" {_attrs(sq, level, domed, group, letter)} transform="translate({x:g} {y:g})">',
             '<use href="#v-tile"/>']
    parts += [f'<use href="#v-b{k}"/>' for k in range(1, level + 1)]
    if domed:
        parts.append(f'<use href="#v-dome" y="{-LEVEL_Z[level]}"/>')
    elif group is not None:
        z = -LEVEL_Z[level]
        parts.append(f'<use href="#v-pawn" class="g{group + 1}" y="{z}"/><text class="wl" y="{z - 23}">{letter}</text>')
    parts.append("</g>")
    return "".join(parts)


def top_square(sq: int, level: int, domed: bool, group: int | None, letter: str | None) -> str:
    """One cell of the top-down helper: the level as a number, a dome as a blue disc, a worker as
    a disc in its colour with its letter (as ``santorini show`` prints them)."""
    x, y = sq % 5 * CELL, sq // 5 * CELL
    parts = [f'<g class="cell" {_attrs(sq, level, domed, group, letter)} transform="translate({x} {y})">',
             f'<rect class="td td{level}" width="{CELL}" height="{CELL}"/>',
             f'<text class="tdh" x="3" y="3">{level}</text>']
    half = CELL // 2
    if domed:
        parts.append(f'<circle class="tdd" cx="{half}" cy="{half}" r="{CELL * 0.36:g}"/>')
    elif group is not None:
        parts.append(f'<circle class="tdw g{group + 1}" cx="{half}" cy="{half}" r="{CELL * 0.3:g}"/>'
                     f'<text class="wl" x="{half}" y="{half}">{letter}</text>')
    parts.append("</g>")
    return "".join(parts)


def _box(box: Sequence[int]) -> str:
    return " ".join(map(str, box))


def board_svg(view: dict[str, Any], nseats: int, *, top_down: bool = False, rotation: int = 0, title: str = "") -> str:
    """A standalone SVG document of one position (a :func:`~.model.position_data` dict)."""
    cells = decode_board(view["b"])
    groups = _groups_by_square(view["w"])
    letters = LETTERS[nseats]
    body: list[str] = []
    if top_down:
        box = TOP_BOX
        for sq, (level, domed) in enumerate(cells):
            g = groups.get(sq)
            body.append(top_square(sq, level, domed, g, None if g is None else letters[g]))
        for i in range(5):
            body.append(f'<text class="lab" x="{i * CELL + CELL // 2}" y="{5 * CELL + 12}">{"abcde"[i]}</text>')
            body.append(f'<text class="lab" x="-11" y="{i * CELL + CELL // 2}">{5 - i}</text>')
    else:
        box = ISO_BOX
        for sq in draw_order(rotation):
            level, domed = cells[sq]
            g = groups.get(sq)
            x, y = iso_anchor(sq, rotation)
            body.append(iso_square(sq, level, domed, g, None if g is None else letters[g], round(x, 2), round(y, 2)))
        for text, x, y in _labels(rotation):
            body.append(f'<text class="lab" x="{x:g}" y="{y:g}">{text}</text>')
    head = f"<title>{escape(title)}</title>" if title else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="vb" viewBox="{_box(box)}" width="{box[2] * 2}" '
        f'height="{box[3] * 2}" role="img">{head}<style>{STYLE}</style>{DEFS}{"".join(body)}</svg>'
    )
