"""The job API: runs, games and bots as JSON over HTTP (SPEC.md section 16.5).

A Starlette application; the daemon serves it with Hypercorn's trio worker in its own nursery.
Reads are open to whoever can reach the port (loopback by default); every mutation needs
``Authorization: Bearer <admin token>`` (401 without one, 403 with a wrong one, compared in
constant time).  Bodies are read with a bound (413 beyond :data:`MAX_BODY`) and checked field by
field with the tournament's own settings schema (400 with the message for bad JSON, an unknown
field, a wrong type or JSON nested deeper than Python's parser goes), within :data:`BODY_TIMEOUT`
seconds (408 beyond).  An unexpected failure is answered 500 with a request id, which the one
log line of the failure carries too.  Standings and crosstables are the tournament's, from the run's
standings snapshot and the games its archive gained since (:mod:`.run_standings`); a game is read from its
frame at the offset the index keeps: the files are the record, the database their index.
"""

from __future__ import annotations

import hmac
import json
import math
import secrets
import traceback
from typing import Any

import msgspec
import structlog
import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..records import GameRecord, record_bytes
from ..records.results_jsonl import result_summary
from ..tournament.output import ARCHIVE
from .async_store import AsyncStore
from .names import parse_id
from .registry import BotRegistry
from .runs import QueueFull, RunScheduler, find_record, run_settings
from .store import BadRunState, NoSuchGame, NoSuchRun, Run, Store, StoreError

__all__ = ["MAX_BODY", "BODY_TIMEOUT", "create_app"]

_log = structlog.get_logger("santorini.api")

MAX_BODY = 1024 * 1024
"""Largest request body accepted (bytes); more is answered 413."""
DRAIN_LIMIT = 8 * MAX_BODY
"""A refused body up to this size is read to its end before the 413 goes out: closing a socket
with unread bytes resets the connection, and the client would see the reset, not the answer."""
BODY_TIMEOUT = 30.0
"""Seconds to read a request body once its head is in; then it is answered 408 (a client trickling
its body would hold its connection as long as it liked)."""


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> Any:
    """The request's JSON body, read with a bound."""
    too_big = HTTPException(413, f"body over {MAX_BODY} bytes")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > DRAIN_LIMIT:
        raise too_big
    chunks = bytearray()
    size = 0
    with trio.move_on_after(BODY_TIMEOUT) as timer:
        async for chunk in request.stream():
            size += len(chunk)
            if size > DRAIN_LIMIT:
                raise too_big
            if size <= MAX_BODY:
                chunks += chunk
    if timer.cancelled_caught:
        raise HTTPException(408, f"the body took over {BODY_TIMEOUT:g} s to arrive")
    if size > MAX_BODY:
        raise too_big
    try:
        return json.loads(chunks)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"bad JSON: {exc}") from None
    except RecursionError:
        raise HTTPException(400, "bad JSON: nested too deeply") from None


def _run_json(run: Run) -> dict[str, Any]:
    return {
        "id": run.id, "kind": run.kind, "state": run.state, "created": run.created, "started": run.started,
        "finished": run.finished, "engines": run.bot_names,
    }


def _record_json(record: GameRecord) -> dict[str, Any]:
    return {
        **result_summary(record),
        "tags": dict(record.tags),
        "turns": [msgspec.to_builtins(turn) for turn in record.turns],
    }


def create_app(store: AsyncStore, registry: BotRegistry, scheduler: RunScheduler, admin_token: str) -> Starlette:
    """The API over the daemon's store, connected bots and run scheduler."""
    expected = admin_token.encode("utf-8")

    def authorize(request: Request) -> None:
        header = request.headers.get("authorization")
        if header is None:
            raise HTTPException(401, "this needs the admin token (Authorization: Bearer ...)")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode("utf-8", "replace"), expected):
            raise HTTPException(403, "wrong admin token")

    async def run_or_404(request: Request) -> Run:
        """The run of the path's id (ASCII digits: anything else is no run, 404)."""
        try:
            run_id = parse_id(request.path_params["id"])
            return await store.read(Store.run, run_id)
        except (ValueError, NoSuchRun):
            raise HTTPException(404, f"no run {request.path_params['id']}") from None

    async def submit(request: Request) -> Response:
        """Queue a run: its settings checked as a tournament's (400), then queued if the queue has
        room (503 beyond ``serve --max-queued``)."""
        authorize(request)
        body = await _body(request)
        if not isinstance(body, dict):
            return _error(400, "the body must be a JSON object (the tournament settings, bots by name)")
        try:
            settings, kind = await store.read(run_settings, body)
        except (ValueError, StoreError) as exc:
            return _error(400, str(exc))
        try:
            run = await scheduler.queue(kind, settings)
        except QueueFull as exc:
            return _error(503, str(exc))
        return JSONResponse({"id": run.id}, status_code=201)

    async def list_runs(request: Request) -> Response:
        runs = await store.read(Store.runs)
        return JSONResponse([_run_json(run) for run in runs])

    async def get_run(request: Request) -> Response:
        run = await run_or_404(request)
        game_ids = await store.read(Store.game_ids, run.id)
        final = run.state in ("finished", "cancelled")
        detail, found = await scheduler.tables(run.id, len(game_ids), final=final)
        damage, regions = await scheduler.damage(run.id, found)
        return JSONResponse({
            **_run_json(run), **detail, "game_ids": game_ids,
            "damage": [region.json() for region in damage], "damaged_regions": regions,
        })

    async def cancel(request: Request) -> Response:
        authorize(request)
        run = await run_or_404(request)
        try:
            await scheduler.cancel(run.id)
        except BadRunState as exc:
            return _error(409, str(exc))
        return JSONResponse(_run_json(await store.read(Store.run, run.id)))

    async def game_record(request: Request) -> GameRecord:
        text = request.path_params["id"]
        try:
            game = await store.read(Store.game, parse_id(text))
        except (ValueError, NoSuchGame):
            raise HTTPException(404, f"no game {text}") from None
        record = await trio.to_thread.run_sync(find_record, scheduler.run_directory(game.run_id) / ARCHIVE, game)
        if record is None:  # never a scan of the archive: damage is reported by GET /api/runs/ID
            raise HTTPException(404, f"game {game.id} is indexed but its record is not readable where the index says")
        return record

    async def get_game(request: Request) -> Response:
        record = await game_record(request)
        return JSONResponse({"id": int(request.path_params["id"]), **_record_json(record)})

    async def get_game_sgn(request: Request) -> Response:
        record = await game_record(request)
        return PlainTextResponse(record_bytes(record, "sgn").decode("utf-8"), media_type="application/x-sgn")

    async def bots(request: Request) -> Response:
        registered = await store.read(Store.bots)
        ratings = await store.read(Store.ratings)
        out: list[dict[str, Any]] = []
        for bot in registered:
            connected = registry.get(bot.name)
            rating = ratings.get(bot.name)
            out.append({
                "name": bot.name,
                "kind": bot.kind,
                "active": bot.active,
                "connected": connected is not None if bot.kind == "remote" else None,
                "rtt_ms": round(rtt * 1000, 3) if (rtt := registry.round_trip(bot.name)) is not None else None,
                "mu": rating.mu if rating else None,
                "sigma": rating.sigma if rating else None,
                "conservative": rating.conservative if rating else None,
                "games": rating.games if rating else 0,
            })
        out.sort(key=lambda row: -(row["conservative"] if row["conservative"] is not None else -math.inf))
        return JSONResponse(out)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code >= 500:
            return _server_error(request, exc.detail, shown=exc.detail)
        return _error(exc.status_code, exc.detail)

    async def internal_error(request: Request, exc: Exception) -> Response:
        frames = traceback.extract_tb(exc.__traceback__)
        where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
        return _server_error(request, f"{type(exc).__name__}: {exc}"[:300], at=where)

    routes = [
        Route("/api/runs", submit, methods=["POST"]),
        Route("/api/runs", list_runs, methods=["GET"]),
        Route("/api/runs/{id}", get_run, methods=["GET"]),
        Route("/api/runs/{id}/cancel", cancel, methods=["POST"]),
        Route("/api/games/{id}.sgn", get_game_sgn, methods=["GET"]),
        Route("/api/games/{id}", get_game, methods=["GET"]),
        Route("/api/bots", bots, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: internal_error})


def _server_error(request: Request, error: str, *, at: str | None = None, shown: str = "internal error") -> Response:
    """A 500 and its one log line, both with a new request id: the operator finds the one from the
    other.  The client sees ``shown`` (what went wrong inside stays in the log)."""
    request_id = secrets.token_hex(8)
    _log.error("internal error", request_id=request_id, method=request.method, path=request.url.path,
               error=error, **({"at": at} if at else {}))
    message = f"{shown} (request id {request_id})"
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message, "request_id": request_id}, status_code=500)
    return PlainTextResponse(message, status_code=500)
