"""The rules commands for three and four seats (SPEC.md section 15): legal --json, perft, show."""

from __future__ import annotations

import json

from click.testing import CliRunner

from santorini_server.cli import main

BOXED = "apollo/pan/atlas;00440/44000/00000/00000/00000;d1,e1/a5,b5/c3,c4;2;3"
"""Seat 2 (Pan) is boxed in on a5/b5: it has no complete turn, seats 1 and 3 play on."""
LAST = "apollo/pan/atlas;00440/44400/00000/00000/00000;d1,e1/a5,b5/x;2;3"
"""As above with seat 3 already out: eliminating seat 2 leaves seat 1 alone."""
TEAM_LOST = "apollo/pan/atlas/demeter;00440/44400/00000/00000/00000;d1,e1/a5,b5;2;3"


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


def test_legal_json_eliminated_seat_gives_next_or_winner() -> None:
    result = run("legal", "--json", BOXED, LAST, TEAM_LOST)
    assert result.exit_code == 0, result.output
    boxed, last, team = (json.loads(line) for line in result.output.splitlines())
    assert boxed == {
        "sps": BOXED,
        "status": "eliminated",
        "turns": {},
        "next": "apollo/pan/atlas;00440/44000/00000/00000/00000;d1,e1/x/c3,c4;3;3",
    }
    assert last == {"sps": LAST, "status": "eliminated", "turns": {}, "winner": 1}
    assert team == {"sps": TEAM_LOST, "status": "lost", "turns": {}}  # four seats: the team loses


def test_legal_text_says_who_is_eliminated_and_who_moves() -> None:
    result = run("legal", BOXED, LAST)
    assert "seat 2 has no complete turn and is eliminated; seat 3 moves next:" in result.output
    assert "seat 2 has no complete turn and is eliminated; seat 1 wins (last seat standing)" in result.output


def test_legal_json_successors_name_the_next_live_seat() -> None:
    result = run("legal", "--json", "apollo/pan/atlas;00440/44000/00000/00000/00000;d1,e1/a5,b5/x;2;3".replace("44000", "44000"))
    turns = json.loads(result.output)["turns"]
    assert turns and all(s.endswith(";1;4") for s in turns.values())  # seat 3 is out: seat 1, next round


def test_perft_elimination_consumes_no_depth_and_depth_zero_is_one() -> None:
    out_boxed = run("perft", BOXED, "2").output
    out_next = run("perft", "apollo/pan/atlas;00440/44000/00000/00000/00000;d1,e1/x/c3,c4;3;3", "2").output
    assert out_boxed.split("(")[0] == out_next.split("(")[0] == "perft 2 = 3337  "
    assert run("perft", BOXED, "0").output.startswith("perft 0 = 1 ")


def test_show_draws_a_letter_per_seat_and_the_teams() -> None:
    three = run("show", "apollo/minotaur/pan;00000/00000/00000/00000/00000;a1,a2/x/c3,c4;3;5").output
    assert "S2 O minotaur  (eliminated)" in three and "S3 V pan  (to move)" in three and " 0V " in three
    four = run("show", "apollo/minotaur/pan/athena[up];00000/10000/00000/00000/00000;a1,b3/a3,b4;3;1").output
    assert "S1 A apollo team A (seats 1 and 3)" in four and "S4 B athena team B (seats 2 and 4)" in four
    assert " 0A " in four and " 0B " in four and "moved up: her opponents may not move up" in four


def test_bad_nseat_positions_get_one_line() -> None:
    result = run("show", "apollo/mortal/pan;00000/00000/00000/00000/00000;-/-/-;1;1")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "not mortal" in result.output
