"""Time-control grammar and clock arithmetic (pure)."""

from __future__ import annotations

import pytest

from santorini_server.adjudicator import DEFAULT_HARD_DEADLINE_MS, Clock, TimeControl, parse_tc
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
