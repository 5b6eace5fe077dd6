"""The tournament's results file: one JSON object per game, a line each (for scripts)."""

from __future__ import annotations

import json
from typing import Any

from .durable import DurableAppender
from .frames import CorruptFrame
from .game import GameRecord, RecordError

__all__ = ["result_summary", "ResultsWriter"]


def result_summary(record: GameRecord) -> dict[str, Any]:
    """One game's line in the JSON Lines results file (what a script wants without replaying).

    Three and four seats add ``player3``/``player4`` and ``placings`` (one per seat, seat order,
    null for ``*``); a two-seat line is what it always was.
    """
    players = record.players
    line: dict[str, Any] = {"game": record.game_number, "round": record.tag("Round")}
    for k, name in enumerate(players, 1):
        line[f"player{k}"] = name
    line.update(gods=record.tag("Gods"), start=record.start, opening=record.opening, result=record.result)
    if len(players) > 2:
        places = record.placings
        line["placings"] = None if places is None else list(places)
    line.update(termination=record.termination, detail=record.termination_detail, turns=len(record.turns))
    return line


class ResultsWriter(DurableAppender):
    """Appends one JSON object per game (:func:`result_summary`) as a line, fsync'd.

    On open, a last line without its newline is completed if it is a whole JSON object and cut
    off if it is the start of one (``recovered`` says what was cut); other text is refused.
    """

    recovered: CorruptFrame | None

    def _recover(self) -> None:
        self.recovered = None
        size = self._size()
        if size == 0 or self._read(size - 1, 1) == b"\n":
            return
        start = self._find_last(b"\n") + 1
        tail = self._read(start, size - start)
        try:
            whole = isinstance(json.loads(tail.decode("utf-8")), dict)
        except ValueError:
            whole = False
        if whole:
            self._append(b"\n")
        elif not tail.startswith(b"{"):
            raise RecordError(f"{self.path!r} is not a JSON Lines results file; refusing to append")
        else:
            self.recovered = CorruptFrame(start, size - start, "half-written result line", True)
            self._truncate(start)

    def last_game(self) -> int | None:
        """The ``game`` of the file's last line (None: no lines, or that line does not hold one)."""
        size = self._size()
        if size == 0:
            return None
        end = size - 1 if self._read(size - 1, 1) == b"\n" else size
        start = self._find_last_before(b"\n", end) + 1
        try:
            line = json.loads(self._read(start, end - start).decode("utf-8"))
        except ValueError:
            return None
        game = line.get("game") if isinstance(line, dict) else None
        return game if isinstance(game, int) and not isinstance(game, bool) else None

    def append(self, record: GameRecord) -> int:
        """Append the record's summary line and fsync; returns its byte offset."""
        line = json.dumps(result_summary(record), ensure_ascii=False, separators=(",", ":"))
        return self._append((line + "\n").encode("utf-8"))
