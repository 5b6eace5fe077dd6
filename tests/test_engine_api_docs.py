"""Every example of docs/engine-api.md runs, as written, against real engine processes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "engine-api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)

#: What each example must print (a fragment of each line it is for).
EXPECTED = {
    1: ["AlphaBeta plays", "placement: ", "reply: "],
    2: ["1. ", "2. ", "3. ", "% to win"],
    3: ["depth 1 score", "depth 3 score", "bestmove "],
    4: [" wins after "],
    5: ["options: Hash", "refused: alphabeta has no option 'Contempt'", "refused: illegal turn 'a1-a2+a3'",
        "failed: crash", "stderr: no luck"],
}


def test_the_page_has_five_examples() -> None:
    assert len(EXAMPLES) == 5


@pytest.mark.parametrize("number", range(1, 6))
def test_example_runs(number: int, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-c", EXAMPLES[number - 1]], capture_output=True, text=True,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    for fragment in EXPECTED[number]:
        assert fragment in result.stdout, (fragment, result.stdout)
