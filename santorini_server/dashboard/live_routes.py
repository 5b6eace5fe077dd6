"""The dashboard's live side: the WebSocket ``/ws``, the game page ``/games/{id}`` and the list of
games being played ``/live`` (SPEC.md section 17.3).

A thin trio shell over :class:`~santorini_server.server.live.LiveHub`: a WebSocket subscribes to
one topic, then one task forwards its queue to the socket (at most one message per
:func:`coalesce` seconds, several events then going as one JSON array) while another reads (and
discards) what the browser sends, to notice it leaving.  A send that takes longer than
:data:`SEND_TIMEOUT` drops the viewer as a full queue does.  The game page is the replay
viewer's own markup and script (:mod:`santorini_server.viewer`), fed by ``live.js`` from the
game's snapshot and turn events while it plays, and rendered from the record once it is indexed:
the one frame at the offset the index keeps (:func:`~santorini_server.server.runs.find_record`), never a scan of the archive.
"""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any

import trio
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..server.async_store import AsyncStore
from ..server.live import BadTopic, LiveHub, TooManyViewers, Viewer, game_key
from ..server.runs import RunScheduler, find_record
from ..server.store import Game, NoSuchGame, Store
from ..tournament.output import ARCHIVE
from ..viewer.model import game_data
from ..viewer.packed import packed_games
from ..viewer.svg import DEFS, ISO_BOX, STYLE, TOP_BOX, geometry

if TYPE_CHECKING:
    import jinja2

__all__ = ["live_routes", "SEND_TIMEOUT", "COALESCE", "PER_VIEWER", "SEND_SLOTS", "coalesce"]

SEND_TIMEOUT = 2.0
"""Seconds one message may take to reach a viewer's socket before the viewer is dropped."""
SEND_SLOTS = 1
"""WebSocket sends in progress at once.  The games the daemon referees itself (those of remote
bots, and the ladder's; local bots' runs play in worker processes) share one trio loop with the
viewers, which runs every runnable task before it looks at the engines' sockets again: 200
viewers woken by one turn would all send in that round (a few hundred microseconds each), while
the reply of the next engine waits.  With one slot a round holds at most one send, so an engine's
reply waits for at most that one; the viewers' messages queue meanwhile, and coalesce."""
COALESCE = (0.01, 0.2)
"""A viewer gets at most one WebSocket message per :func:`coalesce` seconds, between these bounds:
events queued meanwhile go together, as one JSON array.  A message goes at once when the gap
since the last has passed (a turn-driven flush), so a game whose turns come slower than that
has each turn sent as it is ruled; fast games (instant engines: hundreds of turns a second)
would otherwise cost every viewer one frame a turn, on the loop that also times the games."""
PER_VIEWER = 0.001
"""Seconds of gap per connected viewer: the more viewers, the more events each message carries,
so that the daemon sends at most 1,000 messages a second (10 viewers or fewer: 10 ms, a turn
sent as it is ruled; 200 viewers: 200 ms, the bound).  A message costs the daemon about 0.25 ms
of CPU (several passes through trio's scheduler inside Hypercorn), so the rate is what a crowd
costs: measured when the daemon's loop still refereed every game (``tools/bench_live.py``, 200
viewers, the referee's time per turn at the median), +0.66 ms at 4,000 messages a second with
four send slots, +0.15 ms at 1,800 with one, +0.06 ms at 1,000; with local games in worker
processes, +0.00 and +0.04 ms in two runs, within noise (the daemon's 0.2 s of CPU a second is
then only a neighbour's, though it still slows the slowest tenth of turns: SPEC.md section 17.3)."""


def coalesce(viewers: int) -> float:
    """The least gap between two messages to one viewer while ``viewers`` are connected."""
    return min(COALESCE[1], max(COALESCE[0], viewers * PER_VIEWER))


"""The dashboard's headers (SPEC.md section 17.2): scripts and styles from the daemon only."""
_GAME_ID = re.compile(r"([0-9]{1,9})-([0-9]{1,9})|([0-9]{1,9})")


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2  # with the first page rendered, not at the daemon's start

    return jinja2.Environment(
        loader=jinja2.ChoiceLoader([
            jinja2.PackageLoader("santorini_server.dashboard", "templates"),
            jinja2.PackageLoader("santorini_server.viewer", "templates"),
        ]),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


def _page(template: str, status: int = 200, **values: Any) -> HTMLResponse:
    html = _environment().get_template(template).render(**values)
    return HTMLResponse(html, status_code=status)


def live_routes(store: AsyncStore, scheduler: RunScheduler, hub: LiveHub) -> list[BaseRoute]:
    """The routes of the live dashboard over the daemon's store, runs and hub."""
    slots = trio.Semaphore(SEND_SLOTS)
    board: dict[str, Any] = {"defs": Markup(DEFS), "board_css": Markup(STYLE), "iso_box": " ".join(map(str, ISO_BOX)),
             "top_box": " ".join(map(str, TOP_BOX))}

    def not_found(what: str) -> HTMLResponse:
        return _page("not_found.html.j2", 404, title="Not found", message=what)

    async def game_page(request: Request) -> Response:
        text = request.path_params["id"]
        found = _GAME_ID.fullmatch(text)
        if found is None:
            return not_found(f"No game {text[:40]!r} (a game is /games/ID or /games/RUN-NUMBER).")
        game: Game | None = None
        if found.group(3) is not None:
            try:
                game = await store.read(Store.game, int(found.group(3)))
            except NoSuchGame:
                return not_found(f"No game {text}.")
            run_id, number = game.run_id, game.number
        else:
            run_id, number = int(found.group(1)), int(found.group(2))
        key = game_key(run_id, number)
        feed = hub.games.get(key)
        if feed is not None:
            title = " vs ".join(feed.names) + " \u2014 " + "/".join(feed.gods)
            return _page("game.html.j2", title=title, key=key, state="live", geometry=geometry(), data=None, **board)
        if game is None:
            try:
                game = await store.read(Store.run_game, run_id, number)
            except NoSuchGame:  # a game is shown once indexed, right after its frame is written
                return not_found(f"No game {text}: not being played, and not in run {run_id}'s index.")
        record = await trio.to_thread.run_sync(find_record, scheduler.run_directory(run_id) / ARCHIVE, game)
        if record is None:
            return not_found(
                f"No record of game {text}: run {run_id}'s index lists it, but its archive holds no readable "
                f"frame of it where the index says (see /runs/{run_id})."
            )
        data = packed_games([game_data(record, number)])  # one game: the ordinary viewer, packed as a file's
        title = " vs ".join(record.players) + " \u2014 " + "/".join(record.gods)
        return _page("game.html.j2", title=title, key=key, state="finished", data=data, **board)

    async def live_page(request: Request) -> Response:
        runs = [run for run in await store.read(Store.runs) if run.state in ("queued", "running")]
        return _page("live.html.j2", title="Games being played now", runs=runs, **board)

    async def board_css(request: Request) -> Response:
        return PlainTextResponse(STYLE, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    async def websocket(socket: WebSocket) -> None:
        await socket.accept()
        try:
            viewer = hub.subscribe(socket.query_params.get("topic", ""))
        except BadTopic as exc:
            await socket.close(code=1008, reason=str(exc)[:120])
            return
        except TooManyViewers as exc:
            await socket.close(code=1013, reason=str(exc)[:120])
            return
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_until_gone, socket, nursery.cancel_scope)
                await _forward(socket, viewer, slots, hub)
                nursery.cancel_scope.cancel()
            if viewer.dropped is not None:
                await socket.close(code=1013, reason=viewer.dropped)
        except (WebSocketDisconnect, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            hub.unsubscribe(viewer)

    return [
        WebSocketRoute("/ws", websocket),
        Route("/games/{id}", game_page, methods=["GET"]),
        Route("/live", live_page, methods=["GET"]),
        Route("/dashboard/board.css", board_css, methods=["GET"]),
    ]


async def _forward(socket: WebSocket, viewer: Viewer, slots: trio.Semaphore, hub: LiveHub) -> None:
    """Send ``viewer``'s queue to ``socket`` until it ends; a send over :data:`SEND_TIMEOUT` drops
    the viewer.  Each message costs as few passes through the scheduler as it can (this runs
    for every viewer on every turn): the wait for the queue, and the socket's own write; a
    coalescing pause and a wait for a slot only when they are needed, and one cancel scope
    for every send, armed only while one is in progress."""
    send = socket.send_text
    sent = -math.inf
    guard = trio.CancelScope()
    with guard:
        async for text in viewer.receive:
            pause = sent + coalesce(hub.viewers()) - trio.current_time()
            if pause > 0:
                await trio.sleep(pause)
            queued = _queued(viewer.receive)
            try:
                slots.acquire_nowait()
            except trio.WouldBlock:
                await slots.acquire()
            try:
                guard.deadline = trio.current_time() + SEND_TIMEOUT
                await send("[" + ",".join([text, *queued]) + "]" if queued else text)
                guard.deadline = math.inf
            finally:
                slots.release()
            sent = trio.current_time()
    if guard.cancelled_caught:
        viewer.dropped = f"too slow: a message took over {SEND_TIMEOUT:g} s to send"


def _queued(receive: trio.MemoryReceiveChannel[str]) -> list[str]:
    """Every message waiting in ``receive`` now."""
    out = []
    while True:
        try:
            out.append(receive.receive_nowait())
        except (trio.WouldBlock, trio.EndOfChannel):
            return out


async def _until_gone(socket: WebSocket, scope: trio.CancelScope) -> None:
    """Read what the browser sends (nothing is expected) until it closes, then stop its forwarding."""
    try:
        while (await socket.receive())["type"] != "websocket.disconnect":
            pass
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass
    scope.cancel()
