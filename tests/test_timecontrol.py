"""Time-control grammar and clock arithmetic (pure)."""

from __future__ import annotations

import pytest

from santorini_server.adjudicator import DEFAULT_HARD_DEADLINE_MS, Clock, TimeControl, parse_tc, tc_warnings
from santorini_server.adjudicator.clock import MAX_TC_COUNT, MAX_TC_SECONDS
from santorini_server.referee.engine_spec import parse_engine_spec, parse_size


@pytest.mark.parametrize(
    ("text", "tc"),
    [
        ("60+0.5", TimeControl(60_000, 500)),
        ("0.2+0.002", TimeControl(200, 2)),
        ("40/60+0", TimeControl(60_000, 0, 40)),
        ("40/60", TimeControl(60_000, 0, 40)),
        ("60", TimeControl(60_000)),
        ("1:30+1", TimeControl(90_000, 1000)),
        ("movetime=0.1", TimeControl(movetime_ms=100)),
        ("depth=6", TimeControl(depth=6)),
        ("nodes=20000,hard=5", TimeControl(nodes=20000, hard_ms=5000)),
        ("10+0.1,depth=8", TimeControl(10_000, 100, depth=8)),
        ("inf,depth=3", TimeControl(depth=3)),
    ],
)
def test_parse_tc(text: str, tc: TimeControl) -> None:
    assert parse_tc(text) == tc
    assert parse_tc(str(tc)) == tc  # str() spells it back


@pytest.mark.parametrize(
    "text",
    ["", "abc", "1+x", "-5+1", "0+1", "movetime=0", "depth=0", "nodes=-1", "10+1,20+1", "10+1,movetime=1", "speed=3", "40/"],
)
def test_bad_tc_is_one_line_error(text: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_tc(text)
    assert "\n" not in str(info.value)


def test_fischer_clock_charges_then_adds_increment() -> None:
    clock = Clock(parse_tc("1+0.1"))
    assert clock.allowance_ms() == 1000
    assert clock.charge(300) is None
    assert clock.remaining_ms == 800
    assert clock.charge(800) is None  # exactly at zero is not a loss; then +100
    assert clock.remaining_ms == 100
    assert clock.charge(101) == pytest.approx(1)


def test_fischer_time_loss_and_margin() -> None:
    clock = Clock(parse_tc("1+0.1"))
    assert clock.charge(1037) == pytest.approx(37)
    forgiving = Clock(parse_tc("1+0.1"), margin_ms=50)
    assert forgiving.allowance_ms() == 1050
    assert forgiving.charge(1030) is None
    assert forgiving.remaining_ms == pytest.approx(-30 + 100)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2+0,02", "bad time control '2+0,02': the increment '0,02' has a decimal comma; write a decimal point: '2+0.02'"),
        ("2,5+0.1", "bad time control '2,5+0.1': the base time '2,5' has a decimal comma; write a decimal point: '2.5+0.1'"),
        ("40/60+0,5,depth=6", "the increment '0,5' has a decimal comma; write a decimal point: '40/60+0.5,depth=6'"),
        ("movetime=0,1", "the movetime '0,1' has a decimal comma; write a decimal point: 'movetime=0.1'"),
        # not a decimal comma: the part is quoted, as before
        ("1+x", "bad time control part '1+x' in '1+x' (expected e.g. 60+0.5"),
        ("1+0,x", "bad time control part 'x' in '1+0,x'"),
    ],
)
def test_a_decimal_comma_is_named_with_the_whole_number_quoted(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_tc(text)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("text", "warnings"),
    [
        ("999+1", []),
        ("10+10", []),
        ("2000", ["time control '2000' gives 2000 s (33 minutes) on the clock: times are in seconds"]),
        ("depth=6", []),
        ("movetime=5000", []),
        ("3601", ["time control '3601' gives 3601 s (60 minutes) on the clock: times are in seconds"]),
        ("1+2", ["time control '1+2' adds 2 s a turn, more than its 1 s base"]),
        ("40/7200+7201", [
            "time control '40/7200+7201' gives 7200 s (2.0 hours) on the clock: times are in seconds",
            "time control '40/7200+7201' adds 7201 s a turn, more than its 7200 s base",
        ]),
    ],
)
def test_a_likely_slip_in_a_time_control_is_a_warning(text: str, warnings: list[str]) -> None:
    assert tc_warnings(parse_tc(text)) == warnings


def test_moves_per_period_refills_and_counts_movestogo() -> None:
    clock = Clock(parse_tc("2/10"))
    assert clock.movestogo == 2
    clock.charge(4000)
    assert clock.movestogo == 1
    clock.charge(4000)
    assert clock.remaining_ms == 12_000 and clock.movestogo == 2


def test_movetime_and_untimed_deadlines() -> None:
    clock = Clock(parse_tc("movetime=0.1"), margin_ms=10)
    assert clock.allowance_ms() == 110
    assert clock.charge(105) is None
    assert clock.charge(115) == pytest.approx(15)
    depth = Clock(parse_tc("depth=4"))
    assert depth.allowance_ms() == DEFAULT_HARD_DEADLINE_MS


def test_engine_spec_grammar() -> None:
    spec = parse_engine_spec(
        'cmd=./bot name=Bot arg=--fast "arg=two words" dir=/opt option.Hash=64 "option.Time Buffer=80" '
        "tc=10+0.1 timemargin=50 limit.memory=512M limit.cpu=30 restart=on"
    )
    assert spec.argv == ("./bot", "--fast", "two words")
    assert spec.name == "Bot" and spec.cwd == "/opt"
    assert spec.options == (("Hash", "64"), ("Time Buffer", "80"))
    assert spec.tc == TimeControl(10_000, 100) and spec.timemargin_ms == 50
    assert spec.memory_limit == 512 * 1024**2 and spec.cpu_limit == 30 and spec.restart
    assert parse_engine_spec("greedy").bundled == "greedy"
    assert parse_engine_spec("cmd=/usr/bin/mybot").name == "mybot"
    assert parse_size("2G") == 2 * 1024**3


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty engine spec"),
        ("name=x", "no cmd="),
        ("cmd= name=x", "the program is empty"),
        ("cmd=x frob=1", "unknown key"),
        ("cmd=x tc=abc", "bad time control"),
        ("cmd=x timemargin=-1", "timemargin"),
        ("cmd=x limit.memory=lots", "bad size"),
        ("cmd=x proto=uci", "only sei"),
        ("nosuchengine", "expected key=value"),
        ('cmd="unterminated', "bad engine spec"),
    ],
)
def test_bad_engine_specs(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_engine_spec(text)


KNOWN_KEYS = (
    "known keys: cmd=, name=, arg=, dir=, option.NAME=, tc=, timemargin=, limit.memory=, limit.cpu=, restart=, "
    "bundled=, proto=, adapter="
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cmd=x nmae=mybot", f"bad engine spec token 'nmae=mybot': unknown key 'nmae' (did you mean name=?); {KNOWN_KEYS}"),
        ("cmd=x opton.Hash=8", f"unknown key 'opton.Hash' (did you mean option.Hash=?); {KNOWN_KEYS}"),
        ("cmd=x frob=1", f"bad engine spec token 'frob=1': unknown key 'frob'; {KNOWN_KEYS}"),
        ("cmd=x fast", f"'fast': expected key=value or a bundled engine (random, greedy, alphabeta); {KNOWN_KEYS}"),
    ],
)
def test_an_unknown_engine_spec_key_lists_the_known_ones(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_engine_spec(text)
    assert str(info.value).endswith(message)


@pytest.mark.parametrize(
    "text", ["9" * 400 + "+0", "1+" + "9" * 400, "9" * 400 + ":00", "movetime=1e400", "hard=inf", "1000000000.001"]
)
def test_a_time_beyond_the_bound_is_a_one_line_error_naming_it(text: str) -> None:
    with pytest.raises(ValueError, match=r"^bad time control part .*: a time is at most 1,000,000,000 s") as info:
        parse_tc(text)
    assert "\n" not in str(info.value) and len(str(info.value)) < 250  # the part quoted cut short
    assert parse_tc("1000000000").base_ms == MAX_TC_SECONDS * 1000
    with pytest.raises(ValueError, match=r"in 'movetime=nan' \(expected"):
        parse_tc("movetime=nan")
    with pytest.raises(ValueError, match="at most"):
        parse_engine_spec(f"cmd=./x tc={text}")


@pytest.mark.parametrize("text", [f"nodes={2**63}", f"depth={2**63}", f"{2**63}/60+0", "nodes=0", "depth=-1"])
def test_a_count_beyond_an_engine_s_64_bit_integer_is_refused(text: str) -> None:
    """depth=, nodes= and the moves of 40/60 go to ``go`` as given: a count no engine's int64 holds is a bad part."""
    with pytest.raises(ValueError, match=r"^bad time control part"):
        parse_tc(text)
    assert parse_tc(f"nodes={2**63 - 1}").nodes == MAX_TC_COUNT == 2**63 - 1


@pytest.mark.parametrize("each", ["cmd=./x", "greedy", "tc=1+0 name=x", "arg=--fast", "dir=/tmp", "bundled=random"])
def test_an_each_spec_naming_a_program_is_refused_not_dropped(each: str) -> None:
    with pytest.raises(ValueError, match=r"^bad --each token '.*': --each gives every engine the same option\.X="):
        parse_engine_spec(each, allow_partial=True)
    spec = parse_engine_spec('tc=1+0 "option.Time Buffer=name=x"', allow_partial=True)
    assert spec.tc == TimeControl(1000) and spec.options == (("Time Buffer", "name=x"),)
