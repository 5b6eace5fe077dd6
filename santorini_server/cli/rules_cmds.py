"""Rules commands for engine authors: ``legal``, ``perft``, ``show``."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import click

from ..records import atomic_file
from ..render import render
from ..rules import NotationError, Position, parse_sps
from ..rules import divide as _divide
from ..rules import perft as _perft
from ..viewer import board_svg, position_data
from .output_files import refuse_existing

__all__ = ["legal", "perft", "show"]


def _position(text: str) -> Position:
    try:
        return parse_sps(text)
    except NotationError as exc:
        raise click.ClickException(str(exc)) from None


def _inputs(positions: tuple[str, ...]) -> Iterable[str]:
    if positions:
        yield from positions
        return
    for line in sys.stdin:
        line = line.strip()
        if line and not line.startswith("#"):
            yield line


@click.command()
@click.argument("positions", nargs=-1, metavar="[SPS]...")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per position, one line each.")
def legal(positions: tuple[str, ...], as_json: bool) -> None:
    """List the legal complete turns of each position, with the position after each.

    Positions come from the arguments, or one per line on standard input when none are given.
    With --json each line is {"sps", "status": "ongoing"|"lost", "turns": {STN: successor SPS
    or "win"}}, or {"sps", "error"} for an invalid position.  In a three-seat game a seat with no
    complete turn is eliminated instead of losing: "status": "eliminated", "turns": {} and either
    "next" (the SPS after it leaves) or "winner" (the last seat standing, 1-based).  Exit status 1
    if any input was invalid (the others are still answered).
    """
    failed = False
    for text in _inputs(positions):
        try:
            pos = parse_sps(text)
        except NotationError as exc:
            failed = True
            if as_json:
                click.echo(json.dumps({"sps": text, "error": str(exc)}))
            else:
                click.echo(f"error: {exc}", err=True)
            continue
        transitions = sorted(pos.transitions(), key=lambda t: t.stn)
        out = not transitions and pos.nseats == 3
        after = pos.eliminate() if out else None
        if as_json:
            turns = {t.stn: ("win" if t.win else t.position.sps()) for t in transitions}
            status = "ongoing" if transitions else "eliminated" if out else "lost"
            answer: dict[str, object] = {"sps": pos.sps(), "status": status, "turns": turns}
            if out:
                if after is not None:
                    answer["next"] = after.sps()
                else:
                    answer["winner"] = _survivor(pos) + 1
            click.echo(json.dumps(answer))
            continue
        click.echo(pos.sps())
        who = f"player {pos.player}" if pos.nseats == 2 else f"seat {pos.player}"
        if out:
            if after is not None:
                click.echo(f"  {who} has no complete turn and is eliminated; seat {after.player} moves next:")
                click.echo(f"  {after.sps()}")
            else:
                click.echo(f"  {who} has no complete turn and is eliminated; seat {_survivor(pos) + 1} wins (last seat standing)")
            continue
        if not transitions:
            team = " with its team" if pos.nseats == 4 else ""
            click.echo(f"  {who} has no complete turn and loses{team} (no-moves)")
            continue
        click.echo(f"  {len(transitions)} legal turns for {who}:")
        width = max(len(t.stn) for t in transitions)
        for t in transitions:
            then = f"wins ({t.termination})" if t.win else t.position.sps()
            click.echo(f"  {t.stn:<{width}}  {then}")
    if failed:
        sys.exit(1)


def _survivor(pos: Position) -> int:
    """The one seat left when the seat to move of a three-seat position leaves."""
    return next(s for s in pos.live_seats if s != pos.to_move)


@click.command()
@click.argument("sps", required=False)
@click.argument("depth", required=False, type=click.IntRange(min=0))
@click.option("--divide", is_flag=True, help="Also print the count below each first turn.")
@click.option(
    "--suite",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Check a TSV suite (SPS<TAB>depth<TAB>count per line, # comments) instead.",
)
def perft(sps: str | None, depth: int | None, divide: bool, suite: Path | None) -> None:
    """Count the leaves of the complete-turn tree of SPS to DEPTH turns.

    A winning turn is a leaf counted once; placement of both workers is one turn; in a
    three-seat game an elimination is not a turn and consumes no depth.  With --suite, run
    every case of a perft suite and print pass/fail per case; exit status 1 on any mismatch.
    """
    if suite is not None:
        if sps is not None:
            raise click.UsageError("give either SPS DEPTH or --suite FILE, not both")
        sys.exit(_run_suite(suite))
    if sps is None or depth is None:
        raise click.UsageError("perft needs SPS and DEPTH (or --suite FILE)")
    pos = _position(sps)
    start = time.perf_counter()
    if divide and depth > 0:
        counts = _divide(pos, depth)
        for stn in sorted(counts):
            click.echo(f"{stn} {counts[stn]}")
        total = sum(counts.values())
    else:
        total = _perft(pos, depth)
    elapsed = time.perf_counter() - start
    rate = f", {total / elapsed:,.0f} leaves/s" if elapsed > 0 else ""
    click.echo(f"perft {depth} = {total}  ({elapsed:.3f} s{rate})")


def _run_suite(path: Path) -> int:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{path}: not a perft suite (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    failures = 0
    cases = 0
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise click.ClickException(f"{path}:{lineno}: expected SPS<TAB>depth<TAB>count, got {raw!r}")
        sps, depth_text, count_text = (f.strip() for f in fields)
        try:
            depth, expected = int(depth_text), int(count_text)
        except ValueError:
            raise click.ClickException(f"{path}:{lineno}: depth and count must be integers, got {raw!r}") from None
        try:
            pos = parse_sps(sps)
        except NotationError as exc:
            raise click.ClickException(f"{path}:{lineno}: {exc}") from None
        if depth < 0:
            raise click.ClickException(f"{path}:{lineno}: depth must be at least 0")
        got = _perft(pos, depth)
        cases += 1
        if got == expected:
            click.echo(f"ok    {sps} depth {depth}: {got}")
        else:
            failures += 1
            click.echo(f"FAIL  {sps} depth {depth}: expected {expected}, got {got}")
    click.echo(f"{cases - failures} passed, {failures} failed")
    return 1 if failures else 0


@click.command()
@click.argument("sps")
@click.option(
    "--colour/--no-colour", "--color/--no-color", default=None, help="Force colour on or off (default: when a terminal)."
)
@click.option("--svg", "svg_out", type=click.Path(path_type=Path),
              help="Write the position as an SVG picture (the 2.5D view) to this file instead.")
@click.option("--top-down", is_flag=True, help="With --svg: draw the top-down helper (levels as numbers) instead.")
@click.option("--rotate", type=click.IntRange(0, 3), default=0, show_default=True,
              help="With --svg: quarter turns of the 2.5D view.")
@click.option("--force", "-f", is_flag=True, help="With --svg: replace FILE if it exists.")
def show(sps: str, colour: bool | None, svg_out: Path | None, top_down: bool, rotate: int, force: bool) -> None:
    """Draw the position SPS: each cell is its level 0-3 and a worker; ^^ is a dome.

    Workers are X (player 1) and O (player 2); three seats add V (seat 3); four seats show the
    teams' shared workers as A (seats 1 and 3) and B (seats 2 and 4).  With --svg the same
    position is written as a picture for documents and bug reports (SPEC.md section 14.5).
    """
    pos = _position(sps)
    if svg_out is not None:
        _write_svg(pos, svg_out, top_down, rotate, force)
        return
    if top_down or rotate or force:
        raise click.ClickException("--top-down, --rotate and --force go with --svg FILE")
    if colour is None:
        colour = sys.stdout.isatty()
    click.echo(render(pos, colour=colour), color=colour)
    click.echo(f"  {pos.sps()}")


def _write_svg(pos: Position, out: Path, top_down: bool, rotation: int, force: bool) -> None:
    """``show --svg``: the position as a standalone SVG file, written atomically; an existing
    file is replaced only with ``--force`` (as ``convert``)."""
    if out.is_dir():
        raise click.ClickException(f"{out} is a directory")
    refuse_existing(out, force)
    text = board_svg(position_data(pos), pos.nseats, top_down=top_down, rotation=rotation, title=pos.sps())
    try:
        with atomic_file(out) as f:
            f.write(text.encode("utf-8"))
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror or exc}") from None
    click.echo(f"wrote {out}")
