"""The job API: runs, games and bots as JSON over HTTP (SPEC.md section 16.5).

A Starlette application; the daemon serves it with Hypercorn's trio worker in its own nursery.
Reads are open to whoever can reach the port (loopback by default); every mutation needs
``Authorization: Bearer <admin token>`` (401 without one, 403 with a wrong one, compared in
constant time).  Bodies are read with a bound (413 beyond :data:`MAX_BODY`) and checked field by
field with the tournament's own settings schema (400 with the message for bad JSON, an unknown
field or a wrong type).  Standings and crosstables are the tournament's, computed from the run's
archive once and then kept current game by game (:mod:`.run_standings`); a game is read from its
frame at the offset the index keeps: the files are the record, the database their index.
"""

from __future__ import annotations

import hmac
import json
import math
from typing import Any

import msgspec
import trio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ..records import ArchiveError, GameRecord, read_archive, read_record_at, record_bytes
from ..records.results_jsonl import result_summary
from ..tournament.output import ARCHIVE
from .async_store import AsyncStore
from .registry import BotRegistry
from .runs import RunScheduler, run_settings
from .store import BadRunState, NoSuchGame, NoSuchRun, Run, Store, StoreError

__all__ = ["MAX_BODY", "create_app"]

MAX_BODY = 1024 * 1024
"""Largest request body accepted (bytes); more is answered 413."""
DRAIN_LIMIT = 8 * MAX_BODY
"""A refused body up to this size is read to its end before the 413 goes out: closing a socket
with unread bytes resets the connection, and the client would see the reset, not the answer."""


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
    async for chunk in request.stream():
        size += len(chunk)
        if size > DRAIN_LIMIT:
            raise too_big
        if size <= MAX_BODY:
            chunks += chunk
    if size > MAX_BODY:
        raise too_big
    try:
        return json.loads(chunks)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"bad JSON: {exc}") from None


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
        try:
            run_id = int(request.path_params["id"])
            return await store.read(Store.run, run_id)
        except (ValueError, NoSuchRun):
            raise HTTPException(404, f"no run {request.path_params['id']}") from None

    async def submit(request: Request) -> Response:
        authorize(request)
        body = await _body(request)
        if not isinstance(body, dict):
            return _error(400, "the body must be a JSON object (the tournament settings, bots by name)")
        try:
            settings, kind = await store.read(run_settings, body)
        except (ValueError, StoreError) as exc:
            return _error(400, str(exc))
        run = await store.write(Store.create_run, kind, settings.to_json()["settings"])
        scheduler.submitted()
        return JSONResponse({"id": run.id}, status_code=201)

    async def list_runs(request: Request) -> Response:
        runs = await store.read(Store.runs)
        return JSONResponse([_run_json(run) for run in runs])

    async def get_run(request: Request) -> Response:
        run = await run_or_404(request)
        game_ids = await store.read(Store.game_ids, run.id)
        final = run.state in ("finished", "cancelled")
        detail = await scheduler.tables(run.id, len(game_ids), final=final)
        damage, regions = await scheduler.damage(run.id, final=final)
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
            game = await store.read(Store.game, int(text))
        except (ValueError, NoSuchGame):
            raise HTTPException(404, f"no game {text}") from None
        archive = scheduler.run_directory(game.run_id) / ARCHIVE
        if game.archive_offset is not None:
            try:
                return await trio.to_thread.run_sync(read_record_at, archive, game.archive_offset)
            except (ArchiveError, OSError):
                pass  # not where the index says: look through the whole archive
        records, _ = await trio.to_thread.run_sync(read_archive, archive)
        for record in records:
            if record.game_number == game.number:
                return record
        raise HTTPException(500, f"game {game.id} is indexed but not in its run's archive")

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
        return _error(exc.status_code, exc.detail)

    routes = [
        Route("/api/runs", submit, methods=["POST"]),
        Route("/api/runs", list_runs, methods=["GET"]),
        Route("/api/runs/{id}", get_run, methods=["GET"]),
        Route("/api/runs/{id}/cancel", cancel, methods=["POST"]),
        Route("/api/games/{id}.sgn", get_game_sgn, methods=["GET"]),
        Route("/api/games/{id}", get_game, methods=["GET"]),
        Route("/api/bots", bots, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error})
