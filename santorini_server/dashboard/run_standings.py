"""A run's standings for its page, kept up to date by reading only what its archive gained.

Why: the standings are the tournament's own (:func:`~..tournament.scoring.count_game` into
:class:`~..stats.standings.Standings` or ``NSeatStandings``, never a second way of counting), and
they need every game's record, which lives in the run's archive, not in the database.  Reading a
10,000-game archive for every page view would cost seconds; so each run's standings are kept in
memory with the byte offset the archive was read to, and a view reads only the frames appended
since (an archive only grows: the tournament appends fsync'd frames).  A frame cut off by a
write in progress is left for the next view.  The first view of a run after the daemon starts
reads the whole archive once, decoding each record's tags and eliminations but not its turns.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from ..records.frames import ArchiveError, Frame, iter_frames
from ..records.game import GameRecord
from ..records.payload import decode_record_without_turns
from ..stats.standings import Standings
from ..tournament.config import TournamentConfig
from ..tournament.scoring import count_game, new_standings

if TYPE_CHECKING:
    from ..stats.nseat_standings import NSeatStandings  # loads openskill: only three and four seats need it

__all__ = ["RunStandings", "StandingsCache"]

_T = TypeVar("_T")


@dataclass
class RunStandings:
    """One run's standings and how far its archive was read."""

    config: TournamentConfig
    standings: Standings | NSeatStandings
    offset: int = 0
    seen: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    shown: tuple[int, object] | None = None
    """The last ``show`` result and the games counted when it was made (tables cost more than a
    page's queries at 10,000 games: they are remade only when a game was added)."""

    def view(self, archive: Path, show: Callable[[Standings | NSeatStandings], _T]) -> _T:
        """``show(standings)`` once the games appended to ``archive`` since the last call are
        counted, under the run's lock (blocking: call it in a thread)."""
        with self.lock:
            self._update(archive)
            if self.shown is None or self.shown[0] != len(self.seen):
                self.shown = (len(self.seen), show(self.standings))
            return cast(_T, self.shown[1])

    def _update(self, archive: Path) -> None:
        try:
            with archive.open("rb") as file:
                file.seek(self.offset)
                tail = file.read()
        except FileNotFoundError:
            return
        end = 0
        for item in iter_frames(tail):
            if not isinstance(item, Frame):
                continue
            end = item.offset + item.size
            try:
                self._count(decode_record_without_turns(item.payload))
            except ArchiveError:
                continue  # an unreadable payload: the archive's readers report it; the standings skip it
        self.offset += end

    def _count(self, record: GameRecord) -> None:
        number = record.game_number
        if number is None or number in self.seen:  # a resumed run may hold a game twice: it counts once
            return
        self.seen.add(number)
        count_game(self.standings, record, number)


class StandingsCache:
    """The standings of every run viewed since the daemon started, by run id."""

    def __init__(self) -> None:
        self._runs: dict[int, RunStandings] = {}
        self._lock = threading.Lock()

    def view(
        self, run_id: int, config: TournamentConfig, archive: Path, show: Callable[[Standings | NSeatStandings], _T]
    ) -> _T:
        """``show`` of the run's standings, brought up to date with its archive (blocking: call it in a thread)."""
        with self._lock:
            entry = self._runs.get(run_id)
            if entry is None:
                entry = self._runs[run_id] = RunStandings(config, new_standings(config))
        return entry.view(archive, show)
