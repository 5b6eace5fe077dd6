"""``santorini openings``: make an opening suite from the bundled alpha-beta engine's play
(SPEC.md section 19)."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import click

from ..openings.generate import Recipe, format_suite, generate
from ..openings.suites import suite_name
from ..rules import EXTRA_SIMPLE_GODS, MORTAL, SIMPLE_GODS

__all__ = ["openings", "two_seat_pairings"]


def two_seat_pairings() -> list[tuple[str, str]]:
    """What ``--gods all`` makes with two seats: the base game and every ordered pairing of two
    different gods of the ten (the bundled suites' set)."""
    ten = sorted(SIMPLE_GODS + EXTRA_SIMPLE_GODS)
    return [(MORTAL, MORTAL), *((a, b) for a, b in itertools.permutations(ten, 2))]


def _write(path: Path, text: str, force: bool) -> None:
    if path.exists() and not force:
        raise click.ClickException(f"{path} exists: pass --force to replace it")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None


@click.command()
@click.option("--gods", "gods_text", required=True,
              help="Gods in seat order (apollo/pan), or 'all': with two seats every pairing (a file each in --out DIR), "
                   "with three or four a draw per opening.")
@click.option("--seats", type=click.IntRange(2, 4), default=2, show_default=True, help="Seats of the games.")
@click.option("--count", type=click.IntRange(1, 100_000), default=100, show_default=True, help="Openings per suite.")
@click.option("--seed", type=int, default=1, show_default=True, help="The same seed makes the same file.")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True, help="Processes generating candidates.")
@click.option("--plies", type=click.IntRange(0, 20), default=0, show_default=True, help="Turns played after the placements.")
@click.option("--depth", type=click.IntRange(1, 4), default=2, show_default=True,
              help="Plies of the balance search.")
@click.option("--bound", type=click.IntRange(0, 10_000), default=30, show_default=True,
              help="Most the balance score may be from even, in the engine's centi-levels.")
@click.option("--margin", type=click.IntRange(0, 10_000), default=20, show_default=True,
              help="How far below the best a drawn placement or turn may score.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="The suite file (a folder with --gods all and two seats).")
@click.option("--force", is_flag=True, help="Replace existing files.")
def openings(gods_text: str, seats: int, count: int, seed: int, jobs: int, plies: int, depth: int, bound: int,
             margin: int, out: Path, force: bool) -> None:
    """Make an opening suite: starts after the placements (and --plies more turns) drawn from the
    bundled alpha-beta engine's near-best play, balanced by its search score, distinct under the
    board's eight symmetries.  The file's header says how it was made; the same options make the
    same file, whatever --jobs.

    \b
    Examples:
      santorini openings --gods apollo/pan --count 100 --out apollo-pan.sps
      santorini openings --gods all --count 10 --out protocol/openings/
      santorini openings --gods all --seats 3 --count 30 --out 3p.sps
    """
    gods_text = gods_text.strip()
    started = time.monotonic()
    try:
        if gods_text == "all" and seats == 2:
            out.mkdir(parents=True, exist_ok=True)
            pairings = two_seat_pairings()
            for n, gods in enumerate(pairings, 1):
                recipe = Recipe(gods, seats, count, seed, plies, depth, bound, margin)
                _write(out / suite_name(gods), format_suite(recipe, generate(recipe, jobs)), force)
                click.echo(f"{n}/{len(pairings)} {out / suite_name(gods)}", err=True)
            click.echo(f"Wrote {len(pairings)} suites of {count} openings in {out} ({time.monotonic() - started:.1f} s)")
            return
        named = None if gods_text == "all" else tuple(g.strip() for g in gods_text.split("/"))
        recipe = Recipe(named, seats, count, seed, plies, depth, bound, margin)
        suite = generate(recipe, jobs)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    _write(out, format_suite(recipe, suite), force)
    tried = suite[-1].candidate + 1
    click.echo(f"Wrote {out}: {len(suite)} openings from {tried} candidates ({time.monotonic() - started:.1f} s)")
