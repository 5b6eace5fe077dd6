"""The viewer's packed games (viewer/packed.py): every game comes back exactly as the model made
it, through the page's text too.  (The browser tests hold the page's own unpacking to the model,
and tests/test_report_browser.py a tournament's block files to its archive's bytes per game.)"""

from __future__ import annotations

import re
from typing import Any

import pytest

from santorini_server.records import GameRecord, TurnRecord
from santorini_server.rules import ruleset_of
from santorini_server.viewer import game_data
from santorini_server.viewer.packed import (
    PACK_VERSION,
    decode_blob,
    encode_blob,
    pack_games,
    pack_text,
    packed_games,
    plain_annotation,
    unpack_games,
    unpack_text,
)

from .viewer_games import GOD_GAMES, god_game, nseat_games

#: What each god's packed annotations must carry (kind codes after the ``|``, or arrows' kinds).
POWER_CODES = {
    "apollo": r"f\|",  # the forced arrow of the swap
    "minotaur": r"f\|",  # the pushed worker's arrow
    "prometheus": r"\|.*p",  # the build before the move
    "atlas": r"\|.*a",  # a dome below level 3
    "demeter": r"\|[a-y]b[a-y]b",  # two builds
    "hephaestus": r"\|.*2",  # two blocks on one square
    "artemis": r"m[a-y][a-y]m\|",  # two steps
    "hermes": r"m[a-y][a-y]m\|",  # two workers moved
}


def all_games() -> list[dict[str, Any]]:
    """The model of a whole game of every god against a mortal, three- and four-seat games with
    eliminations, a game whose record stops re-validating, and one whose start is no position."""
    games = [game_data(god_game(god).record, k) for k, god in enumerate(GOD_GAMES, 1)]
    games += [game_data(g.record, 20 + k) for k, g in enumerate(nseat_games().values())]
    record = god_game("mortal").record
    broken = GameRecord(record.tags, (*record.turns[:6], record.turns[3], *record.turns[7:]))
    bad_start = GameRecord(tuple((n, "mortal/mortal;00000/00000/00000/00000/00000;a1,a1/-;1;1" if n == "Start" else v)
                                 for n, v in record.tags), ())
    games += [game_data(broken, 30), game_data(bad_start, None)]
    return games


@pytest.fixture(scope="module")
def games() -> list[dict[str, Any]]:
    return all_games()


def test_every_game_comes_back_as_the_model_made_it(games: list[dict[str, Any]]) -> None:
    packed = pack_games(games)
    assert unpack_games(packed) == games
    assert unpack_games(decode_blob(encode_blob(packed))) == games  # through the page's text
    assert [unpack_games(pack_games([g])) for g in games] == [[g] for g in games]  # alone in a page
    assert games[-1]["p"] == [] and games[-2]["problem"] and any(g["nseats"] == 4 for g in games)


@pytest.mark.parametrize("god", sorted(POWER_CODES))
def test_a_power_is_carried_in_the_annotation_code(god: str) -> None:
    shown = game_data(god_game(god).record, 1)
    packed = pack_games([shown])
    codes = [code for code, turn in zip(packed["turns"]["a"], shown["t"], strict=True) if turn["seat"] == 1]
    assert any(re.search(POWER_CODES[god], code) for code in codes), (god, codes)
    assert unpack_games(packed) == [shown]


def test_an_ordinary_turn_is_read_from_its_stn_and_a_power_is_not(games: list[dict[str, Any]]) -> None:
    codes = iter(pack_games(games)["turns"]["a"])
    plain = 0
    for game in games:
        for k, turn in enumerate(game["t"]):
            code = next(codes)
            marks = {key: v for key, v in turn["a"].items() if key != "txt"}
            assert (code == "") == (marks == plain_annotation(turn["s"], game["p"][k + 1]["b"])), (turn, code)
            plain += code == ""
    assert plain > sum(len(g["t"]) for g in games) / 3  # the usual turn costs no annotation
    assert plain_annotation("c3-d4+e5", "0" * 25) == {"mv": [[12, 8, "move"]], "bd": [[4, "block"]]}
    assert plain_annotation("c3-d4+e5", "0000D" + "0" * 20) == {"mv": [[12, 8, "move"]], "bd": [[4, "dome"]]}
    assert plain_annotation("b2,d4", "0" * 25) == {"place": [16, 8]}
    assert plain_annotation("c3-d4+e5D", "0" * 25) is None and plain_annotation("c3xd4+e5", "0" * 25) is None


def test_clocks_unknown_after_an_untimed_turn_stay_unknown() -> None:
    turns = [TurnRecord("b3,d3", 700), TurnRecord("a1,e5", 250), TurnRecord("b3-b4+c5"), TurnRecord("a1-a2+a3", 1200),
             TurnRecord("b4-c4+b4", 90), TurnRecord("a2-b1+a2", 40)]
    record = GameRecord.build(
        event="e", site="s", date="2026.12.02", round="1", player1="Ann", player2="Bob", gods="mortal/mortal",
        ruleset=ruleset_of("mortal", "mortal"), start="startpos", time_control="10+1", result="*",
        termination="aborted", termination_detail="", turns=turns,
    )
    shown = game_data(record, 1)
    assert [t.get("clock") for t in shown["t"]] == [10300, 10750, None, 10550, None, 11510]
    assert unpack_games(decode_blob(encode_blob(pack_games([shown])))) == [shown]


def test_the_page_text_has_no_angle_bracket_and_bad_text_is_one_line_error(games: list[dict[str, Any]]) -> None:
    text = packed_games(games)
    assert "<" not in text and "&" not in text.replace("&", "") and not re.search(r"\s", text)
    assert unpack_games(decode_blob(text)) == games
    assert decode_blob(text)["geometry"]["cell"] > 0
    assert unpack_text(pack_text("é</script>" * 50)) == "é</script>" * 50
    for bad in ("not base85 at all <", "0123", pack_text("x")[:-3]):
        with pytest.raises(ValueError, match="not a packed viewer block") as caught:
            decode_blob(bad)
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match=f"version 99, not {PACK_VERSION}"):
        unpack_games({**pack_games(games[:1]), "v": 99})
