"""The rules commands for engine authors: legal, perft, show (real CLI via click's runner)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from santorini_server.cli import main

CROSS = "mortal/mortal;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
LOST = "mortal/mortal;00000/00000/00000/44400/00400;a1,b1/e4,e5;1;2"


def run(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=stdin)


def test_legal_json_lists_turns_with_successors_and_wins() -> None:
    result = run("legal", "--json", CROSS, LOST, "mortal/mortal;00000/04440/04340/02440/00000;b2,e5/a5,e1;1;2")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    cross, lost, win = lines
    assert cross["status"] == "ongoing" and len(cross["turns"]) == 68
    assert cross["turns"]["b3-b4+c5"] == "mortal/mortal;00100/00000/00000/00000/00000;b4,d3/c2,c4;2;2"
    assert lost == {"sps": LOST, "status": "lost", "turns": {}}
    assert win["turns"]["b2-c3"] == "win"


def test_legal_reads_stdin_keeps_going_after_a_bad_line_and_exits_1() -> None:
    result = run("legal", "--json", stdin=f"{CROSS}\nnot-a-position\n# comment\n{LOST}\n")
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [("error" in line) for line in lines] == [False, True, False]
    assert "malformed SPS 'not-a-position'" in lines[1]["error"]


def test_legal_human_readable() -> None:
    result = run("legal", LOST)
    assert "player 1 has no complete turn and loses (no-moves)" in result.output


def test_perft_and_divide_agree() -> None:
    plain = run("perft", CROSS, "2")
    assert plain.exit_code == 0 and "perft 2 = 5156" in plain.output
    divided = run("perft", CROSS, "2", "--divide")
    counts = [int(line.split()[1]) for line in divided.output.splitlines() if not line.startswith("perft")]
    assert len(counts) == 68 and sum(counts) == 5156


def test_perft_suite_pass_and_fail(tmp_path: Path) -> None:
    good = tmp_path / "good.tsv"
    good.write_text(f"# the cross\n{CROSS}\t1\t68\n{CROSS}\t2\t5156\n")
    result = run("perft", "--suite", str(good))
    assert result.exit_code == 0 and "2 passed, 0 failed" in result.output
    bad = tmp_path / "bad.tsv"
    bad.write_text(f"{CROSS}\t1\t67\n")
    result = run("perft", "--suite", str(bad))
    assert result.exit_code == 1 and "FAIL" in result.output and "expected 67, got 68" in result.output
    broken = tmp_path / "broken.tsv"
    broken.write_text(f"{CROSS} 1 68\n")
    result = run("perft", "--suite", str(broken))
    assert result.exit_code == 1 and "broken.tsv:1" in result.output


def test_perft_bad_input_is_one_line() -> None:
    result = run("perft", "nonsense", "2")
    assert result.exit_code == 1 and "malformed SPS" in result.output and "Traceback" not in result.output
    assert run("perft", CROSS, "-1").exit_code == 2  # depth 0 is 1 (SPEC.md section 15.5); below 0 is a usage error


def test_show_draws_the_board_without_colour_off_a_terminal() -> None:
    result = run("show", "prometheus/athena[up];00110/00000/00000/01000/10100;b1,d4/d5,e1;1;4")
    assert result.exit_code == 0
    assert "\x1b[" not in result.output
    assert "P1 X prometheus" in result.output and "athena[up]" in result.output
    assert "  5   0.  0.  1.  1O  0. " in result.output
    coloured = run("show", CROSS, "--colour")
    assert "\x1b[" in coloured.output


def test_help_does_not_import_trio_or_the_rules() -> None:
    code = (
        "import sys; from santorini_server.cli import main; sys.argv=['santorini','--help']\n"
        "try: main()\nexcept SystemExit: pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('trio','msgpack') or m.startswith('santorini_server.rules')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_a_turn_counter_too_long_for_an_int_is_one_line_in_show_legal_and_perft() -> None:
    sps = "mortal/mortal;00000/00000/00000/00000/00000;a1,b2/c3,d4;1;" + "9" * 5000
    for args in (["show", sps], ["legal", sps], ["perft", sps, "1"]):
        result = run(*args)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), (args, result.exception)
        assert result.output.count("\n") == 1 and "turn field" in result.output, args


def test_a_binary_perft_suite_is_one_line_naming_the_file(tmp_path: Path) -> None:
    suite = tmp_path / "s.tsv"
    suite.write_bytes(b"\x00\xa7\xff binary \x80" * 30)
    result = run("perft", "--suite", str(suite))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    assert result.output == f"Error: {suite}: not a perft suite (not UTF-8 text: invalid start byte at byte 1)\n"
