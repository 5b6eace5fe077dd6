"""An engine's analysis of a game, as a record keeps it: scores, win probabilities, marks, accuracy.

``santorini analyse`` (SPEC.md section 18) writes one annotation into each turn's comment,
``[%an BEFORE AFTER BEST LOSS MARK]`` (lichess's ``[%eval ...]`` idea), and the game's totals into
tags; both are plain record text, so SGN and the archive carry them and ``replay``/``convert``
keep them without knowing they exist.  The viewer reads them back with :func:`parse_annotation`.

Scores are the record's score text (``+21``, ``-3``, ``win/2``, ``-win/1``) from the mover's side.
A score in engine units becomes a win probability by the logistic curve ``1 / (1 + e^(-cp/scale))``
(``scale`` in the engine's units: :data:`DEFAULT_SCALE` suits the bundled engines, whose level-2
worker is worth 140); ``win/n`` is 1 and ``-win/n`` is 0.  The loss of a turn is the drop of the
mover's win probability, in percentage points, from the best turn (score before) to the turn
played (score after); the marks and the accuracy are lichess's, on that drop.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = [
    "Score",
    "TurnAnalysis",
    "DEFAULT_SCALE",
    "MARKS",
    "MARK_GLYPHS",
    "win_probability",
    "mark_of",
    "move_accuracy",
    "accuracy",
    "format_annotation",
    "parse_annotation",
    "with_annotation",
    "ANALYSIS_TAG",
    "accuracy_tag",
]

DEFAULT_SCALE = 300.0
"""Engine units per e-fold of the odds: a score of +300 is a 73 % win probability."""

#: Each mark and the least loss (percentage points of win probability) that earns it, mildest first.
MARKS: tuple[tuple[str, float], ...] = (("inaccuracy", 10.0), ("mistake", 20.0), ("blunder", 30.0))
#: How the turn list and SGN write each mark (PGN's glyphs).
MARK_GLYPHS: dict[str, str] = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
_GLYPH_MARKS = {glyph: mark for mark, glyph in MARK_GLYPHS.items()}

ANALYSIS_TAG = "Analysis"
"""The tag naming the engine and limit of an analysed game (``alphabeta depth=3 scale=300``)."""

_SCORE_RE = re.compile(r"([+-]?)(win/)?(\d+)")
_ANNOTATION_RE = re.compile(r"\s*\[%an ([^\]]*)\]")


@dataclass(frozen=True, slots=True)
class Score:
    """An engine's score from the side to move: ``cp`` engine units, or ``win`` in n own turns
    (negative: loses in n)."""

    cp: int | None = None
    win: int | None = None

    @classmethod
    def parse(cls, text: str) -> Score:
        """The record's score text (``+21``, ``-3``, ``0``, ``win/2``, ``-win/1``); ValueError if not one."""
        m = _SCORE_RE.fullmatch(text)
        if m is None:
            raise ValueError(f"bad score {text!r} (expected e.g. +21, -3, win/2, -win/1)")
        n = int(m[3]) * (-1 if m[1] == "-" else 1)
        return cls(win=n) if m[2] else cls(cp=n)

    def text(self) -> str:
        """The record's score text (SPEC.md section 13.1)."""
        if self.win is not None:
            return f"{'-' if self.win < 0 else ''}win/{abs(self.win)}"
        cp = self.cp or 0
        return f"{cp:+d}" if cp else "0"

    def negated(self) -> Score:
        """The same judgement from the other side (two seats, or the other team)."""
        return Score(win=-self.win) if self.win is not None else Score(cp=-(self.cp or 0))

    def rank(self) -> tuple[int, int]:
        """A sort key, better scores greater: a quicker forced win, then units, then a slower forced loss."""
        if self.win is not None:
            return (1, -self.win) if self.win >= 0 else (-1, -self.win)
        return (0, self.cp or 0)

    def win_probability(self, scale: float = DEFAULT_SCALE) -> float:
        """0..1: see the module docstring."""
        return win_probability(self, scale)

    def __str__(self) -> str:
        return self.text()


def win_probability(score: Score, scale: float = DEFAULT_SCALE) -> float:
    """The mover's chance of winning that ``score`` stands for: logistic in ``cp / scale``;
    a forced win is 1 and a forced loss 0 (``win/0`` is the mover's win already on the board)."""
    if score.win is not None:
        return 0.0 if score.win < 0 else 1.0
    x = (score.cp or 0) / scale
    if x < -700:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def mark_of(loss: float) -> str | None:
    """The mark a turn's ``loss`` (percentage points) earns: the gravest whose threshold it reaches."""
    found = None
    for mark, least in MARKS:
        if loss >= least:
            found = mark
    return found


def move_accuracy(loss: float) -> float:
    """0..100 for one turn (lichess's curve: 100 for no loss, about 65 for a 10-point loss)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * max(0.0, loss)) - 3.1669))


def accuracy(losses: list[float]) -> float | None:
    """A player's accuracy: the mean of :func:`move_accuracy` over its analysed turns (None for none)."""
    if not losses:
        return None
    return sum(move_accuracy(x) for x in losses) / len(losses)


def accuracy_tag(seat: int) -> str:
    """The tag holding seat ``seat``'s accuracy (``Player1Accuracy``), one decimal."""
    return f"Player{seat}Accuracy"


@dataclass(frozen=True, slots=True)
class TurnAnalysis:
    """One turn judged by the engine: scores from the mover's side, its best turn, the loss."""

    before: Score
    """The position before the turn, searched (the best the mover could do)."""
    after: Score
    """The position after the turn played, from the mover's side."""
    best: str | None
    """The engine's turn in the position before (None if it resigned)."""
    loss: float
    """Percentage points of win probability lost, 0 when the turn played is as good or better."""
    mark: str | None = None
    """``inaccuracy``, ``mistake``, ``blunder`` or None."""


def format_annotation(a: TurnAnalysis) -> str:
    """``[%an +35 -120 b3-b4+c5 51.6 ??]``: before, after, best (``-`` for none), loss, the mark's glyph."""
    parts = [a.before.text(), a.after.text(), a.best or "-", f"{a.loss:.1f}"]
    if a.mark is not None:
        parts.append(MARK_GLYPHS[a.mark])
    return f"[%an {' '.join(parts)}]"


def parse_annotation(comment: str | None) -> tuple[str | None, TurnAnalysis | None]:
    """Split a turn's comment into the rest of it (None if nothing is left) and its annotation
    (None without one, or with one that does not read as :func:`format_annotation` writes it)."""
    if comment is None:
        return None, None
    m = _ANNOTATION_RE.search(comment)
    if m is None:
        return comment, None
    rest = (comment[: m.start()] + comment[m.end():]).strip() or None
    fields = m[1].split()
    try:
        before, after = Score.parse(fields[0]), Score.parse(fields[1])
        loss = float(fields[3])
    except (IndexError, ValueError):
        return comment, None
    mark = None
    if len(fields) > 4:
        mark = _GLYPH_MARKS.get(fields[4])
        if mark is None or len(fields) > 5:
            return comment, None
    if not math.isfinite(loss):
        return comment, None
    return rest, TurnAnalysis(before, after, None if fields[2] == "-" else fields[2], loss, mark)


def with_annotation(comment: str | None, a: TurnAnalysis) -> str:
    """``comment`` with its annotation replaced by ``a`` (a rerun never stacks two)."""
    rest, _old = parse_annotation(comment)
    text = format_annotation(a)
    return f"{rest} {text}" if rest else text
