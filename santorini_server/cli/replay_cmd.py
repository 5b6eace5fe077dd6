"""``santorini replay`` and ``santorini convert``: read, re-validate, show and convert game records.

Input files are recognised by content, not by name: a file that starts with the archive magic
(or holds it and is not UTF-8 text, i.e. an archive whose first frame is damaged) is a msgpack
archive, anything else is SGN.  Damaged archive regions are reported as warnings and skipped, so
the good games are always listed, checked or converted; the exit status says whether anything
was lost.

Re-validating a big file is the expensive part (one filtered move generation per turn), so the
games are checked in chunks, in worker processes when there are many (``--jobs``); results come
back in file order.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import mmap
import os
import signal
import stat
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

import click

from ..adjudicator import Outcome
from ..records import (
    FORMATS,
    ArchiveError,
    CorruptFrame,
    Elimination,
    Format,
    Frame,
    GameRecord,
    SgnError,
    TurnRecord,
    atomic_file,
    convert_records,
    detect_file_format,
    detect_format,
    format_comment,
    format_elimination,
    format_of_name,
    iter_file_lines,
    iter_frames,
    iter_sgn,
    iter_stream_frames,
    map_file,
    read_frame,
    sgn_lines,
)
from ..records.replay import (
    ReplayProblem,
    ReplayResult,
    TransitionCache,
    check_record,
    replay_record,
    turn_labels,
)
from ..render import render
from ..viewer import game_data, write_page
from .output_files import refuse_existing, same_file

__all__ = ["replay", "convert"]

#: Games per work unit, and the game count from which worker processes pay for themselves.
_CHUNK = 250
_PARALLEL_FROM = 2_000


# --- reading -------------------------------------------------------------------------------


def _fail(message: str) -> click.ClickException:
    return click.ClickException(message)


def _open_data(path: Path) -> bytes | mmap.mmap:
    """The whole file, memory-mapped when possible (one-line error if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return map_file(f)
    except IsADirectoryError:
        raise _fail(f"{path} is a directory, not a game record file") from None
    except OSError as exc:
        raise _fail(f"cannot read {path}: {exc.strerror or exc}") from None


Unit = Frame | GameRecord
"""A game to check: an archive frame (decoded where it is checked) or an SGN record."""


@dataclass(frozen=True, slots=True)
class Row:
    """One game as listed: summary fields and the problems found re-validating it."""

    players: tuple[str, ...]
    gods: str
    result: str
    termination: str
    turns: int
    problems: tuple[ReplayProblem, ...]


class _Reader:
    """Yields work units (and damage) of a file in order; remembers an SGN error at the end.

    A regular file is read as a stream (archive frames or SGN lines, one at a time), so memory
    stays bounded whatever its size; anything else (a pipe) is read whole first.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.error: str | None = None
        self.data: bytes | mmap.mmap | None = None
        self._file: BinaryIO | None = None
        try:
            f = open(path, "rb")  # noqa: SIM115 - kept open until close()
        except IsADirectoryError:
            raise _fail(f"{path} is a directory, not a game record file") from None
        except OSError as exc:
            raise _fail(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            if f.seekable() and stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                self._file = f
                self.kind = detect_file_format(f)
                return
            self.data = map_file(f)
        except OSError as exc:
            f.close()
            raise _fail(f"cannot read {path}: {exc.strerror or exc}") from None
        f.close()
        self.kind = detect_format(self.data)

    def items(self) -> Iterator[Unit | CorruptFrame]:
        f, data = self._file, self.data
        if f is not None:
            f.seek(0)
            frames, lines = (iter_stream_frames(f.read), None) if self.kind == "msgpack" else (None, iter_file_lines(f))
        else:
            assert data is not None
            frames, lines = (iter_frames(data), None) if self.kind == "msgpack" else (None, sgn_lines(data))
        if frames is not None:
            yield from frames
            return
        assert lines is not None
        try:
            yield from iter_sgn(lines)
        except SgnError as exc:
            self.error = f"{self.path}: {exc}"

    def close(self) -> None:
        if isinstance(self.data, mmap.mmap):
            self.data.close()
        if self._file is not None:
            self._file.close()


def _record_of(unit: Unit) -> GameRecord | CorruptFrame:
    return read_frame(unit) if isinstance(unit, Frame) else unit


_CACHE: TransitionCache = {}  # per process: openings shared between the games a process checks


def _check_chunk(chunk: list[Unit]) -> list[Row | CorruptFrame]:
    """Decode and re-validate a chunk of games (runs in a worker process for big files)."""
    out: list[Row | CorruptFrame] = []
    for unit in chunk:
        record = _record_of(unit)
        if isinstance(record, CorruptFrame):
            out.append(record)
            continue
        problems = check_record(record, None, _CACHE)
        out.append(Row(record.players, record.tag("Gods") or "", record.result, record.termination,
                       len(record.turns), tuple(problems)))
    return out


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent reports Ctrl-C once


def _pieces(items: Iterator[Unit | CorruptFrame]) -> Iterator[list[Unit] | CorruptFrame]:
    """Chunks of at most :data:`_CHUNK` units, damage in place between them, in file order."""
    chunk: list[Unit] = []
    for item in items:
        if isinstance(item, CorruptFrame):
            if chunk:
                yield chunk
                chunk = []
            yield item
            continue
        chunk.append(item)
        if len(chunk) == _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _in_pool(pool: ProcessPoolExecutor, pieces: Iterator[list[Unit] | CorruptFrame], ahead: int,
             ) -> Iterator[list[Row | CorruptFrame] | CorruptFrame]:
    """Each chunk's rows from the pool, in order, with at most ``ahead`` chunks in flight (the
    file is read only as fast as the workers check it)."""
    pending: collections.deque[Future[list[Row | CorruptFrame]] | CorruptFrame] = collections.deque()
    in_flight = 0
    for piece in pieces:
        if isinstance(piece, CorruptFrame):
            pending.append(piece)
            continue
        pending.append(pool.submit(_check_chunk, piece))
        in_flight += 1
        while in_flight > ahead:
            done = pending.popleft()
            if not isinstance(done, CorruptFrame):
                in_flight -= 1
                yield done.result()
            else:
                yield done
    for done in pending:
        yield done if isinstance(done, CorruptFrame) else done.result()


def checked_rows(reader: _Reader, jobs: int | None) -> Iterator[tuple[int, Row] | CorruptFrame]:
    """(game number, row) for every readable game, and the damaged regions, in file order.

    Game numbers count readable games from 1, as ``--game N`` does.  The file is read as the
    games are checked: at most :data:`_PARALLEL_FROM` games are read ahead to choose between
    worker processes and this one, and a few chunks per worker while they check.
    """
    pieces = _pieces(reader.items())
    head: list[list[Unit] | CorruptFrame] = []
    games = chunks = 0
    for piece in pieces:
        head.append(piece)
        if isinstance(piece, list):
            games += len(piece)
            chunks += 1
            if games >= _PARALLEL_FROM:
                break
    if jobs is None:
        jobs = min(os.cpu_count() or 1, 8) if games >= _PARALLEL_FROM else 1
    everything = itertools.chain(head, pieces)
    del head
    pool: ProcessPoolExecutor | None = None
    if jobs > 1 and chunks > 1:
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint)
        results: Iterator[list[Row | CorruptFrame] | CorruptFrame] = _in_pool(pool, everything, 2 * jobs)
    else:
        results = (p if isinstance(p, CorruptFrame) else _check_chunk(p) for p in everything)
    number = 0
    try:
        for checked in results:
            if isinstance(checked, CorruptFrame):
                yield checked
                continue
            for row in checked:
                if isinstance(row, CorruptFrame):
                    yield row
                    continue
                number += 1
                yield number, dataclasses.replace(
                    row, problems=tuple(dataclasses.replace(p, game_number=number) for p in row.problems)
                )
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _damage_text(item: CorruptFrame) -> str:
    return f"warning: {item.describe()}"


def _symbols() -> tuple[str, str]:
    """Marks for a bad / good game; plain ASCII if stdout cannot encode the check mark."""
    try:
        "✗".encode(sys.stdout.encoding or "ascii")
        return "✗", " "
    except (UnicodeEncodeError, LookupError):
        return "x", " "


# --- showing one game ----------------------------------------------------------------------


def _telemetry(t: TurnRecord) -> str:
    """The turn's comment as the record holds it (``{0.001s}``, not a rounded ``{0.00s}``)."""
    comment = format_comment(t)
    return f" {comment}" if comment else ""


def _find_game(reader: _Reader, wanted: int) -> GameRecord:
    number = 0
    for item in reader.items():
        if isinstance(item, CorruptFrame):
            click.echo(_damage_text(item), err=True)
            continue
        record = _record_of(item)
        if isinstance(record, CorruptFrame):
            click.echo(_damage_text(record), err=True)
            continue
        number += 1
        if number == wanted:
            return record
    if reader.error:
        raise _fail(f"no game {wanted}: {reader.error}")
    raise _fail(f"no game {wanted}: {reader.path} holds {number} game{'s' if number != 1 else ''}")


def _show_game(record: GameRecord, number: int, upto: int | None) -> int:
    """Print the game turn by turn (all of it, or up to turn ``upto``); exit status."""
    result = replay_record(record, number)
    colour = sys.stdout.isatty()
    click.echo(_header(record, number))
    last = len(result.positions) - 1
    if result.positions:
        stop = last if upto is None else min(upto, last)
        for k in range(stop + 1):
            click.echo(_frame(result, k, colour))
    if upto is None or upto >= last:
        click.echo(_footer(result))
    for p in result.problems:
        click.echo(f"{_symbols()[0]} {p}")
    return 1 if result.problems else 0


def players_text(players: tuple[str, ...]) -> str:
    """The players of a game on one line: ``a vs b``, ``a vs b vs c``, 4p by team ``a & c vs b & d``."""
    if len(players) == 4:
        return f"{players[0]} & {players[2]} vs {players[1]} & {players[3]}"
    return " vs ".join(players)


def _seat(record: GameRecord, seat: int) -> str:
    return f"seat {seat} {record.players[seat - 1]}"


def _header(record: GameRecord, number: int) -> str:
    if record.nseats == 2:
        p1, p2 = record.players
        return f"game {number}: {p1} vs {p2}, {record.tag('Gods')}, start {record.start}"
    seats = [f"{_seat(record, k)} ({god})" for k, god in enumerate(record.gods, 1)]
    if record.nseats == 4:
        return (f"game {number}: team A {seats[0]} & {seats[2]} vs team B {seats[1]} & {seats[3]}, "
                f"start {record.start}")
    return f"game {number}: {', '.join(seats)}, start {record.start}"


def _placings_text(record: GameRecord) -> str:
    """``1 a, 2 c, 3 b`` (3p; ties share a number), ``1 b & d, 2 a & c`` (4p)."""
    places = record.placings
    if places is None:
        return "no placings (not finished)"
    if record.nseats == 4:
        win = 1 if places[0] == 1 else 2
        lose = 3 - win
        team = {1: "team A", 2: "team B"}
        return (f"1 {team[win]} ({record.players[win - 1]} & {record.players[win + 1]}), "
                f"2 {team[lose]} ({record.players[lose - 1]} & {record.players[lose + 1]})")
    ranked = sorted(range(1, record.nseats + 1), key=lambda s: (places[s - 1], s))
    return ", ".join(f"{places[s - 1]} {_seat(record, s)}" for s in ranked)


def _final_status(record: GameRecord) -> str:
    """Who won and how, for the board after the last turn (where nobody is to move)."""
    if record.nseats != 2:
        return f"game over, {record.result} {record.termination}: {_placings_text(record)}"
    p1, p2 = record.players
    reason = Outcome.from_record(record).reason((p1, p2))
    return f"game over, {record.result}: {reason}"


def _elimination_text(record: GameRecord, e: Elimination) -> str:
    detail = f" ({e.detail})" if e.detail else ""
    return f"{_seat(record, e.seat)} eliminated: {e.termination}{detail}"


def _eliminations_after(record: GameRecord, k: int) -> list[Elimination]:
    return [e for e in record.eliminations if e.after == k]


def _frame(result: ReplayResult, k: int, colour: bool) -> str:
    record = result.record
    pos = result.positions[k]
    ended = k == len(record.turns) and not result.problems
    board = render(pos, colour=colour, status=_final_status(record) if ended else None)
    if k == 0:
        title = "start"
    else:
        t = record.turns[k - 1]
        label, seat = turn_labels(record)[k - 1]
        who = f" ({_seat(record, seat)})" if record.nseats != 2 else ""
        title = f"turn {k}: {label} {t.turn}{_telemetry(t)}{who}"
        if result.transitions[k - 1].win:
            title += f"  (wins: {result.transitions[k - 1].termination})"
    if record.nseats != 2:
        notes = [_elimination_text(record, e) for e in _eliminations_after(record, k)]
        title = "\n".join([title, *notes])
    return f"\n{title}\n{board}"


def _footer(result: ReplayResult) -> str:
    rec = result.record
    detail = f" ({rec.termination_detail})" if rec.termination_detail else ""
    placings = f"\nplacings: {_placings_text(rec)}" if rec.nseats != 2 and rec.placings is not None else ""
    return f"\nresult {rec.result} {rec.termination}{detail}{placings}"


def _interactive(record: GameRecord, number: int, start_at: int | None) -> int:
    """Step through the game on a terminal: Enter/space/n next, p/b back, q quit, N jump."""
    result = replay_record(record, number)
    click.echo(_header(record, number))
    if not result.positions:
        for p in result.problems:
            click.echo(f"{_symbols()[0]} {p}")
        return 1
    last = len(result.positions) - 1
    k = 0 if start_at is None else min(max(start_at, 0), last)
    while True:
        click.echo(_frame(result, k, True))
        if k == last:
            if last == len(record.turns):
                click.echo(_footer(result))
            for p in result.problems:
                click.echo(f"{_symbols()[0]} {p}")
        try:
            answer = click.prompt(
                f"[{k}/{last}] Enter/n next, p back, number jump, q quit", default="", show_default=False
            ).strip().lower()
        except (click.Abort, EOFError):
            click.echo()
            break
        if answer in ("", "n"):
            if k < last:
                k += 1
            else:
                click.echo("(end of game)")
        elif answer in ("p", "b"):
            k = max(0, k - 1)
        elif answer in ("q", "quit"):
            break
        elif answer.isdigit():
            k = min(int(answer), last)
        else:
            click.echo(f"unknown key {answer!r}: Enter/space/n next, p/b back, a turn number + Enter, q quit")
    return 1 if result.problems else 0


# --- commands ------------------------------------------------------------------------------


@click.command()
@click.argument("file", type=click.Path(dir_okay=True, path_type=Path))
@click.option(
    "--game", "-g", type=int, multiple=True,
    help="Replay game N (1 = the first game in the file), drawing the board after each turn; with --html, repeatable.",
)
@click.option("--turn", "-t", type=click.IntRange(min=0), help="With --game: stop after turn K (on a terminal: start there).")
@click.option(
    "--check", is_flag=True, help="Only re-validate every game; print the problems; exit 1 if any (or if the file is damaged)."
)
@click.option("--no-board", is_flag=True, help="With --game: print the turns without boards.")
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), help="Worker processes for checking (default: all CPUs for files of 2000+ games)."
)
@click.option(
    "--html", "html_out", type=click.Path(path_type=Path),
    help="Write the games (all, or each --game N) as one self-contained HTML viewer to this file.",
)
@click.option("--force", "-f", is_flag=True, help="With --html: replace OUT if it exists (never FILE itself).")
def replay(
    file: Path, game: tuple[int, ...], turn: int | None, check: bool, no_board: bool, jobs: int | None,
    html_out: Path | None, force: bool,
) -> None:
    """List, check or replay the games of FILE (SGN or msgpack archive, told apart by content).

    Every turn of every game is re-validated by the rules engine from the game's Start, and the
    stated result is checked against the play.  Without --game, one line per game: number,
    result, termination, turns, gods, players, and a mark with the problem for a game that does
    not re-validate.  Damaged archive regions are reported as warnings; the good games are
    still listed.

    With --game N, the game is replayed board by board: on a terminal, step with Enter/space/n
    (next), p/b (back), a turn number + Enter (jump) and q (quit); otherwise every turn (or up to
    --turn K) is printed.

    With --html OUT.html, the games (every game, or each --game N) are written to one HTML file
    that opens offline in any browser: the 2.5D board with rotation, a top-down helper, stepping
    and the turn list (SPEC.md section 14.5).
    """
    for n in game:
        if n < 1:
            raise _fail(f"bad --game {n}: games are numbered from 1")
    if html_out is not None:
        if check or no_board or turn is not None:
            raise _fail("--html writes a viewer: it does not combine with --check, --no-board or --turn")
        _check_output(html_out, force, file)
        sys.exit(_write_html(file, game, html_out))
    if force:
        raise _fail("--force goes with --html OUT")
    if len(game) > 1:
        raise _fail("give one --game N (several games go into one file with --html)")
    reader = _Reader(file)
    try:
        if game:
            record = _find_game(reader, game[0])
            if no_board:
                status = _list_turns(record, game[0], turn)
            elif sys.stdout.isatty() and sys.stdin.isatty():
                status = _interactive(record, game[0], turn)
            else:
                status = _show_game(record, game[0], turn)
            sys.exit(status)
        sys.exit(_list_or_check(reader, check, jobs))
    finally:
        reader.close()


def _read_all(file: Path) -> list[GameRecord]:
    """Every game of ``file``; a damaged archive region or an SGN error is a one-line error (a
    viewer shows whole files, never silently part of one)."""
    reader = _Reader(file)
    records: list[GameRecord] = []
    try:
        for item in reader.items():
            record = item if isinstance(item, CorruptFrame) else _record_of(item)
            if isinstance(record, CorruptFrame):
                raise _fail(f"{file}: {_damage_text(record).removeprefix('warning: ')}")
            records.append(record)
    finally:
        reader.close()
    if reader.error:
        raise _fail(reader.error)
    if not records:
        raise _fail(f"{file} holds no games")
    return records


def _write_html(file: Path, numbers: tuple[int, ...], out: Path) -> int:
    """``replay --html``: the chosen games (all by default) as one viewer file; exit status 1 if
    any game does not re-validate (it is still written, shown up to its last valid turn)."""
    records = _read_all(file)
    for n in numbers:
        if n > len(records):
            raise _fail(f"no game {n}: {file} holds {len(records)} game{'s' if len(records) != 1 else ''}")
    chosen = [records[n - 1] for n in numbers] if numbers else records
    games = [game_data(record, n) for n, record in zip(numbers or range(1, len(records) + 1), chosen, strict=True)]
    try:
        write_page(games, out, title=None if len(games) == 1 else f"{file.name}: {len(games)} games")
    except OSError as exc:
        raise _fail(f"cannot write {out}: {exc.strerror or exc}") from None
    bad = [g for g in games if g["problem"]]
    for g in bad:
        click.echo(f"{_symbols()[0]} {g['problem']}")
    click.echo(f"wrote {out} ({len(games)} game{'s' if len(games) != 1 else ''}"
               + (f", {len(bad)} with problems" if bad else "") + ")")
    return 1 if bad else 0


def _check_output(out: Path, force: bool, source: Path) -> None:
    """Refuse to write the viewer to ``out`` (one-line error, before any work) if it is a
    directory, if it exists and ``force`` is not given (as ``convert`` refuses), or if it is the
    ``source`` file itself, which is never replaced, even with ``force`` (its games would be lost)."""
    if out.is_dir():
        raise _fail(f"{out} is a directory")
    if same_file(out, source):
        raise _fail(f"{out} is the input file: write the output to another file")
    refuse_existing(out, force)


def _no_games(path: Path, damaged: int, then: str = "") -> str:
    """The error line of a file without a readable game: ``X holds no games``, or with damage
    ``X holds no readable game (2 damaged regions skipped)``; ``then`` is added in the brackets."""
    if not damaged:
        return f"{path} holds no games" + (f" ({then})" if then else "")
    skipped = f"{damaged} damaged region{'s' if damaged != 1 else ''} skipped"
    return f"{path} holds no readable game ({skipped}{'; ' + then if then else ''})"


def _list_turns(record: GameRecord, number: int, upto: int | None) -> int:
    result = replay_record(record, number)
    click.echo(_header(record, number))
    labels = turn_labels(record)
    nseats = record.nseats
    for e in _eliminations_after(record, 0) if result.positions else ():
        click.echo(f"{'':>4}  {'':<6} {' '.join(format_elimination(e))}  {_elimination_text(record, e)}")
    for k, t in enumerate(record.turns[: len(result.transitions)], 1):
        if upto is not None and k > upto:
            break
        label, seat = labels[k - 1]
        who = f"  ({_seat(record, seat)})" if nseats != 2 else ""
        click.echo(f"{k:>4}  {label:<6} {t.turn}{_telemetry(t)}{who}")
        for e in _eliminations_after(record, k):
            click.echo(f"{'':>4}  {'':<6} {' '.join(format_elimination(e))}  {_elimination_text(record, e)}")
    if upto is None or upto >= len(result.transitions):
        click.echo(_footer(result))
    for p in result.problems:
        click.echo(f"{_symbols()[0]} {p}")
    return 1 if result.problems else 0


def _list_or_check(reader: _Reader, check: bool, jobs: int | None) -> int:
    bad_mark, good_mark = _symbols()
    games = bad = damaged = 0
    try:
        rows = checked_rows(reader, jobs)
        for item in rows:
            if isinstance(item, CorruptFrame):
                damaged += 1
                click.echo(_damage_text(item), err=True)
                continue
            number, row = item
            games += 1
            bad += bool(row.problems)
            if check:
                for p in row.problems:
                    click.echo(f"{bad_mark} {p}")
                continue
            mark = bad_mark if row.problems else good_mark
            if games == 1:  # the table's header, once there is a game for it (an error comes alone)
                click.echo(f"{'#':>5}   {'result':<6} {'termination':<12} {'turns':>5}  {'gods':<24} players")
            click.echo(
                f"{number:>5} {mark} {row.result:<6} {row.termination:<12} {row.turns:>5}  {row.gods:<24} "
                f"{players_text(row.players)}"
            )
            if row.problems:
                click.echo(f"{'':>8}{row.problems[0]}")
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    if games == 0:  # nothing to list or check: the one error line, whatever the damage (exit 1)
        raise _fail(reader.error or _no_games(reader.path, damaged))
    if reader.error:
        click.echo(f"error: {reader.error}", err=True)
    summary = f"{games} game{'s' if games != 1 else ''}"
    if check:
        verdict = "all re-validate" if not bad else f"{bad} with problems"
        click.echo(f"checked {summary}: {verdict}"
                   + (f"; {damaged} damaged region{'s' if damaged != 1 else ''} skipped" if damaged else ""))
        return 1 if (bad or damaged or reader.error) else 0
    skipped = f", {damaged} damaged region{'s' if damaged != 1 else ''} skipped" if damaged else ""
    click.echo(f"{summary}, {bad} with problems{skipped}")
    return 1 if reader.error else 0


@click.command()
@click.argument("source", metavar="IN", type=click.Path(path_type=Path))
@click.argument("dest", metavar="OUT", type=click.Path(path_type=Path))
@click.option("--to", "to", type=click.Choice(sorted(set(FORMATS.values()))),
              help="Output format (default: from OUT's extension, .sgn or .msgpack).")
@click.option("--force", "-f", is_flag=True, help="Replace OUT if it exists.")
def convert(source: Path, dest: Path, to: str | None, force: bool) -> None:
    """Convert game records between SGN and the msgpack archive, losslessly.

    IN's format is recognised by content.  Every tag, turn, telemetry field and comment is kept,
    so SGN -> msgpack -> SGN gives back canonical SGN byte for byte.  Records are not
    re-validated (use santorini replay --check).  Damaged archive regions are reported, skipped,
    and make the exit status 1; the good games are still converted.
    """
    target = format_of_name(dest) if to is None else cast(Format, to)
    if target is None:
        raise _fail(f"cannot tell the output format from {dest.name!r}: name it .sgn or .msgpack, or pass --to")
    refuse_existing(dest, force)
    if dest.is_dir():
        raise _fail(f"{dest} is a directory")
    data = _open_data(source)
    try:
        with atomic_file(dest) as out:
            done = convert_records(data, out, target, on_corrupt=lambda item: click.echo(_damage_text(item), err=True))
            if done.error is not None and done.games == 0:
                raise _fail(f"{source}: {done.error} (nothing converted)")
            if done.games == 0:  # no OUT is left behind (the temporary file is removed)
                raise _fail(_no_games(source, len(done.damaged), "nothing converted"))
    except ArchiveError as exc:  # a record too big for an archive frame
        raise _fail(f"cannot convert a game: {exc}") from None
    except OSError as exc:
        raise _fail(f"cannot write {dest}: {exc.strerror or exc}") from None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    if done.error is not None:
        click.echo(f"error: {source}: {done.error}", err=True)
    lost = len(done.damaged)
    skipped = f", {lost} damaged region{'s' if lost != 1 else ''} skipped" if lost else ""
    click.echo(f"converted {done.games} game{'s' if done.games != 1 else ''} to {dest} ({target}){skipped}")
    sys.exit(1 if lost or done.error else 0)
