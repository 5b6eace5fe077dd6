"""Opening suites on disk: read one, and find the bundled suite of a game's gods (SPEC.md section 19.1).

A suite is SPS lines with ``#`` comments (the header says how it was made).  The bundled suites
live in the repository's ``protocol/openings/`` and install as the package data of
``santorini_openings``, so ``--openings bundled`` works from a wheel as from a checkout.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from ..rules import NotationError, parse_sps

__all__ = ["BUNDLED", "read_suite", "parse_suite", "suite_name", "bundled_path", "bundled_suite", "bundled_names"]

#: The ``--openings`` value that picks each game's bundled suite instead of a file.
BUNDLED = "bundled"


def parse_suite(text: str, where: str) -> list[str]:
    """The canonical SPS of each opening line of ``text`` (``#`` comments and blank lines skipped).

    Raises:
        ValueError: a line that is not a valid SPS (``where:line: why``), or no opening at all.
    """
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            out.append(parse_sps(line).sps())
        except NotationError as exc:
            raise ValueError(f"{where}:{lineno}: {exc}") from None
    if not out:
        raise ValueError(f"{where}: no openings in the file")
    return out


def read_suite(path: Path) -> list[str]:
    """One SPS per line of the file at ``path``, each checked; errors name the line.

    Raises:
        ValueError: unreadable, not UTF-8, a bad line, or empty (one line).
    """
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM is not part of the first SPS
    except OSError as exc:
        raise ValueError(f"cannot read openings {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        bad_line = exc.object[: exc.start].count(b"\n") + 1
        raise ValueError(f"{path}:{bad_line}: not UTF-8 text ({exc.reason} at byte {exc.start}); an openings file "
                         "holds one SPS a line") from None
    return parse_suite(text, str(path))


def suite_name(gods: tuple[str, ...]) -> str:
    """The bundled file of a game's gods: ``apollo-pan.sps`` for two seats (seat order), ``3p.sps``
    and ``4p.sps`` for three and four (one file of openings with their own gods each)."""
    return "-".join(gods) + ".sps" if len(gods) == 2 else f"{len(gods)}p.sps"


def bundled_path(name: str) -> Path:
    """Where the bundled suite file ``name`` is (it may not exist)."""
    return Path(str(resources.files("santorini_openings").joinpath(name)))


def bundled_names() -> list[str]:
    """The file names of every bundled suite, sorted."""
    return sorted(p.name for p in resources.files("santorini_openings").iterdir() if p.name.endswith(".sps"))


@functools.cache
def _bundled(name: str) -> tuple[str, ...]:
    path = bundled_path(name)
    if not path.is_file():
        raise ValueError(f"no bundled opening suite for these gods ({name}): the bundled suites cover the base game, "
                         "every pairing of two different gods, and three and four seats")
    return tuple(read_suite(path))


def bundled_suite(gods: tuple[str, ...] | None, players: int = 2) -> tuple[str, ...]:
    """The bundled openings for a game of ``gods`` (None: gods drawn per game, three or four seats:
    the whole suite, each opening bringing its own gods).  With named gods of three or four seats,
    the suite's openings of exactly those gods.

    Raises:
        ValueError: no bundled suite (or no opening in it) for these gods (one line).
    """
    if gods is None:
        return _bundled(f"{players}p.sps")
    suite = _bundled(suite_name(gods))
    if len(gods) == 2:
        return suite
    mine = tuple(sps for sps in suite if tuple(parse_sps(sps).gods) == gods)
    if not mine:
        raise ValueError(f"the bundled {len(gods)}-seat suite has no opening for {'/'.join(gods)} "
                         "(use --gods all to play its own gods)")
    return mine
