"""The hostile-client suite: one real daemon, a match of two remote bots in flight, and every attack
of :mod:`.attacks` in turn; after each, :meth:`Siege.health` (the daemon lives, answers
``GET /api/bots`` within 100 ms, the match goes on, its memory is back within 10 MB), and at the
end a drain that exits 0, leaves no process and lost no game to time (SPEC.md section 16.6).

The same attacks at the benchmark's scale (10,000 failed logins, a 5,000-connection flood kept up
for a minute, ...): ``python tools/bench_hostile.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from santorini_server.server.http_guard import HttpLimits

from . import attacks
from .attacks import CI
from .harness import Siege

HTTP_HEAD_BOUND = 10.0
"""The longest a request head may take to arrive (SPEC.md section 17.2), with a margin."""


@pytest.fixture(scope="module")
def siege(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Siege]:
    siege = Siege.start(tmp_path_factory.mktemp("siege"))
    try:
        yield siege
    except BaseException:
        siege.kill()
        raise
    ended = siege.close()
    print(f"games in flight ended by: {ended}; memory {siege.rss_start:.1f} MB at the start")


async def test_a_thousand_failed_logins_from_one_address_leave_the_daemon_serving(siege: Siege) -> None:
    before = siege.rss()
    await attacks.failed_logins(siege.bot_address, CI)
    siege.health("failed logins", before)


async def test_a_login_storm_from_many_addresses_is_answered_and_forgotten(siege: Siege) -> None:
    before = siege.rss()
    await attacks.login_storm(siege.bot_address, CI, siege.tokens["legit"])
    siege.health("login storm", before)
    assert await attacks.legit_login(siege.bot_address, "legit", siege.tokens["legit"]) < 1.0


async def test_a_flood_of_idle_connections_from_one_address_keeps_no_real_bot_out(siege: Siege) -> None:
    before = siege.rss()

    async def real_bot() -> float:
        return await attacks.legit_login(siege.bot_address, "legit", siege.tokens["legit"])

    figures = await attacks.flood(siege.bot_address, CI.flood, CI.flood_hold, real_bot)
    assert figures["during_s"] < 1.0, figures
    assert figures["open_at_end"] < CI.flood / 2, figures  # the daemon did not hold the flood
    siege.health("bot-port flood", before)


async def test_a_flood_of_idle_http_connections_from_one_address_keeps_no_reader_out(siege: Siege) -> None:
    before = siege.rss()

    async def reader() -> float:
        return siege.api_ms() / 1000

    figures = await attacks.flood(siege.http_address, CI.http_flood, CI.flood_hold, reader)
    assert figures["during_s"] < 1.0, figures
    assert figures["open_at_end"] < CI.http_flood, figures
    siege.health("HTTP flood", before)


async def test_slow_logins_are_closed_at_the_login_deadline(siege: Siege) -> None:
    before = siege.rss()
    figures = await attacks.slowloris_bots(siege.bot_address, CI)
    assert figures["longest_s"] < 5.0 + 2.0, figures
    siege.health("bot-port slowloris", before)


async def test_slow_request_heads_are_closed_at_the_head_deadline(siege: Siege) -> None:
    before = siege.rss()
    figures = await attacks.slowloris_http(siege.http_address, CI, HTTP_HEAD_BOUND)
    assert figures["longest_s"] < HTTP_HEAD_BOUND + 2.0, figures
    siege.health("HTTP slowloris", before)


async def test_megabyte_lines_are_refused_on_both_ports(siege: Siege) -> None:
    before = siege.rss()
    await attacks.long_lines(siege.bot_address, siege.http_address, siege.tokens["legit"])
    siege.health("1 MB lines", before)


async def test_binary_garbage_is_refused_on_both_ports(siege: Siege) -> None:
    before = siege.rss()
    await attacks.garbage(siege.bot_address, siege.http_address, CI)
    siege.health("garbage", before)


async def test_a_websocket_flood_from_one_address_is_bounded(siege: Siege) -> None:
    before = siege.rss()
    figures = await attacks.websocket_flood(siege.http_address, CI)
    assert figures["still_open"] <= HttpLimits().websockets_per_address, figures  # the rest closed 1013
    siege.health("WebSocket flood", before)


async def test_unfinished_websocket_messages_cost_no_memory(siege: Siege) -> None:
    before = siege.rss()
    figures = await attacks.websocket_unfinished(siege.http_address, CI, siege.rss)
    assert figures["most_sent_kib"] <= 1024, figures  # closed after the first chunks, not after 4 MiB
    assert figures["rss_growth_mb"] < 20, figures
    siege.health("unfinished WebSocket messages", before)


async def test_hostile_bodies_are_4xx_with_the_headers(siege: Siege) -> None:
    before = siege.rss()
    await attacks.bodies(siege.http_address, siege.admin)
    siege.health("hostile bodies", before)


async def test_every_id_form_is_4xx_with_the_headers(siege: Siege) -> None:
    before = siege.rss()
    await attacks.id_forms(siege.http_address, siege.admin)
    siege.health("id forms", before)


def test_the_daemon_is_back_near_its_starting_memory(siege: Siege) -> None:
    assert siege.rss() <= siege.rss_start + 20, (siege.rss(), siege.rss_start)

