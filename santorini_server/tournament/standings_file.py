"""A tournament's standings saved beside its archive (``standings.msgpack``): what a view of a run
reads instead of counting the archive again (SPEC.md sections 10.4 and 16.5).

Theory of operation.  The standings are counters (:meth:`~..stats.standings.Standings.state`:
their size grows with the engines, not the games), so they are saved whole with ``offset``, the
archive byte up to which they counted, and the damaged regions found before it.  A reader loads
them and counts only the archive's frames after ``offset`` (the games since the last save): a
view of a million-game run costs a read of a few kilobytes, not of a gigabyte.

The file is derived from the archive, which stays the source of truth: it is written beside and
renamed over (a reader never meets half a file) but not fsync'd, and one that is missing,
damaged, made for other settings (other engines, seats or schedule length) or for another
archive is no error: the reader is told why (:class:`SnapshotError`, one line) and counts the
archive from its start.  "Another archive" is checked by the archive's last :data:`ANCHOR` bytes
before ``offset``, kept in the file: an archive cut shorter or replaced does not match them.

The tournament's collector keeps it (:class:`SnapshotKeeper`): saved at most every
:data:`SAVE_INTERVAL` seconds as games finish, and at the end, in a worker thread (a few
kilobytes, never fsync'd).  A failure to save is reported once and never stops the tournament.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ..records import GameRecord
from ..records.frames import CorruptFrame, Frame, frame_payload, iter_frames
from .config import TournamentConfig
from .output import ANCHOR, ARCHIVE, archive_anchor

if TYPE_CHECKING:
    from ..stats.standings import Standings

__all__ = [
    "ANCHOR", "DoneGames", "MAX_REGIONS", "SAVE_INTERVAL", "SNAPSHOT", "Snapshot", "SnapshotError", "SnapshotKeeper",
    "StandingsFile",
]

SNAPSHOT = "standings.msgpack"
FORMAT = 2
"""The file's format; another one is counted again, never guessed at."""
MAX_REGIONS = 100
"""Damaged regions of an archive kept (the first in the file) and shown; more are only counted.
So an archive damaged all through costs no more than this."""
SAVE_INTERVAL = 5.0
"""Seconds at least between two saves while games finish: what a view may have to count since."""


class DoneGames:
    """The schedule numbers recorded, as bits: a million games in 125 KB (a set of ints would
    take some 60 MB); saved in the snapshot, so that a resume need not read the games before it."""

    def __init__(self, total: int, bits: bytes = b"") -> None:
        self._bits = bytearray(total // 8 + 1)
        self._bits[: len(bits)] = bits[: len(self._bits)]
        self._count = int.from_bytes(self._bits, "little").bit_count()

    def __contains__(self, number: object) -> bool:
        return isinstance(number, int) and 0 <= number < 8 * len(self._bits) and bool(
            self._bits[number >> 3] >> (number & 7) & 1)

    def add(self, number: int) -> None:
        if number not in self:
            self._bits[number >> 3] |= 1 << (number & 7)
            self._count += 1

    def __len__(self) -> int:
        return self._count

    def bits(self) -> bytes:
        """A copy of the bits (bit ``n % 8`` of byte ``n // 8`` is game ``n``)."""
        return bytes(self._bits)

    def missing(self, total: int) -> Iterator[int]:
        """The numbers 1..``total`` not done, ascending (a byte of eight games done is skipped
        whole), read as the iteration reaches them."""
        bits = self._bits
        for byte in range(min(len(bits), total // 8 + 1)):
            if bits[byte] == 0xFF:
                continue
            for bit in range(8):
                number = byte * 8 + bit
                if 1 <= number <= total and not bits[byte] >> bit & 1:
                    yield number
        yield from range(max(1, 8 * len(bits)), total + 1)


class SnapshotError(ValueError):
    """A snapshot that cannot be used (one line): the archive is counted from its start instead."""


@dataclass(frozen=True)
class Snapshot:
    """Standings counted from an archive's first ``offset`` bytes, and the damaged regions found
    there: the first :data:`MAX_REGIONS` (``regions``, in file order) of ``damaged`` in all."""

    standings: Standings
    offset: int
    regions: tuple[CorruptFrame, ...] = ()
    damaged: int = 0
    done: bytes = b""
    """The games counted, as :meth:`DoneGames.bits` (empty: not kept, e.g. by a view)."""
    last: int | None = None
    """The number of the game whose frame ends at ``offset`` (None: none, or not kept)."""

    @property
    def games(self) -> int:
        """Games counted."""
        return self.standings.played


class _Saved(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    key: list[Any]
    offset: int
    anchor: bytes
    regions: list[tuple[int, int, str, bool]]
    damaged: int
    standings: Any
    done: bytes
    last: int | None


def _key(config: TournamentConfig) -> list[Any]:
    """What the counting depends on: the seats, the engines in order, the schedule's length."""
    return [config.players, [spec.name for spec in config.specs], config.total]


def _anchor(archive: Path, offset: int) -> bytes:
    """:func:`~.output.archive_anchor`, its failures as :class:`SnapshotError`."""
    try:
        return archive_anchor(archive, offset)
    except ValueError as exc:
        raise SnapshotError(str(exc)) from None
    except OSError as exc:
        raise SnapshotError(f"cannot read {archive}: {exc}") from None


class StandingsFile:
    """The snapshot of a tournament folder's standings, for the tournament of ``config``."""

    def __init__(self, directory: Path, config: TournamentConfig) -> None:
        self.directory = directory
        self.config = config
        self.path = directory / SNAPSHOT

    def save(self, snapshot: Snapshot) -> None:
        """Write the snapshot beside the file and rename it over (not fsync'd: it is derived).

        Raises:
            OSError: it cannot be written.
            SnapshotError: the archive is shorter than ``snapshot.offset``.
        """
        saved = _Saved(
            FORMAT, _key(self.config), snapshot.offset, _anchor(self.directory / ARCHIVE, snapshot.offset),
            [(r.offset, r.length, r.reason, r.truncated) for r in snapshot.regions[:MAX_REGIONS]],
            max(snapshot.damaged, len(snapshot.regions)), snapshot.standings.state(), snapshot.done, snapshot.last,
        )
        data = frame_payload(msgspec.msgpack.encode(saved))  # checksummed: a damaged file is known as such
        # a name of its own per writer: two views may save at once (the last rename wins; both are right)
        tmp = self.path.with_name(f".{SNAPSHOT}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            tmp.write_bytes(data)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise

    def load(self) -> Snapshot | None:
        """The snapshot, or None if there is none.

        Raises:
            SnapshotError: it is damaged, of another format, made for other settings or for
                another archive, or cannot be read (one line).
        """
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise SnapshotError(f"cannot read {self.path}: {exc}") from None
        frames = list(iter_frames(data))
        if len(frames) != 1 or not isinstance(frames[0], Frame):
            raise SnapshotError(f"{self.path} is damaged")
        try:
            saved = msgspec.msgpack.decode(frames[0].payload, type=_Saved)
        except msgspec.DecodeError as exc:
            raise SnapshotError(f"{self.path} does not read: {exc}") from None
        if saved.format != FORMAT:
            raise SnapshotError(f"{self.path} is of format {saved.format}, not {FORMAT}")
        if saved.key != _key(self.config):
            raise SnapshotError(f"{self.path} was made for other settings")
        if saved.offset < 0 or _anchor(self.directory / ARCHIVE, saved.offset) != saved.anchor:
            raise SnapshotError(f"{self.path} counted another archive than {self.directory / ARCHIVE}")
        try:
            from ..stats.standings import Standings  # openskill: loaded by the first view, not at the daemon's start

            standings = Standings.from_state(saved.standings)
            regions = tuple(CorruptFrame(*region) for region in saved.regions[:MAX_REGIONS])
        except (TypeError, ValueError) as exc:
            raise SnapshotError(f"{self.path}: {exc}") from None
        if standings.seats != self.config.players:
            raise SnapshotError(f"{self.path} holds standings of {standings.seats} seats")
        return Snapshot(standings, saved.offset, regions, max(saved.damaged, len(regions)), saved.done, saved.last)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class SnapshotKeeper:
    """The collector's snapshot of its standings (shared: the collector counts into them).

    ``damage``: the damaged regions the resume found (a torn last frame, which the resume cut
    off, is no longer in the archive and is left out); ``offset``: the archive's end after the
    resume.  Not thread-safe: ``add`` and ``write`` are called in turn.
    """

    def __init__(
        self,
        directory: Path,
        config: TournamentConfig,
        standings: Standings,
        damage: Sequence[CorruptFrame],
        offset: int,
        *,
        interval: float = SAVE_INTERVAL,
        warn: Callable[[str], None] = _stderr,
        done: DoneGames | None = None,
        last: int | None = None,
        damaged: int | None = None,
    ) -> None:
        self.file = StandingsFile(directory, config)
        self.done = done
        self.last = last
        self.standings = standings
        kept = [region for region in damage if not region.truncated]
        self.regions = tuple(kept[:MAX_REGIONS])
        self.damaged = len(kept) if damaged is None else max(damaged, len(self.regions))
        self.offset = offset
        self.interval = interval
        self._warn = warn
        self._warned = False
        self._changed = True  # a resume's count is worth saving too
        self._written_at: float | None = None

    def recorded(self, record: GameRecord, number: int, start: int, end: int) -> None:
        """:meth:`add` as the collector's :class:`~.sinks.Derived` sink (the collector counts the game)."""
        self.last = number
        self.add(end)

    def add(self, offset: int) -> None:
        """The standings now count the archive up to byte ``offset`` (the end of the frame just
        appended, :attr:`~.output.TournamentFiles.end`)."""
        self.offset = offset
        self._changed = True

    def due(self, now: float) -> bool:
        """Whether a save is due at time ``now``: something was counted since the last one, and
        :attr:`interval` seconds have passed (or there was none)."""
        return self.wait_for(now) <= 0

    def wait_for(self, now: float) -> float:
        """Seconds from ``now`` until a save is due (``inf``: nothing counted since the last)."""
        if not self._changed:
            return math.inf
        return 0.0 if self._written_at is None else self._written_at + self.interval - now

    def write(self, now: float | None = None) -> bool:
        """Save the snapshot if anything was counted since the last save; False if that failed
        (reported once with ``warn``: the games are safe in the archive, and a reader counts them)."""
        return self.prepare(now)()

    def backlog(self) -> int:
        """Always 0: every save is whole."""
        return 0

    def prepare(self, now: float | None = None) -> Callable[[], bool]:
        """:meth:`write` in two steps: this takes a copy of the standings and returns the save,
        which may then run in a worker thread while the collector counts games."""
        if now is not None:
            self._written_at = now
        if not self._changed:
            return lambda: True
        snapshot = Snapshot(type(self.standings).from_state(self.standings.state()), self.offset, self.regions,
                            self.damaged, self.done.bits() if self.done is not None else b"", self.last)
        self._changed = False

        def save() -> bool:
            try:
                self.file.save(snapshot)
            except (OSError, SnapshotError) as exc:
                self._changed = True  # tried again next time
                if not self._warned:
                    self._warned = True
                    self._warn(f"Warning: cannot save the standings in {self.file.path}: {exc} (the games are recorded)")
                return False
            return True

        return save
