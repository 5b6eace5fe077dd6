"""The dashboard's pure parts: view models, sessions and the origin rule, the incremental run
standings, and the store's queries for the pages (a real SQLite file)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from santorini_server.dashboard.sessions import Sessions, same_origin
from santorini_server.dashboard.views import duration_text, god_rows, opponent_rows, pager, progress, rating_chart
from santorini_server.records import GameRecord
from santorini_server.records.archive import encode_frame
from santorini_server.records.payload import decode_record_without_turns, encode_record
from santorini_server.server.run_standings import RunViews
from santorini_server.server.store import NewGame, RatingPoint, Store
from santorini_server.stats.standings import Standings
from santorini_server.tournament.config import Settings, TournamentConfig
from santorini_server.tournament.standings_file import StandingsFile


def test_pager_clamps_and_ignores_bad_values() -> None:
    assert (pager(None, 0).page, pager(None, 0).pages) == (1, 1)
    p = pager("3", 120, 50)
    assert (p.page, p.pages, p.offset, p.previous, p.next) == (3, 3, 100, 2, None)
    assert pager("99", 120, 50).page == 3 and pager("-2", 120, 50).page == 1 and pager("x", 120, 50).page == 1
    assert pager("0", 120, 50).page == 1 and pager("1", 120, 50).next == 2
    assert pager("\u0662", 120, 50).page == 1 and pager("\uff12", 120, 50).page == 1  # other scripts' 2: not a page
    assert pager("9" * 5000, 120, 50).page == 1  # beyond int's digit limit: not a page, not a ValueError


def test_progress_rate_and_eta() -> None:
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    running = progress(30, 100, "2026-01-01T11:00:00+00:00", None, now)
    assert running.elapsed == 3600 and running.rate_per_hour == 30 and running.eta == pytest.approx(70 * 120)
    assert running.percent == 30
    done = progress(100, 100, "2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00", now)
    assert done.elapsed == 3600 and done.rate_per_hour == 100 and done.eta is None  # finished: no ETA
    assert progress(0, 10, "2026-01-01T11:00:00+00:00", None, now).eta is None  # no game yet: no rate
    assert progress(0, 10, None, None, now).elapsed is None  # queued
    assert progress(5, None, "2026-01-01T11:00:00+00:00", None, now).eta is None  # the ladder: open-ended
    assert [duration_text(s) for s in (None, 12.4, 185, 3720)] == ["n/a", "12 s", "3 min 05 s", "1 h 02 min"]


def test_rating_chart_places_mu_and_its_band() -> None:
    assert rating_chart([]) is None
    points = [RatingPoint(k, 25.0 + k, 8.0 - k) for k in range(1, 4)]
    chart = rating_chart(points, width=300, height=120)
    assert chart is not None and chart.games == 3
    xs = [float(p.split(",")[0]) for p in chart.mu.split()]
    assert xs == [chart.left, (chart.left + chart.right) / 2, chart.right]
    ys = [float(p.split(",")[1]) for p in chart.mu.split()]
    assert ys[0] > ys[1] > ys[2]  # mu rises: the line climbs (SVG's y grows downwards)
    assert len(chart.band.split()) == 6  # mu + sigma forward, mu - sigma back
    many = [RatingPoint(k, 25.0, 1.0) for k in range(10_000)]
    thinned = rating_chart(many)
    assert thinned is not None and len(thinned.mu.split()) == 400 and thinned.games == 10_000


def test_god_and_opponent_rows() -> None:
    rows = god_rows([("apollo/pan", 2, 4, 3), ("apollo/pan/atlas", 3, 2, 0)])
    assert [(r.god, r.score) for r in rows] == [("pan", "75.0%"), ("atlas", "0.0%")]
    assert [r.score for r in opponent_rows([("b", 4, 3, 1, 0), ("c", 2, 0, 0, 2)])] == ["75.0%", "50.0%"]


def test_sessions_bounded_expiring_and_renewed_on_sign_in() -> None:
    sessions = Sessions(limit=3, ttl=100.0)
    first = sessions.new(0.0)
    assert sessions.get(first.id, 50.0) is first and not first.admin
    assert first.csrf_ok(first.csrf) and not first.csrf_ok(None) and not first.csrf_ok(first.csrf[:-1] + "x")
    assert not first.csrf_ok("\udcff")  # undecodable text is a mismatch, not an error
    assert sessions.get(first.id, 151.0) is None  # 101 s after its last use: gone
    kept = sessions.new(200.0)
    for _ in range(3):
        sessions.new(201.0)
    assert len(sessions) == 3 and sessions.get(kept.id, 202.0) is None  # the least recently used went first
    visitor = sessions.new(300.0)
    admin = sessions.sign_in(visitor, 301.0)
    assert admin.admin and admin.id != visitor.id and admin.csrf != visitor.csrf
    assert sessions.get(visitor.id, 302.0) is None  # a planted id is not promoted
    for _ in range(10):  # a flood of visitors evicts visitors, not the admin
        sessions.new(302.5)
    assert sessions.get(admin.id, 302.6) is admin
    sessions.sign_out(admin)
    assert sessions.get(admin.id, 303.0) is None
    assert sessions.get(None, 0.0) is None and sessions.get("", 0.0) is None


def test_same_origin_rule() -> None:
    here = ("http", "127.0.0.1:8080")
    assert same_origin(None, None, *here)  # not a browser: the CSRF token alone guards
    assert same_origin("http://127.0.0.1:8080", "same-origin", *here)
    assert same_origin("http://127.0.0.1:8080", None, *here)
    assert same_origin("null", "same-origin", *here)  # Chromium under Referrer-Policy: no-referrer
    assert not same_origin("null", None, *here)
    assert not same_origin("http://evil.example", None, *here)
    assert not same_origin("http://127.0.0.1:8080", "cross-site", *here)
    assert not same_origin(None, "same-site", *here)
    assert not same_origin("https://127.0.0.1:8080", "same-origin", *here)  # another scheme is another origin
    assert not same_origin("http://127.0.0.1:8080", None, "http", None)


def _record(number: int, first: str, second: str, winner: int) -> GameRecord:
    return GameRecord.build(
        event="t", site="local", date="2026.01.01", round=str(number), player1=first, player2=second,
        gods="mortal/mortal", ruleset="santorini-base-v1", start="startpos", time_control="10+0.1",
        result="1-0" if winner == 1 else "0-1", termination="climb", termination_detail="", game_number=number, turns=[],
    )


def test_run_standings_read_only_what_the_archive_gained(tmp_path: Path) -> None:
    config = TournamentConfig.from_settings(Settings(engines=["random name=a", "greedy name=b"], rounds=3))
    archive = tmp_path / "games.msgpack"
    views = RunViews()
    made: list[int] = []

    def tally() -> tuple[int, int]:
        def show(_: object, standings: object, games: int) -> tuple[int, int]:
            assert isinstance(standings, Standings)
            t = standings.tally("a")
            assert t.games == games
            made.append(games)
            return t.games, t.wins

        return views.view(tmp_path, config, "test", show, final=True)[0]

    def saved() -> int:
        snapshot = StandingsFile(tmp_path, config).load()
        assert snapshot is not None
        return snapshot.offset

    assert tally() == (0, 0)  # no archive yet
    frames = [encode_frame(_record(n, *(("a", "b") if n % 2 else ("b", "a")), winner=1)) for n in range(1, 5)]
    archive.write_bytes(frames[0] + frames[1])
    assert tally() == (2, 1)
    assert saved() == len(frames[0]) + len(frames[1])
    with archive.open("ab") as f:  # a frame being written: half of it on disk
        f.write(frames[2][: len(frames[2]) // 2])
    assert tally() == (2, 1) and saved() == len(frames[0]) + len(frames[1])
    with archive.open("ab") as f:
        f.write(frames[2][len(frames[2]) // 2 :] + frames[0])  # the rest, then game 1 again (a resume's duplicate)
    assert tally() == (3, 2)  # game 3 counted, game 1 not twice
    assert saved() == archive.stat().st_size
    assert tally() == (3, 2)  # the snapshot just saved: read once more, made again
    shown = len(made)
    assert tally() == (3, 2) and len(made) == shown  # nothing new: the tables are not remade


def test_a_record_without_turns_keeps_its_tags() -> None:
    from .test_records_nseat import THREE, find_game

    record = find_game(THREE, "time", fault_at=4).record
    assert record.eliminations and record.turns
    assert decode_record_without_turns(encode_record(record)) == record  # eliminations: decoded whole
    two = _record(3, "a", "b", winner=2)
    head = decode_record_without_turns(encode_record(GameRecord(two.tags, record.turns[:2])))
    assert head.tags == two.tags and head.turns == () and head.placings == two.placings


def test_store_queries_for_the_pages(tmp_path: Path) -> None:
    with Store(tmp_path / "d", create=True) as store:
        for name in ("a", "b", "c"):
            store.add_local_bot(name, "random")
        runs = [store.create_run("match", {"engines": []}) for _ in range(3)]
        store.set_run_state(runs[0].id, "running")
        store.set_run_state(runs[0].id, "finished")
        store.set_run_state(runs[2].id, "running")
        games = [
            NewGame(runs[0].id, 1, ("a", "b"), (1, 2), "apollo/pan", "1-0", "climb", 10),
            NewGame(runs[0].id, 2, ("b", "a"), (1, 2), "pan/apollo", "1-0", "time", 12),
            NewGame(runs[0].id, 3, ("a", "c"), (2, 1), "apollo/pan", "0-1", "climb", 9),
            NewGame(runs[0].id, 4, ("a", "b", "c"), (1, 3, 2), "apollo/pan/atlas", "1-3-2", "climb", 30),
        ]
        for game in games:
            store.record_game(game, dict.fromkeys(game.bots, (25.0 + game.number, 8.0)))
        assert [r.id for r in store.recent_runs(10)] == [3, 2, 1]  # running and queued first, newest first
        assert [r.id for r in store.recent_runs(1)] == [3]
        assert store.run_timing(runs[0].id)[0] == 4 and store.run_timing(runs[1].id) == (0, None)
        assert [g.number for g in store.run_games_page(runs[0].id, 1, 2)] == [2, 3]
        assert store.termination_counts(runs[0].id) == [("climb", 3), ("time", 1)]
        assert [g.number for g in store.bot_games_page("a", 0, 3)] == [4, 3, 2]
        assert [g.number for g in store.bot_games_page("c", 1, 10)] == [3]
        assert store.results_by_opponent("a") == [("b", 3, 2, 1, 0), ("c", 2, 1, 1, 0)]
        assert store.results_by_gods("a") == [("apollo/pan", 1, 2, 1), ("apollo/pan/atlas", 1, 1, 1), ("pan/apollo", 2, 1, 0)]
        assert [r.bot for r in store.top_ratings(2)] == ["a", "b"]
        plan = " ".join(
            str(row) for row in store._conn.execute(
                "EXPLAIN QUERY PLAN SELECT games.id FROM game_seats JOIN games ON games.id = game_seats.game_id"
                " WHERE game_seats.bot_id = 1 GROUP BY games.id ORDER BY games.id DESC LIMIT 20"
            )
        )
        assert "game_seats_bot_game" in plan  # an index range scan, not a table scan
