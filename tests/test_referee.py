"""The referee with real engine processes: results, terminations, clocks, restarts."""

from __future__ import annotations

import statistics
import sys

import pytest
import trio
import trio.testing

from santorini_server.adjudicator import parse_tc
from santorini_server.records import parse_sgn
from santorini_server.referee import Engine, EngineFailure, GameSetup, parse_engine_spec, play_game
from santorini_server.rules import Position
from santorini_server.tournament.match import MatchConfig, run_match

PY = sys.executable


def gallery(module: str, *args: str, name: str | None = None) -> str:
    spec = f"cmd={PY} arg=-m arg=tests.gallery.{module} " + " ".join(f"arg={a}" for a in args)
    return spec + f" name={name or module}"


async def start(nursery: trio.Nursery, text: str, **kwargs: float) -> Engine:
    return await Engine.start(nursery, parse_engine_spec(text), **kwargs)  # type: ignore[arg-type]


async def play(a: str, b: str, tc: str = "10+0.1", **setup: object):  # type: ignore[no-untyped-def]
    async with trio.open_nursery() as nursery:
        e1, e2 = await start(nursery, a), await start(nursery, b)
        try:
            t = parse_tc(tc)
            return await play_game((e1, e2), GameSetup(tcs=(t, t), **setup))  # type: ignore[arg-type]
        finally:
            await e1.aclose()
            await e2.aclose()


def replay(record) -> Position:  # type: ignore[no-untyped-def]
    pos = Position.from_sps(record.start) if record.start != "startpos" else Position.start(record.gods)
    for t in record.turns:
        pos = pos.play(t.turn).position
    return pos


async def test_a_game_between_instant_engines_ends_in_a_recorded_win() -> None:
    report = await play(gallery("instant", name="A"), gallery("instant", name="B"))
    assert report.outcome.termination in ("climb", "no-moves")
    assert report.outcome.winner in (1, 2)
    assert replay(report.record).sps() == report.final_sps  # every recorded turn re-validates
    assert report.record.players == ("A", "B")
    assert all(t.time_ms is not None and t.depth == 1 and t.score == "+5" for t in report.record.turns)


async def test_illegal_turn_loses_with_the_turn_quoted_and_the_reason() -> None:
    report = await play(gallery("instant", name="A"), gallery("instant", "illegal", name="B"))
    assert (report.outcome.winner, report.outcome.termination) == (1, "illegal")
    assert report.outcome.detail == "'a1-a1+a1': a1 holds your opponent's worker: yours are on a3 and a4"
    assert len(report.record.turns) == 3  # two placements and player 1's first play turn


async def test_resign() -> None:
    report = await play(gallery("instant", "resign", name="A"), gallery("instant", name="B"))
    assert (report.outcome.winner, report.outcome.termination) == (2, "resign")


async def test_crash_mid_game_names_the_exit_code() -> None:
    report = await play(gallery("instant", "crash=3", name="A"), gallery("instant", name="B"))
    assert (report.outcome.winner, report.outcome.termination) == (2, "crash")
    assert "exit code 3" in report.outcome.detail


async def test_engine_that_sleeps_past_its_clock_loses_on_time() -> None:
    report = await play(gallery("instant", "sleep=300", name="A"), gallery("instant", name="B"), tc="0.1+0")
    assert (report.outcome.winner, report.outcome.termination) == (2, "time")
    assert report.outcome.detail.startswith("by ")


async def test_the_charged_time_is_what_the_engine_spent() -> None:
    report = await play(gallery("instant", "sleep=40", name="A"), gallery("instant", "sleep=40", name="B"), tc="60+0")
    times = [t.time_ms or 0 for t in report.record.turns]
    # never less than it slept; at the median not much more (a turn or two may overshoot while
    # a loaded machine is slow to wake the engine, which the engine really spent)
    assert times and min(times) >= 35 and 35 <= statistics.median(times) <= 120, times


async def test_opening_position_and_gods_from_sps() -> None:
    opening = "apollo/minotaur;00000/00000/00000/00000/00000;b3,d3/c2,c4;1;2"
    report = await play(gallery("instant", name="A"), gallery("instant", name="B"), opening=opening)
    assert report.record.start == opening and report.record.gods == ("apollo", "minotaur")
    assert replay(report.record).sps() == report.final_sps


async def test_engine_that_hangs_loses_on_time_at_the_exact_deadline(mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.5  # real replies arrive in ms; only a true hang jumps
    async with trio.open_nursery() as nursery:
        hang = await start(nursery, gallery("hang"))
        ok = await start(nursery, gallery("instant"))
        t = parse_tc("3+0")
        start_time = trio.current_time()
        report = await play_game((hang, ok), GameSetup(tcs=(t, t)))
        assert (report.outcome.winner, report.outcome.termination) == (2, "time")
        assert hang.turn_started - start_time < 0.5
        assert hang.broken  # it did not answer stop either: it will be restarted
        await hang.aclose()
        await ok.aclose()


async def test_engine_that_never_answers_sei_is_a_stall(mock_clock: trio.testing.MockClock) -> None:
    mock_clock.autojump_threshold = 0.5
    async with trio.open_nursery() as nursery:
        with pytest.raises(EngineFailure) as info:
            await start(nursery, gallery("mute"), handshake_timeout=10.0)
    assert info.value.kind == "stall" and "no seiok within 10 s" in info.value.detail


async def test_match_restarts_a_crashed_engine_and_alternates_colours(tmp_path) -> None:  # type: ignore[no-untyped-def]
    lines: list[str] = []
    specs = (parse_engine_spec(gallery("instant", "crash=3", name="Crashy")), parse_engine_spec(gallery("instant", name="Solid")))
    summary = await run_match(MatchConfig(specs, 3, parse_tc("10+0.1")), emit=lines.append)
    assert lines[0] == "Started game 1 of 3 (Crashy vs Solid)"
    assert lines[2] == "Started game 2 of 3 (Solid vs Crashy)"
    finished = [line for line in lines if line.startswith("Finished")]
    assert all("Crashy disconnects: exited during its turn (exit code 3)" in line for line in finished)
    assert summary.wins == [0, 3]
    assert lines[-1] == "Score of Crashy vs Solid: 0 - 3 - 0  [0.000] 3"


def test_match_command_writes_sgn_that_replays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import subprocess

    out = tmp_path / "games.sgn"
    proc = subprocess.run(
        [PY, "-m", "santorini_server.cli", "match", gallery("instant", name="A"), gallery("instant", name="B"),
         "--games", "2", "--tc", "5+0.05", "--out", str(out)],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Score of A vs B: " in proc.stdout
    records = parse_sgn(out.read_text())
    assert len(records) == 2
    for record in records:
        replay(record)


def test_match_refuses_an_out_file_it_cannot_append_to_before_any_game(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A game that does not parse and is not a torn last one, or a file that is not SGN: one
    line naming the file (and the game), exit 1, no engine started, the file untouched."""
    import re
    import subprocess

    def match_to(out):  # type: ignore[no-untyped-def]
        return subprocess.run(
            [PY, "-m", "santorini_server.cli", "match", gallery("instant", name="A"), gallery("instant", name="B"),
             "--games", "2", "--tc", "5+0.05", "--out", str(out)],
            capture_output=True, text=True, timeout=60,
        )

    good = tmp_path / "games.sgn"
    assert match_to(good).returncode == 0
    text = good.read_text()
    damaged = tmp_path / "damaged.sgn"
    damaged.write_text(re.sub(r'\[Gods "[^"]*"\]', '[Gods "zz"]', text, count=1))
    notes = tmp_path / "notes.txt"
    notes.write_text("notes\n")
    for out, fragment in ((damaged, f"Error: {damaged}: game 1 (from line 1) does not parse: line 8, column 7: "),
                          (notes, f"Error: {notes} is not an SGN file: line 1, column 1: ")):
        before = out.read_bytes()
        proc = match_to(out)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr.startswith(fragment) and proc.stderr.count("\n") == 1, proc.stderr
        assert out.read_bytes() == before
    torn = tmp_path / "torn.sgn"  # a last game cut short by a crash is cut off, as ever
    torn.write_text(text[: len(text) - 30])
    assert match_to(torn).returncode == 0
    assert len(parse_sgn(torn.read_text())) == 3


@pytest.mark.parametrize(
    ("mode", "limit", "fragment"),
    [("cpu", "limit.cpu=1", "CPU limit of 1 s"), ("memory", "limit.memory=200M", "memory limit of 200 MiB")],
)
async def test_resource_limit_breach_is_its_own_termination(mode: str, limit: str, fragment: str) -> None:
    report = await play(gallery("hog", mode, name="Hog") + " " + limit, gallery("instant", name="B"), tc="30+0")
    assert (report.outcome.winner, report.outcome.termination) == (2, "limit"), report.outcome
    assert fragment in report.outcome.detail


def test_match_debug_logs_every_line_as_json_when_not_a_terminal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import subprocess

    proc = subprocess.run(
        [PY, "-m", "santorini_server.cli", "match", gallery("instant", name="A"), gallery("instant", name="B"),
         "--games", "1", "--tc", "5+0.05", "--debug"],
        capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    sent = [e for e in events if e.get("dir") == ">>"]
    received = [e for e in events if e.get("dir") == "<<"]
    assert {e["engine"] for e in sent} == {"A", "B"}
    assert any(e["line"] == "sei 1" for e in sent) and any(e["line"].startswith("bestmove ") for e in received)
    assert all("timestamp" in e for e in events)
    assert "Score of A vs B" in proc.stdout and "{" not in proc.stdout.splitlines()[-1]


def test_turn_records_keep_telemetry_a_record_can_hold_and_drop_the_rest() -> None:
    """The codec reads counts of up to 20 digits; a record holds up to 18.  An engine that
    reports more must not fail the game (its records are built from every turn's telemetry)."""
    from santorini_server.adjudicator import turn_record
    from santorini_server.records import TurnRecord

    from .test_adjudicator import parsed_info

    huge = parsed_info("info depth 7 nodes 99999999999999999999 score cp -99999999999999999999")
    record = turn_record("b3-b4+c5", 12, huge)
    assert record == TurnRecord("b3-b4+c5", 12, None, 7, None)
    fine = parsed_info("info depth 3 nodes 1200 score win -2")
    assert turn_record("b3-b4+c5", 5, fine) == TurnRecord("b3-b4+c5", 5, "-win/2", 3, 1200)
    # what the referee stores passes the record's own checks when read back
    from santorini_server.adjudicator import Outcome, make_record
    from santorini_server.records import decode_record, encode_record, format_sgn
    from santorini_server.termination import Termination

    game = make_record(GameSetup(), ("a", "b"), Outcome(1, Termination.CLIMB), [record, turn_record("b3-b4+c5", 5, fine)])  # type: ignore[arg-type]
    assert parse_sgn(format_sgn(game)) == [game]
    assert decode_record(encode_record(game)) == game


async def test_ping_syncs_before_every_go_with_the_position_sent_first() -> None:
    """``--ping``: ``position``, then ``isready``/``readyok`` off the clock, then ``go``;
    the position is the whole game so far, from the opening."""
    sent: list[tuple[str, str]] = []

    def log(name: str, direction: str, text: str) -> None:
        if direction == ">>" and name == "A":
            sent.append((name, text))

    opening = "mortal/mortal;00000/00000/00000/00000/00000;b2,d4/-;2;1"
    async with trio.open_nursery() as nursery:
        a = await Engine.start(nursery, parse_engine_spec(gallery("instant", name="A")), io_log=log)
        b = await start(nursery, gallery("instant", name="B"))
        report = await play_game((a, b), GameSetup(ping=True, opening=opening))
        await a.aclose()
        await b.aclose()
    assert report.outcome.termination in ("climb", "no-moves")
    assert replay(report.record).sps() == report.final_sps
    lines = [text for _, text in sent]
    gos = [i for i, text in enumerate(lines) if text.startswith("go ")]
    assert gos
    moves_before = []
    for i in gos:
        assert lines[i - 1] == "isready" and lines[i - 2].startswith(f"position sps {opening}")
        moves_before.append(lines[i - 2])
    # A is player 1 and player 2 places first from this opening: A's n-th position holds the
    # 2n+1 turns played since the opening
    recorded = [t.turn for t in report.record.turns]
    assert moves_before == [f"position sps {opening} moves " + " ".join(recorded[: 2 * n + 1]) for n in range(len(gos))]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--gods", "apollo"], "Error: Invalid value for '--gods': expected two gods like apollo/mortal, got 'apollo'"),
        (["--gods", "apollo/zeus"], "Error: Invalid value for '--gods': unknown god 'zeus'"),
        (["--tc", "1+x"], "Error: Invalid value for '--tc': bad time control part '1+x'"),
        (["--tc", "2+0,02"], "Error: Invalid value for '--tc': bad time control '2+0,02': the increment '0,02' has a "
                             "decimal comma; write a decimal point: '2+0.02'"),
        (["random", "cmd=./x nmae=mybot"], "Error: Invalid value for 'ENGINE2': bad engine spec token 'nmae=mybot': "
                                            "unknown key 'nmae' (did you mean name=?); known keys: cmd=, name="),
        (["--opening", "junk"], "Error: Invalid value for '--opening': malformed SPS 'junk'"),
        # a name is every record's PlayerN tag: the record layer's rule, before any game (not a
        # RecordError after the first one)
        (["random", "bundled=greedy name=a\x01b"], "Error: Invalid value for 'ENGINE2': engine name holds a control "
                                                   "character '\\x01' at index 1: 'a\\x01b'"),
        (["bundled=greedy name=a\u2028b", "random"], "Error: Invalid value for 'ENGINE1': engine name holds a control "
                                                     "character '\\u2028' at index 1: 'a\\u2028b'"),
        (["random", "cmd='./a\tb'"], "Error: Invalid value for 'ENGINE2': engine name holds a control character '\\t'"),
        (["--opening", "mortal/mortal;00000/00000/00000/00000/00000;a1,b2/c3,d4;1;2", "--gods", "apollo/pan"],
         "Error: --gods apollo/pan disagrees with the opening's gods mortal/mortal"),
    ],
)
def test_match_rejects_bad_flags_in_one_line_before_starting_engines(flags: list[str], message: str) -> None:
    from click.testing import CliRunner

    from santorini_server.cli import main

    engines = ["random", "random"] if flags[0].startswith("--") else []
    result = CliRunner().invoke(main, ["match", *engines, *flags])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Started game" not in result.output and "Traceback" not in result.output
    assert not isinstance(result.exception, (TypeError, AttributeError))


def test_match_warns_of_a_likely_slip_in_a_time_control_and_plays_on() -> None:
    from click.testing import CliRunner

    from santorini_server.cli import main

    engine = gallery("instant", name="B") + " tc=1+2"
    result = CliRunner().invoke(main, ["match", gallery("instant", name="A"), engine, "--games", "1", "--tc", "3601+1"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "warning: time control '3601+1' gives 3601 s (60 minutes) on the clock: times are in seconds",
        "warning: time control '1+2' adds 2 s a turn, more than its 1 s base",
    ]
    assert "Finished game 1 (A vs B)" in result.stdout


def test_match_flag_defaults_and_good_values_parse() -> None:
    """The parsed defaults (--tc, --gods) and good values pass through the shared flag types."""
    from santorini_server.adjudicator import TimeControl
    from santorini_server.cli.options import ENGINE, GODS, SPS, TC

    assert GODS.convert("apollo/pan", None, None) == ("apollo", "pan")
    assert GODS.convert(("apollo", "pan"), None, None) == ("apollo", "pan")
    tc = TC.convert("2+0.02", None, None)
    assert isinstance(tc, TimeControl) and TC.convert(tc, None, None) is tc
    assert ENGINE.convert("random", None, None).name == "random"
    start = Position.start().sps()
    assert SPS.convert(start, None, None) == start


async def test_a_game_alone_in_its_loop_polls_for_replies_and_plays_as_it_does_through_trio(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The fast path (a reply waited for in poll, channel._receive_alone) against the plain one
    # (ALONE_WAIT = 0: every wait through trio's scheduler): the same game, turn for turn.
    from santorini_server.referee import channel

    polled: list[bool] = []
    async with trio.open_nursery() as nursery:
        engines = (await start(nursery, gallery("instant", name="A")), await start(nursery, gallery("instant", name="B")))
        for engine in engines:
            original = engine.process.poll_output

            def counted(timeout: float, original=original) -> bool:  # type: ignore[no-untyped-def]
                polled.append(ready := original(timeout))
                return ready

            engine.process.poll_output = counted  # type: ignore[method-assign]
        t = parse_tc("10+0.1")
        fast = await play_game(engines, GameSetup(tcs=(t, t)))
        assert any(polled)  # replies were read after a blocking poll...
        monkeypatch.setattr(channel, "ALONE_WAIT", 0.0)
        asked = len(polled)
        plain = await play_game(engines, GameSetup(tcs=(t, t)))
        assert len(polled) == asked  # ...and with the plain path, never
        for engine in engines:
            await engine.aclose()
    assert [t.turn for t in fast.record.turns] == [t.turn for t in plain.record.turns]
    assert (fast.outcome.winner, fast.outcome.termination) == (plain.outcome.winner, plain.outcome.termination) == (
        fast.outcome.winner, "climb")
    assert all(t.time_ms is not None and t.time_ms < 1000 for t in fast.record.turns)


async def test_a_game_sharing_its_loop_never_blocks_it_in_poll() -> None:
    # two games at once in one loop: every reply is waited for through trio (fairness of clocks),
    # until one game is left alone
    from santorini_server.referee.channel import live_games

    polled: list[int] = []  # the games in play at each blocking poll
    async with trio.open_nursery() as nursery:
        engines = [await start(nursery, gallery("instant", name=f"E{i}")) for i in range(4)]
        for engine in engines:
            original = engine.process.poll_output

            def counted(timeout: float, original=original) -> bool:  # type: ignore[no-untyped-def]
                polled.append(live_games()[0])
                return original(timeout)

            engine.process.poll_output = counted  # type: ignore[method-assign]
        t = parse_tc("10+0.1")
        reports = []

        async def one(pair: tuple[Engine, Engine]) -> None:
            reports.append(await play_game(pair, GameSetup(tcs=(t, t))))

        async with trio.open_nursery() as games:
            games.start_soon(one, (engines[0], engines[1]))
            games.start_soon(one, (engines[2], engines[3]))
        for engine in engines:
            await engine.aclose()
    assert len(reports) == 2 and all(r.outcome.termination == "climb" for r in reports)
    assert 2 not in polled, polled
