"""The job API's hostile cases over real sockets: the daemon in this trio process, httpx as the client.

Bad JSON, unknown fields and wrong types are 400 with a message; a body over 1 MiB is 413
(declared or streamed); no token 401, a wrong one 403; an unknown run or game 404; a flood of
1,000 requests is answered; no response carries a token.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import trio

from santorini_server.server.api import MAX_BODY
from santorini_server.server.daemon import ServeOptions, serve
from santorini_server.server.http_guard import HttpLimits
from santorini_server.server.store import Store


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[tuple[httpx.AsyncClient, str, str]]:
    data = tmp_path / "data"
    with Store(data, create=True) as store:
        store.add_local_bot("a", "random")
        store.add_local_bot("b", "greedy")
        _, bot_token = store.add_remote_bot("r")
    drain = trio.Event()
    ready = trio.Event()
    url: list[str] = []

    def say(line: str) -> None:
        found = re.search(r"API (http://\S+),", line)
        if found:
            url.append(found.group(1))
            ready.set()

    options = ServeOptions(data=data, http=("127.0.0.1", 0), bots=("127.0.0.1", 0), drain_timeout=0.5)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(serve, options, say, drain)
        with trio.fail_after(10):
            await ready.wait()
        admin = (data / "admin.token").read_text().strip()
        # one address holds at most HttpLimits.per_address connections (SPEC.md section 17.2): beyond, they are closed
        limits = httpx.Limits(max_connections=HttpLimits().per_address)
        async with httpx.AsyncClient(base_url=url[0], timeout=30, limits=limits) as client:
            yield client, admin, bot_token
        drain.set()


async def test_mutations_need_the_admin_token(api: tuple[httpx.AsyncClient, str, str]) -> None:
    client, admin, _ = api
    body = {"engines": ["a", "b"], "rounds": 1}
    missing = await client.post("/api/runs", json=body)
    assert missing.status_code == 401 and "admin token" in missing.json()["error"]
    wrong = await client.post("/api/runs", json=body, headers={"Authorization": "Bearer " + "x" * len(admin)})
    assert wrong.status_code == 403
    not_bearer = await client.post("/api/runs", json=body, headers={"Authorization": f"Basic {admin}"})
    assert not_bearer.status_code == 403
    assert (await client.post("/api/runs/1/cancel")).status_code == 401
    assert (await client.get("/api/runs")).json() == []  # nothing was created
    created = await client.post("/api/runs", json=body, headers={"Authorization": f"Bearer {admin}"})
    assert created.status_code == 201 and created.json() == {"id": 1}


async def test_bad_bodies_get_400_with_a_message_and_big_ones_413(api: tuple[httpx.AsyncClient, str, str]) -> None:
    client, admin, _ = api
    auth = {"Authorization": f"Bearer {admin}", "Content-Type": "application/json"}
    cases = {
        b"{not json": "bad JSON",
        b"\xff\xfe": "bad JSON",
        b"[1, 2]": "JSON object",
        b'{"engines": ["a", "b"], "colour": "red"}': "colour",
        b'{"engines": ["a", "b"], "rounds": "two"}': "rounds",
        b'{"engines": ["a", "nobody"]}': "nobody",
        b'{"engines": ["a", "A"]}': "twice",
        b'{"engines": ["a", "b"], "tc": "fast"}': "fast",
        b'{"engines": ["a"]}': "at least 2",
        # at most MAX_GAMES games: refused at once (a trillion rounds grew the daemon to 4.4 GB)
        b'{"engines": ["a", "b"], "rounds": 1000000000000}': "Expected `int` <= 1000000 - at `$.rounds`",
        b'{"engines": ["a", "b"], "games": 1000000000000}': "Expected `int` <= 1000000 - at `$.games`",
        b'{"engines": ["a", "b"], "rounds": 600000}': "1,200,000 games (600,000 rounds x 1 encounter x 2 games); "
                                                      "a tournament has at most 1,000,000",
        # the event is every record's Event tag: the record layer's rule, not a failed run
        b'{"engines": ["a", "b"], "event": "a\\nb"}': "tag Event holds a control character '\\n'",
        b'{"engines": ["a", "b"], "event": "a\\u2028b"}': "tag Event holds a control character '\\u2028'",
        b'{"engines": ["a", "b"], "each": "name=x\\u0007"}': "--each gives every engine the same option",
    }
    for body, message in cases.items():
        answer = await client.post("/api/runs", content=body, headers=auth)
        assert answer.status_code == 400, body
        assert message in answer.json()["error"], (body, answer.json())
    big = b'{"engines": ["a", "b"], "event": "' + b"x" * MAX_BODY + b'"}'
    assert (await client.post("/api/runs", content=big, headers=auth)).status_code == 413

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the bound applies as it streams
        for _ in range(MAX_BODY // 65536):
            yield b" " * 65536
        yield b" "  # one byte over, in the last chunk (httpx reads no answer before it has sent all)

    streamed = await client.post("/api/runs", content=chunks(), headers=auth)
    assert streamed.status_code == 413
    assert (await client.get("/api/runs")).json() == []


async def test_unknown_runs_and_games_are_404(api: tuple[httpx.AsyncClient, str, str]) -> None:
    client, admin, _ = api
    huge = "9" * 23  # beyond SQLite's 64-bit ids: no such run or game, not an OverflowError (500)
    for path in ("/api/runs/7", "/api/runs/x", "/api/games/3", "/api/games/3.sgn", "/api/games/zz",
                 f"/api/runs/{huge}", f"/api/games/{huge}", f"/api/games/{huge}.sgn", f"/api/runs/{2**63}"):
        answer = await client.get(path)
        assert answer.status_code == 404 and answer.json()["error"], path
    for run in ("7", huge):
        assert (await client.post(f"/api/runs/{run}/cancel", headers={"Authorization": f"Bearer {admin}"})).status_code == 404


async def test_a_flood_of_1000_requests_is_answered_and_no_response_holds_a_token(
    api: tuple[httpx.AsyncClient, str, str],
) -> None:
    client, admin, bot_token = api
    statuses: list[int] = []
    bodies: list[str] = []
    limiter = trio.CapacityLimiter(50)

    async def one(i: int) -> None:
        async with limiter:
            answer = await client.get("/api/bots" if i % 2 else "/api/runs")
            statuses.append(answer.status_code)
            bodies.append(answer.text)

    async with trio.open_nursery() as nursery:
        for i in range(1000):
            nursery.start_soon(one, i)
    assert statuses == [200] * 1000
    assert all(admin not in body and bot_token not in body for body in bodies)
    bots = {bot["name"]: bot for bot in (await client.get("/api/bots")).json()}
    assert bots["r"]["connected"] is False and bots["a"]["connected"] is None
