"""tools/bench_pipeline.py never rots: each part runs ``--quick`` (a few hundred games, real
files, real ``santorini`` subprocesses) and prints its figures and verdicts.  The figures
themselves are not checked (no timed assertions): only that each was measured."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "bench_pipeline.py"
VERDICT = re.compile(r"^verdict: (.+): (.+) \(target (.+)\): (met|NOT met)$", re.MULTILINE)


def run_part(*args: str) -> str:
    proc = subprocess.run([sys.executable, str(TOOL), *args, "--quick"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("args", "verdicts"),
    [
        (("collector",), ["collector RSS growth", "collector time per game, late/early"]),
        (("tournament",), ["tournament RSS growth", "tournament time per game, late/early",
                           "tournament --sprt RSS growth", "tournament --sprt time per game, late/early"]),
        (("append",), ["append first game"]),
    ],
)
def test_each_part_prints_a_verdict_per_target(args: tuple[str, ...], verdicts: list[str]) -> None:
    out = run_part(*args)
    assert [m.group(1) for m in VERDICT.finditer(out)] == verdicts, out


def test_the_collector_plays_every_game_and_sizes_every_file() -> None:
    """Under --sprt the synthetic results keep the LLR inside its bounds: all 400 games are
    recorded (the tool exits with an error otherwise), and each of the folder's files has a size."""
    out = run_part("collector", "--sprt")
    assert [m.group(1) for m in VERDICT.finditer(out)] == ["collector RSS growth", "collector time per game, late/early"]
    assert "collector: 400 games in " in out
    sizes = re.search(r"folder bytes per game: (.+)$", out, re.MULTILINE)
    assert sizes is not None, out
    per_file = dict(part.rsplit(" ", 1) for part in sizes.group(1).split(", "))
    assert set(per_file) == {"games.msgpack", "games.sgn", "results.jsonl", "report.html", "games/*"}
    assert all(int(size.replace(",", "")) > 0 for size in per_file.values()), out


def test_resume_resumes_the_built_folder() -> None:
    """The folder the tool builds is one ``--resume`` accepts as it is: every game but the last
    two counted, and the run then plays those two."""
    out = run_part("resume")
    assert [m.group(1) for m in VERDICT.finditer(out)] == ["resume peak RSS", "resume first new game"]
    assert "'Resuming: 298 of 300 games already played'" in out
    assert "(the two games played and the report written)" in out


def test_bad_sizes_are_refused_in_one_line() -> None:
    proc = subprocess.run([sys.executable, str(TOOL), "collector", "--games", "2"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith("--games must be at least 4")
