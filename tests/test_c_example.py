"""The C example engine (examples/c/): it builds warning-free, passes ``santorini check`` and plays
whole games against a bundled engine without a fault.

It keeps SPEC.md honest: an engine written from the documents alone, in a language with no help
from this package, must be one the referee accepts.  Skipped (one line) without a C compiler; CI has
gcc.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_server.records import parse_sgn
from santorini_server.records.replay import check_record

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "c"
CC = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")

#: The last line of ``santorini check`` for the example: base game only, so the god check and the
#: optional features (legalmoves, perft) do not apply.  SPEC.md section 7 prints it.
C_EXAMPLE_SUMMARY = "32 passed, 0 failed, 0 warnings, 12 not applicable"

pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler")

#: Warnings are errors here: the example must build cleanly wherever authors copy it.
CFLAGS = "-std=c11 -Wall -Wextra -Werror -O2"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The engine built into a temporary directory by its own Makefile (by the compiler alone
    where there is no ``make``)."""
    assert CC is not None
    binary = tmp_path_factory.mktemp("c") / "greedy-c"
    if shutil.which("make"):
        command = ["make", "-s", "-C", str(EXAMPLE), f"BIN={binary}", f"CC={CC}", f"CFLAGS={CFLAGS}"]
    else:
        command = [CC, *CFLAGS.split(), "-o", str(binary), str(EXAMPLE / "greedy.c")]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stdout + proc.stderr
    return binary


def santorini(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", *args], capture_output=True, text=True, timeout=180,
    )


def test_the_example_is_small() -> None:
    assert len((EXAMPLE / "greedy.c").read_text().splitlines()) < 400


def test_check_passes(engine: Path) -> None:
    proc = santorini("check", f"cmd={engine}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if line.startswith(("FAIL", "WARN"))], proc.stdout
    assert "SKIP athena-up: the engine does not claim athena" in lines
    assert lines[-1] == C_EXAMPLE_SUMMARY, proc.stdout


def test_a_short_match_against_a_bundled_engine_ends_without_a_fault(engine: Path, tmp_path: Path) -> None:
    out = tmp_path / "games.sgn"
    proc = santorini("match", f"cmd={engine} name=GreedyC", "greedy", "--games", "4", "--tc", "2+0.02", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Score of GreedyC vs greedy: " in proc.stdout
    records = parse_sgn(out.read_text())
    assert len(records) == 4
    for number, record in enumerate(records, 1):
        # Every game ends on the board (a climb, or a side with no turn), never by a fault.
        assert record.termination in ("climb", "no-moves"), (record.termination, record.termination_detail)
        assert check_record(record, number) == []
