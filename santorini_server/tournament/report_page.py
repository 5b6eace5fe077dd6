"""``report.html`` as text: :class:`~.report.ReportData` through a Jinja2 template.

Why Jinja2: the page is mostly fixed markup with a few loops, which a template shows as it will
be, and autoescaping makes every engine name and tag (untrusted text) safe without a call at
each use.  The template, its CSS and its JavaScript ship inside the package (package data) and
are inlined into the page, which makes no request of any kind: it works from a file URL, offline.
The game list is one entry per viewer file: the page's script loads a file's rows from the
script beside it when it shows them, so a million-game report stays small and opens fast.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

import jinja2
from markupsafe import Markup

from .report import ChartLine, ReportData

__all__ = ["render_report", "chart_geometry", "ChartGeometry", "PALETTE"]

#: Line colours, one per engine in standings order (repeating after eight): readable on the light
#: and the dark background alike.
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#e377c2", "#8c8c00")


@dataclass(frozen=True)
class Tick:
    y: float
    label: str


@dataclass(frozen=True)
class PlacedLine:
    """A chart line in SVG coordinates: ``points`` is the polyline's attribute, ``end`` its last
    point (marked, so a line of one game shows too), ``last`` the final score as a percentage."""

    name: str
    colour: str
    points: str
    end: tuple[float, float] | None
    last: str


@dataclass(frozen=True)
class ChartGeometry:
    width: int
    height: int
    left: int
    right: int
    ticks: tuple[Tick, ...]
    lines: tuple[PlacedLine, ...]


def chart_geometry(lines: tuple[ChartLine, ...], played: int, width: int = 640, height: int = 260) -> ChartGeometry:
    """Place each line in the chart's box: x from 0 to ``played`` games, y from 0 to 100 %."""
    left, right, top, bottom = 44, width - 12, 10, height - 22

    def x(games: int) -> float:
        return left + (right - left) * games / max(played, 1)

    def y(score: float) -> float:
        return bottom - (bottom - top) * score

    ticks = tuple(Tick(round(y(k / 4), 1), f"{25 * k}%") for k in range(5))
    placed = tuple(
        PlacedLine(
            line.name,
            PALETTE[i % len(PALETTE)],
            " ".join(f"{x(g):.1f},{y(s):.1f}" for g, s in line.points),
            (round(x(line.points[-1][0]), 1), round(y(line.points[-1][1]), 1)) if line.points else None,
            f"{line.points[-1][1] * 100:.1f}%" if line.points else "n/a",
        )
        for i, line in enumerate(lines)
    )
    return ChartGeometry(width, height, left, right, ticks, placed)


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("santorini_server.tournament", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _blocks_json(data: ReportData) -> str:
    """The game list's blocks as ``{"played": n, "blocks": [[first, last, games], ...]}``: the list
    loads each block's rows from its script (``games/NNNN-MMMM.js``) when it shows it."""
    blocks = [[block.first, block.last, count] for block, count in data.blocks]
    return json.dumps({"played": data.played, "blocks": blocks}, separators=(",", ":"))


def render_report(data: ReportData) -> str:
    """The whole page (one self-contained HTML document)."""
    template = _environment().get_template("report.html.j2")
    return template.render(
        info=data.info,
        played=data.played,
        standings=data.standings,
        crosstable=data.crosstable,
        chart=chart_geometry(data.chart, data.played),
        losses=data.losses,
        terminations=data.terminations,
        gods=data.gods,
        games_json=Markup(_blocks_json(data)),
    )
