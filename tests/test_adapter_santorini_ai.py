"""The santorini-ai adapter (SPEC.md section 20.2): its notation module, and the adapter driving a
fake of the program (``tests/fakes/santorini_ai_uci.py``) through real SEI matches and ``santorini check``.

With ``SANTORINI_AI_BINARY`` naming a built ``uci`` program the same matches are played against
it; without, those tests skip with one line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from santorini_server.adapters.santorini_ai_notation import (
    action_key,
    actions_of_turn,
    fen_of,
    parse_fen,
    position_of_fen,
    state_key,
    turn_key,
    turn_of_actions,
)
from santorini_server.rules import Position

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "fakes" / "santorini_ai_uci.py"
REAL = os.environ.get("SANTORINI_AI_BINARY")


def sel(sq: str) -> dict:
    return {"type": "select_worker", "value": sq}


def mv(sq: str, meta: dict | None = None) -> dict:
    return {"type": "move_worker", "value": {"dest": sq, "meta": meta}}


def build(sq: str) -> dict:
    return {"type": "build", "value": sq}


# --- FEN ------------------------------------------------------------------------------------------


def test_fen_of_start_and_a_placed_position() -> None:
    assert fen_of(Position.start(("artemis", "mortal"))) == "0" * 25 + "/1/artemis/mortal"
    pos = Position.from_sps("mortal/mortal;01234/12321/00240/31012/40123;b4,e2/b2,d4;2;22")
    # heights in the SPS board's order (a5 first), squares uppercase in that order, side 2
    assert fen_of(pos) == "0123412321002403101240123/2/mortal:B4,E2/mortal:D4,B2"


def test_fen_round_trips_with_athena_state() -> None:
    sps = "mortal/athena[up];00040/00044/00000/04000/01000;a1,e5/c5,e1;1;2"
    pos = Position.from_sps(sps)
    fen = fen_of(pos)
    assert fen.endswith("/1/mortal:E5,A1/athena[^]:C5,E1")
    assert position_of_fen(fen, turn=2).sps() == sps


def test_fen_athena_mark_while_athena_is_to_move_is_not_our_state() -> None:
    # santorini-ai keeps [^] on the board after the opponent moved; SPS has no state then
    pos = position_of_fen("0" * 25 + "/2/mortal:A1,E5/athena[^]:C5,E1", turn=3)
    assert not pos.athena_up


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("000/1/mortal/mortal", "25 heights"),
        ("0" * 25 + "/3/mortal/mortal", "side to move"),
        ("0" * 25 + "/1/zeus/mortal", "god 'zeus'"),
        ("0" * 25 + "/1/mortal:Z9,A1/mortal", "bad worker square"),
    ],
)
def test_parse_fen_refuses_in_one_line(fen: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as info:
        parse_fen(fen)
    assert "\n" not in str(info.value)


def test_position_of_a_won_fen_is_refused() -> None:
    with pytest.raises(ValueError, match="over"):
        position_of_fen("0" * 25 + "/2/#mortal:A1,E5/mortal:C5,E1")


# --- actions -> STN --------------------------------------------------------------------------------


def test_placement_in_one_action_either_order() -> None:
    pos = Position.start()
    place = [{"type": "place_worker", "value": "D3"}, {"type": "place_worker", "value": "B3"}]
    assert turn_of_actions(pos, place) == "b3,d3"


def test_winning_climb_has_no_build() -> None:
    pos = Position.from_sps("mortal/mortal;00000/00000/00444/00344/00244;c1,e5/a5,a4;1;2")
    # c1 (level 2) -> c2 (level 3)
    assert turn_of_actions(pos, [sel("C1"), mv("C2")]) == "c1-c2"
    assert pos.play("c1-c2").win


def test_apollo_swap_and_minotaur_push_are_x() -> None:
    pos = Position.from_sps("apollo/mortal;00000/00000/00000/00000/00000;c3,e5/c4,a1;1;2")
    actions = [sel("C3"), mv("C4", {"type": "move_enemy_worker", "value": {"from": "C4", "to": "C3"}}), build("B4")]
    assert turn_of_actions(pos, actions) == "c3xc4+b4"
    assert actions_of_turn(pos, "c3xc4+b4") == actions
    mino = Position.from_sps("minotaur/mortal;00000/00300/00000/00000/00000;c2,e5/c3,a5;1;2")
    push = [sel("C2"), mv("C3", {"type": "move_enemy_worker", "value": {"from": "C3", "to": "C4"}}), build("C2")]
    assert actions_of_turn(mino, "c2xc3+c2") == push
    assert mino.play(turn_of_actions(mino, push)).stn == "c2xc3+c2"


def test_artemis_path_is_found_single_step_first() -> None:
    pos = Position.from_sps("artemis/mortal;00000/00000/00000/00000/01200;a1,e5/a5,e3;1;2")
    # a1 -> c1 is two squares away: the path goes through b1 or b2 (b1 first in canonical order)
    assert turn_of_actions(pos, [sel("A1"), mv("C1"), build("D1")]) == "a1-b1-c1+d1"
    # a1 -> b2 is one step: the single step is taken
    assert turn_of_actions(pos, [sel("A1"), mv("B2"), build("A1")]) == "a1-b2+a1"
    # a1 (0) -> c1 (2): only a path through b1 (level 1) makes it legal
    pos2 = Position.from_sps("artemis/mortal;00000/00000/00000/00000/01200;a1,e5/a5,e3;1;2")
    assert pos2.play(turn_of_actions(pos2, [sel("A1"), mv("C1"), build("B1")])).stn == "a1-b1-c1+b1"


def test_artemis_with_no_legal_path_is_spelled_as_given() -> None:
    pos = Position.from_sps("artemis/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e3;1;2")
    assert turn_of_actions(pos, [sel("A1"), mv("E1"), build("D1")]) == "a1-e1+d1"


def test_prometheus_pre_build_and_hermes_moves() -> None:
    pos = Position.from_sps("prometheus/mortal;00040/00044/44000/04400/01400;a1,e5/a5,c4;1;2")
    actions = [build("B1"), sel("A1"), mv("A2"), build("B1")]
    assert turn_of_actions(pos, actions) == "+b1a1-a2+b1"
    assert actions_of_turn(pos, "+b1a1-a2+b1") == actions
    hermes = Position.from_sps("hermes/mortal;00000/00000/00000/44440/00040;a1,b1/a5,c4;1;2")
    both = [sel("B1"), mv("C1"), sel("A1"), mv("B1"), build("A1")]
    assert hermes.play(turn_of_actions(hermes, both)).stn == "a1-c1+a1"
    stay = [sel("A1"), mv("A1"), sel("B1"), mv("B1"), build("C1")]
    assert turn_of_actions(hermes, stay) == "+c1"
    assert turn_of_actions(hermes, [build("C1")]) == "+c1"


def test_atlas_low_dome_and_dome_on_level_three() -> None:
    pos = Position.from_sps("atlas/mortal;00040/00044/00000/34200/10000;a1,e5/a5,c4;1;2")
    assert turn_of_actions(pos, [sel("A1"), mv("B1"), build("C1"), {"type": "dome", "value": "C1"}]) == "a1-b1+c1D"
    assert turn_of_actions(pos, [sel("A1"), mv("B1"), build("A2"), {"type": "dome", "value": "A2"}]) == "a1-b1+a2"
    assert actions_of_turn(pos, "a1-b1+c1D")[-1] == {"type": "dome", "value": "C1"}


def test_demeter_and_hephaestus_builds() -> None:
    pos = Position.from_sps("demeter/mortal;00040/00044/00000/44300/00000;a1,e5/a5,c4;1;2")
    assert pos.play(turn_of_actions(pos, [sel("A1"), mv("B1"), build("C2"), build("A1")])).stn == "a1-b1+a1+c2"
    heph = Position.from_sps("hephaestus/mortal;00040/00044/00000/34200/00100;a1,e5/a5,c4;1;2")
    assert turn_of_actions(heph, [sel("A1"), mv("B1"), build("C1"), build("C1")]) == "a1-b1+c1+c1"


@pytest.mark.parametrize(
    ("actions", "why"),
    [
        ([{"type": "no_moves"}], "no move"),
        ([{"type": "set_wind_direction", "value": None}], "gods we do not have"),
        ([mv("A2")], "no selected worker"),
        ([sel("A1"), mv("Q9")], "not a square|Q9|q9"),
        ([{"type": "place_worker", "value": "A1"}], "two place_worker"),
    ],
)
def test_actions_that_are_no_turn_raise(actions: list[dict], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        turn_of_actions(Position.from_sps("mortal/mortal;00000/00000/00000/00000/00000;a1,e5/a5,e1;1;2"), actions)


# --- keys: what both notations say alike ----------------------------------------------------------


def test_keys_forget_artemis_path_and_build_order() -> None:
    art = Position.from_sps("artemis/mortal;00000/00000/00000/00000/01200;a1,e5/a5,e3;1;2")
    assert turn_key(art, "a1-b1-c1+d1") == turn_key(art, "a1-b2-c1+d1") == action_key(art, [sel("A1"), mv("C1"), build("D1")])
    assert turn_key(art, "a1-b1-c1+d1") != turn_key(art, "a1-b1-c1+d2")
    dem = Position.from_sps("demeter/mortal;00040/00044/00000/44300/00000;a1,e5/a5,c4;1;2")
    assert turn_key(dem, "a1-b1+a1+c2") == action_key(dem, [sel("A1"), mv("B1"), build("C2"), build("A1")])
    hermes = Position.from_sps("hermes/mortal;00000/00000/00000/44440/00040;a1,b1/a5,c4;1;2")
    both = [sel("B1"), mv("C1"), sel("A1"), mv("B1"), build("A1")]
    assert turn_key(hermes, "a1-c1+a1") == action_key(hermes, both)


def test_every_legal_turn_round_trips_through_actions() -> None:
    for sps in (
        "apollo/minotaur;00000/01200/02310/00100/00000;b2,d4/c3,c4;1;3",
        "artemis/prometheus;00000/01200/02310/00100/00000;b2,d4/c3,c4;1;3",
        "hermes/atlas;00000/01200/02310/00100/00000;b2,d4/c3,c4;1;3",
        "demeter/hephaestus;00000/01200/02310/00100/00000;b2,d4/c3,c4;2;3",
        "pan/athena[up];00000/01200/02310/00100/00000;b2,d4/c3,c4;1;3",
    ):
        pos = Position.from_sps(sps)
        for stn in pos.legal_turns():
            back = pos.play(turn_of_actions(pos, actions_of_turn(pos, stn))).stn
            assert turn_key(pos, back) == turn_key(pos, stn), (sps, stn, back)
            if pos.gods[pos.to_move] != "artemis":
                assert back == stn


def test_state_key_keeps_athena_mark_only_for_her_own_move() -> None:
    a = state_key("0" * 25 + "/2/mortal:A1,E5/athena[^]:C5,E1", mover=0)
    b = state_key("0" * 25 + "/2/mortal:A1,E5/athena:C5,E1", mover=0)
    assert a == b
    assert state_key("0" * 25 + "/1/mortal:A1,E5/athena[^]:C5,E1", mover=1) != state_key(
        "0" * 25 + "/1/mortal:A1,E5/athena:C5,E1", mover=1
    )


# --- the fake program, as the interface is documented ------------------------------------------


def _talk(lines: list[str], env: dict[str, str] | None = None) -> list[str]:
    out = subprocess.run(
        [sys.executable, str(FAKE)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        check=True,
    )
    return out.stdout.splitlines()


def test_fake_next_moves_agree_with_our_legal_turns() -> None:
    """The fake lists every turn of ours (so the rules_diff tool finds nothing on it)."""
    for sps in (
        "artemis/minotaur;00000/01200/02310/00100/00000;b2,d4/c3,c4;1;3",
        "hermes/demeter;00000/01200/02310/00100/00000;b2,d4/c3,c4;1;3",
        "mortal/mortal;00000/00000/00000/00000/00000;-/-;1;1",
    ):
        pos = Position.from_sps(sps)
        lines = _talk([f"next_moves {fen_of(pos)}", "quit"])
        answer = json.loads(lines[1])
        assert answer["type"] == "next_moves"
        theirs = {action_key(pos, entry["actions"]) for entry in answer["next_states"]}
        assert theirs == {turn_key(pos, stn) for stn in pos.legal_turns()}


# --- the adapter in real matches ------------------------------------------------------------------


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fake as one executable (the adapter takes a program, not a command line)."""
    path = tmp_path_factory.mktemp("sai") / "uci"
    path.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    path.chmod(0o755)
    return path


def santorini(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "santorini_server.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def spec(binary: Path | str, name: str = "sai") -> str:
    return f"adapter=santorini-ai arg=--binary arg={binary} name={name}"


def records_of(path: Path) -> list:
    from santorini_server.records import parse_sgn

    return parse_sgn(path.read_text())


def test_check_passes_with_the_fake(fake: Path) -> None:
    proc = santorini("check", spec(fake))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert not [line for line in lines if line.startswith(("FAIL", "WARN"))], proc.stdout


@pytest.mark.parametrize(("gods", "mode"), [("artemis/minotaur", ""), ("hermes/prometheus", "selfstop"), ("atlas/demeter", "")])
def test_games_against_greedy_end_on_the_board(fake: Path, tmp_path: Path, gods: str, mode: str) -> None:
    out = tmp_path / "games.sgn"
    proc = santorini(
        "match",
        spec(fake),
        "greedy",
        "--games",
        "2",
        "--gods",
        gods,
        "--tc",
        "5+0.05",
        "--out",
        str(out),
        env={"FAKE_SAI_MODE": mode},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from santorini_server.records.replay import check_record

    for number, record in enumerate(records_of(out), 1):
        assert record.termination in ("climb", "pan-drop", "no-moves"), (record.termination, record.termination_detail)
        assert check_record(record, number) == []


@pytest.mark.parametrize(
    ("mode", "termination", "detail"),
    [
        ("illegal", "illegal", "makes an illegal turn"),  # the foreign turn, unrepaired, with why
        ("noturn", "illegal", "makes an illegal turn"),
        ("crash", "crash", ""),
        ("silent", "crash", ""),
    ],
)
def test_a_faulty_engine_loses_by_its_own_fault(fake: Path, tmp_path: Path, mode: str, termination: str, detail: str) -> None:
    out = tmp_path / "games.sgn"
    proc = santorini(
        "match", spec(fake), "random", "--games", "1", "--tc", "3+0.05", "--out", str(out), env={"FAKE_SAI_MODE": mode}
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (record,) = records_of(out)
    assert record.termination == termination, (record.termination, record.termination_detail)
    assert record.result == "0-1"  # the adapter (player 1 in game 1) lost
    assert detail in proc.stdout


@pytest.mark.skipif(REAL is None, reason="SANTORINI_AI_BINARY is not set: no real santorini-ai to play")
@pytest.mark.parametrize("gods", ["mortal/mortal", "artemis/minotaur", "apollo/prometheus"])
def test_real_engine_games_against_alphabeta(tmp_path: Path, gods: str) -> None:
    assert REAL is not None
    out = tmp_path / "games.sgn"
    proc = santorini("match", spec(REAL), "alphabeta", "--games", "2", "--gods", gods, "--tc", "5+0.05", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from santorini_server.records.replay import check_record

    for number, record in enumerate(records_of(out), 1):
        assert record.termination in ("climb", "pan-drop", "no-moves"), (record.termination, record.termination_detail)
        assert check_record(record, number) == []


@pytest.mark.skipif(REAL is None, reason="SANTORINI_AI_BINARY is not set: no real santorini-ai to check")
def test_real_engine_passes_check() -> None:
    proc = santorini("check", spec(str(REAL)))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_rules_diff_tool_finds_nothing_unexplained_on_the_fake(fake: Path) -> None:
    """tools/rules_diff.py never rots: against the fake (our rules, the program's spellings and
    its Minotaur quirk) every disagreement is explained and the figures are printed."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "rules_diff.py"), "--binary", str(fake), "--positions", "12",
         "--gods", "minotaur,artemis,mortal"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "unexplained disagreements: 0" in proc.stdout
    assert "adapter CPU per turn" in proc.stdout


def test_rules_diff_explains_the_minotaur_winning_push(fake: Path) -> None:
    import importlib.util

    from santorini_server.adapters.common import ForeignProcess

    loaded = importlib.util.spec_from_file_location("rules_diff", ROOT / "tools" / "rules_diff.py")
    assert loaded is not None and loaded.loader is not None
    tool = importlib.util.module_from_spec(loaded)
    sys.modules["rules_diff"] = tool  # (its dataclasses look their module up)
    loaded.loader.exec_module(tool)
    pos = Position.from_sps("minotaur/mortal;00000/00000/00300/00200/00000;c2,e5/c3,a5;1;2")
    assert pos.play("c2xc3").win
    proc = ForeignProcess([str(fake)])
    try:
        proc.expect(lambda line: line.startswith('{"type":"started"'), 30)
        turns, found = tool.compare(proc, pos, "minotaur", [])
    finally:
        proc.close()
    assert turns == len(pos.legal_turns())
    assert [(d.kind, d.cause, d.ours) for d in found] == [("next state", "minotaur-win-push", ["c2xc3"])]


def test_a_program_that_exits_at_start_ends_the_adapter_with_one_line(tmp_path: Path) -> None:
    dead = tmp_path / "uci"
    dead.write_text("#!/bin/sh\nexit 3\n")
    dead.chmod(0o755)
    proc = subprocess.run(
        [sys.executable, "-m", "santorini_server.adapters", "santorini-ai", "--binary", str(dead)],
        input="sei 1\n", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == ["santorini-ai: uci exited (status 3)"]
    assert "seiok" not in proc.stdout


def test_artemis_level_step_on_level_three_is_a_turn_where_santorini_ai_lists_only_the_win() -> None:
    """The cross-check's Artemis difference (SPEC.md section 20.5), found by tools/rules_diff.py:
    c1 and b1 are both level 3, so c1-b1 is a level step that builds (section 1.4), while
    c1-b2-b1 goes 3->2->3 and wins.  santorini-ai lists only the win on b1."""
    pos = Position.from_sps("minotaur/artemis;11001/20222/02211/02423/03301;b5,d1/c1,d4;2;19")
    turns = set(pos.legal_turns())
    assert {"c1-b1+a2", "c1-b1+b2", "c1-b1+a1"} <= turns
    assert "c1-b1" not in turns
    assert pos.play("c1-b2-b1").win
