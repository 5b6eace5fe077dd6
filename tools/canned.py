"""The canned engines' command line, kept apart from the benchmarks' referee imports.

``ab_referee.py`` imports this in workers whose ``santorini_server`` comes from another
revision: importing ``bench_referee`` there would load this revision's referee API.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CANNED = Path(__file__).resolve().parent / "canned_engine.py"
CANNED_C = Path(__file__).resolve().parent / "canned_engine.c"


def canned_argv(script: Path, kind: str = "c", *extra: str) -> list[str]:
    """The canned engine's command: the C build (compiled on first use) or the Python script.

    The C one costs the engine microseconds per turn, so a benchmark measures the referee."""
    if kind == "c" and not extra and shutil.which("cc"):
        binary = script.parent / "canned_engine"
        if not binary.exists():
            subprocess.run(["cc", "-O2", "-o", str(binary), str(CANNED_C)], check=True)
        return [str(binary), str(script)]
    return [sys.executable, "-S", str(CANNED), str(script), *extra]
