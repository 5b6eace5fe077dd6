"""The dashboard's server-rendered pages: home, a run, a bot, the new-run form, the admin sign-in
(SPEC.md sections 17.1 and 17.2).

Theory of operation.  Each page is a Jinja2 template rendered with autoescaping on (bot names,
engine specs, run names and every other stored text are untrusted), loading scripts only as
files from ``/static/`` and carrying ``data-live="TOPIC"`` on its ``<body>`` for the live
updates' script (section 17.3).  The data comes from the store's bounded, indexed queries
(:meth:`Store.recent_runs`, :meth:`Store.run_games_page`, :meth:`Store.bot_games_page`, ...), read
in one worker thread per page; a run's standings come from the scheduler's
:class:`~..server.run_standings.RunViews`: the run's standings snapshot and the games its archive
gained since.  A run without a snapshot (played before there were any) is counted from its
archive's start once, which takes seconds for a big run, so a run page waits for its standings
:data:`STANDINGS_WAIT` at most: past that it is sent with them "being counted"
(``data-pending``), the count goes on in its worker thread (and saves the snapshot), and the
page's script fetches the page again until they are in (SPEC.md section 17.1).

Mutations (submit a run, cancel it, revoke or remove a bot) are POSTed forms, each needing an
admin session (:mod:`.sessions`: the admin token typed into the sign-in form, never in a URL),
the session's CSRF token and, when the browser sends one, an ``Origin`` that is the dashboard's
own.  Refusals are a page with the reason and a 4xx status: 401 not signed in, 403 a bad CSRF
token or a foreign origin, 400 a bad form (shown next to the form, the values kept); a run
submitted while the queue is full (``serve --max-queued``) is the form again with 503.
"""

from __future__ import annotations

import dataclasses
import functools
import hmac
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qsl

import msgspec
import trio
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ..server.async_store import AsyncStore
from ..server.names import parse_id
from ..server.registry import BotRegistry
from ..server.run_standings import Counting, Damage
from ..server.runs import DamagedRegion, QueueFull, RunScheduler, run_settings
from ..server.store import BadRunState, Bot, BotHasGames, NoSuchBot, NoSuchRun, Run, Store, StoreError
from ..stats.standings import Standings
from ..tournament.config import Settings, TournamentConfig
from ..tournament.report import Table, god_tables, standings_tables
from ..tournament.scoring import versus
from .sessions import COOKIE, Session, Sessions, same_origin
from .static_files import static_mount
from .views import (
    MatchLine,
    Progress,
    duration_text,
    god_rows,
    match_line,
    opponent_rows,
    pager,
    progress,
    rating_chart,
)

if TYPE_CHECKING:
    import jinja2

__all__ = ["MAX_FORM", "RECENT_RUNS", "STANDINGS_WAIT", "TOP_BOTS", "page_routes", "warm_standings", "within"]

_T = TypeVar("_T")

MAX_FORM = 64 * 1024
"""Largest form body accepted (bytes): the new-run form with every field filled is under 2 KiB."""
RECENT_RUNS = 20
"""Runs on the home page (the queued and running ones first)."""
TOP_BOTS = 10
"""Rows of the ladder's table on the home page."""
RECENT_GAMES = 20
"""Games per page on a bot's page."""
FORM_FIELDS = ("event", "engines", "rounds", "games", "tc", "gods", "players", "format", "sprt", "openings", "concurrency",
               "seed")
"""The new-run form's fields: the tournament settings a person sets most (section 10.2)."""
INT_FIELDS = frozenset({"rounds", "games", "players", "concurrency", "seed"})
LIST_FIELDS = frozenset({"engines", "openings"})
"""Fields sent as lists, as the job API takes them (``openings``: the box's ``bundled``)."""
_WHOLE_NUMBER = re.compile(r"-?[0-9]{1,19}")
"""A number field's text: ASCII digits (``int`` would take other scripts' digits), 64-bit at most."""
STANDINGS_WAIT = 0.3
"""Seconds a run page waits for the run's standings before it is sent without them, marked as
being counted.  A run without a standings snapshot is counted from its archive's start (a second
or more for 10,000 games), and a page must be interactive within a second; the count goes on in
its thread, and the page fetches itself again until the standings are in.  With a snapshot, a
view reads it and what the archive gained since (well under this bound); a first count made by
another view (the start's warm-up) is not waited for at all (:class:`~..server.run_standings.Counting`)."""


class Refused(Exception):
    """A request the dashboard answers with a page stating ``message`` and ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2  # with the first page rendered, not at the daemon's start

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("santorini_server.dashboard", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals["duration"] = duration_text
    env.filters["versus"] = lambda names: versus(tuple(names))
    env.filters["when"] = lambda iso: iso.replace("T", " ").replace("+00:00", " UTC") if iso else ""
    return env


@dataclass(frozen=True)
class RunRow:
    run: Run
    engines: list[str]
    games: int


@dataclass(frozen=True)
class BotRow:
    bot: Bot
    state: str
    rtt_ms: float | None


def _home_data(store: Store) -> dict[str, Any]:
    runs = [RunRow(run, run.bot_names, store.run_timing(run.id)[0]) for run in store.recent_runs(RECENT_RUNS)]
    return {"runs": runs, "bots": store.bots(), "top": store.top_ratings(TOP_BOTS)}


def _run_data(store: Store, run_id: int, page: str | None) -> dict[str, Any]:
    run = store.run(run_id)
    done, last = store.run_timing(run_id)
    pages = pager(page, done)
    return {
        "run": run, "done": done, "last": last, "pager": pages,
        "games": store.run_games_page(run_id, pages.offset, pages.size),
        "terminations": store.termination_counts(run_id),
    }


def _bot_data(store: Store, name: str, page: str | None) -> dict[str, Any]:
    bot = store.bot(name)
    played = store.games_played(bot.name)
    pages = pager(page, played, RECENT_GAMES)
    return {
        "bot": bot, "played": played, "pager": pages,
        "games": store.bot_games_page(bot.name, pages.offset, pages.size),
        "rating": store.ratings().get(bot.name),
        "history": store.rating_history(bot.name),
        "opponents": opponent_rows(store.results_by_opponent(bot.name)),
        "gods": god_rows(store.results_by_gods(bot.name)),
    }


@dataclass(frozen=True)
class RunTables:
    standings: Table
    crosstable: Table | None
    losses: Table
    match: MatchLine | None
    gods: tuple[tuple[str, Table], ...] = ()
    """The god statistics (SPEC.md section 19.6) as titled tables."""


def run_tables(config: TournamentConfig, standings: Any, games: int) -> RunTables:
    """The run page's tables; a two-engine match gets its headline instead of a crosstable (the
    standings already give each one's score against the other), its ranking made once."""
    names = [spec.name for spec in config.specs]
    if isinstance(standings, Standings) and standings.seats == 2 and len(names) == 2:
        ranking = standings.ranking()
        table, _, losses = standings_tables(standings, crosstable=False, ranking=ranking)
        return RunTables(table, None, losses, match_line(standings, ranking, names[0], names[1], config.sprt))
    table, crosstable, losses = standings_tables(standings)
    return RunTables(table, crosstable, losses, None)


async def within(view: Callable[..., _T], wait: float) -> _T | None:
    """``view(block=False)`` in a worker thread, or None if it has not answered within ``wait``
    seconds or gave way to another view's count (:class:`Counting`).  The thread is abandoned
    then, not stopped: it finishes its count and saves the run's standings snapshot, which the
    page's next request reads."""
    with trio.move_on_after(wait):
        try:
            return await trio.to_thread.run_sync(partial(view, block=False), abandon_on_cancel=True)
        except Counting:
            return None
    return None


def _config(run: Run) -> TournamentConfig | None:
    """A run's tournament config (from its stored settings, its schedule counted, not built),
    None for the ladder (no schedule)."""
    if run.kind == "ladder":
        return None
    return TournamentConfig.from_settings(msgspec.convert(run.settings, Settings))


def standings_view(
    scheduler: RunScheduler, run: Run, config: TournamentConfig
) -> Callable[..., tuple[RunTables, Damage]]:
    """The run page's view of the run's standings and god statistics (:meth:`RunViews.view`;
    blocks: for a worker thread)."""
    directory = scheduler.run_directory(run.id)
    views = scheduler.standings

    def show(config: TournamentConfig, standings: Any, games: int) -> RunTables:
        tables = run_tables(config, standings, games)
        return dataclasses.replace(tables, gods=god_tables(views.gods.count(directory, config.total)))

    return partial(
        views.view, directory, config, "page", show,
        final=run.state in ("finished", "cancelled"), playing=scheduler.playing(run.id),
    )


async def warm_standings(store: AsyncStore, scheduler: RunScheduler) -> None:
    """View the standings of the runs the home page lists, one after another in a worker thread,
    so that a run without a standings snapshot is counted (and its snapshot saved) before its
    first page asks (SPEC.md section 17.1); the damaged regions a view finds are logged then
    (SPEC.md section 16.4).  A run whose settings or archive cannot be read is left to its page,
    which says why."""
    for run in await store.read(Store.recent_runs, RECENT_RUNS):
        try:
            config = await trio.to_thread.run_sync(_config, run)
            if config is not None:
                _, found = await trio.to_thread.run_sync(standings_view(scheduler, run, config))
                await scheduler.damage(run.id, found)
        except (ValueError, OSError, msgspec.ValidationError, StoreError):
            continue


def page_routes(
    store: AsyncStore,
    registry: BotRegistry,
    scheduler: RunScheduler,
    admin_token: str,
    *,
    secure: bool = False,
) -> list[BaseRoute]:
    """The dashboard's routes (and ``/static``) over the daemon's store, bots and scheduler.

    Args:
        secure: the daemon speaks TLS: the session cookie is marked ``Secure``.
    """
    expected = admin_token.encode("utf-8")
    sessions = Sessions()

    def session_of(request: Request) -> Session | None:
        return sessions.get(request.cookies.get(COOKIE), time.monotonic())

    def render(
        request: Request, template: str, live: str, *, status: int = 200, session: Session | None = None, **values: Any
    ) -> HTMLResponse:
        """The page; a form page (``session`` given) also sets the session cookie."""
        current = session or session_of(request)
        text = _environment().get_template(template).render(
            live=live, admin=bool(current and current.admin), csrf=current.csrf if current else "", path=request.url.path,
            **values,
        )
        response = HTMLResponse(text, status_code=status)
        if session is not None:
            response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict", secure=secure, path="/")
        return response

    def form_session(request: Request) -> Session:
        """The visitor's session, a new one if none: a page with a form needs a CSRF token."""
        return session_of(request) or sessions.new(time.monotonic())

    def refused(request: Request, exc: Refused) -> HTMLResponse:
        return render(request, "error.html.j2", "home", status=exc.status, message=exc.message)

    async def read_form(request: Request, *, admin: bool = True) -> tuple[Session, dict[str, list[str]]]:
        """A POSTed form, checked: bounded, same origin, the session's CSRF token, an admin session.

        Raises:
            Refused: 413, 415, 403 or 401.
        """
        headers = request.headers
        if not same_origin(headers.get("origin"), headers.get("sec-fetch-site"), request.url.scheme, headers.get("host")):
            raise Refused(403, "this form was posted from another site")
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            raise Refused(415, "a form post is application/x-www-form-urlencoded")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM:
                raise Refused(413, f"form over {MAX_FORM} bytes")
        fields: dict[str, list[str]] = {}
        for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=200):
            fields.setdefault(key, []).append(value)
        session = session_of(request)
        if session is None or not session.csrf_ok(fields.get("csrf", [None])[0]):
            raise Refused(403, "the form's CSRF token is missing or stale: reload the page and try again")
        if admin and not session.admin:
            raise Refused(401, "this needs the admin: sign in with the admin token first")
        return session, fields

    # --- read-only pages --------------------------------------------------------------------

    async def home(request: Request) -> Response:
        data = await store.read(_home_data)
        bots = []
        for bot in data["bots"]:
            connected = registry.get(bot.name) if bot.kind == "remote" else None
            if not bot.active:
                state = "revoked"
            elif bot.kind == "local":
                state = "local"
            elif connected is None:
                state = "not connected"
            else:
                state = "playing" if connected.busy else "connected"
            bots.append(BotRow(bot, state, round(connected.rtt * 1000, 2) if connected is not None else None))
        return render(request, "home.html.j2", "home", runs=data["runs"], bots=bots, top=data["top"])

    async def run_config(run: Run) -> TournamentConfig | str | None:
        """The run's tournament config (its schedule not built: a fraction of a millisecond),
        None for the ladder, or why its stored settings no longer read (a run stored by an
        earlier version, whose checks were looser): its page says so instead of failing."""
        try:
            return await trio.to_thread.run_sync(_config, run)
        except (ValueError, msgspec.ValidationError) as exc:
            return str(exc)

    async def run_page(request: Request) -> Response:
        try:
            run_id = parse_id(request.path_params["id"])
            data = await store.read(_run_data, run_id, request.query_params.get("page"))
        except (ValueError, NoSuchRun):
            return refused(request, Refused(404, f"no run {request.path_params['id']}"))
        run: Run = data["run"]
        found = await run_config(run)
        config, unreadable = (None, found) if isinstance(found, str) else (found, None)
        tables = None
        damage: list[DamagedRegion] = []
        regions = 0
        if config is not None:
            viewed = await within(standings_view(scheduler, run, config), STANDINGS_WAIT)
            if viewed is not None:
                tables, found_damage = viewed
                damage, regions = await scheduler.damage(run.id, found_damage)
        total = config.total if config is not None else None
        shown: Progress = progress(data["done"], total, run.started, run.finished, datetime.now(UTC))
        return render(
            request, "run.html.j2", f"run:{run.id}", run=run, engines=run.bot_names, progress=shown,
            tables=tables, counting=config is not None and tables is None, config=config, unreadable=unreadable,
            terminations=data["terminations"], games=data["games"], pager=data["pager"],
            damage=damage, damaged_regions=regions,
        )

    async def bot_page(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            data = await store.read(_bot_data, name, request.query_params.get("page"))
        except NoSuchBot:
            return refused(request, Refused(404, f"no bot named {name}"))
        return bot_response(request, data)

    def bot_response(request: Request, data: dict[str, Any], *, status: int = 200, message: str = "") -> HTMLResponse:
        bot: Bot = data["bot"]
        connected = registry.get(bot.name) if bot.kind == "remote" else None
        return render(
            request, "bot.html.j2", f"bot:{bot.name}", status=status, message=message,
            connected=connected, rtt_ms=round(connected.rtt * 1000, 2) if connected is not None else None,
            chart=rating_chart(data["history"]), **data,
        )

    # --- sign-in --------------------------------------------------------------------------

    def safe_next(target: str | None) -> str:
        """Where to go after signing in: a path of this site only (never ``//host`` or a URL)."""
        if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
            return target
        return "/"

    async def signin_page(request: Request) -> Response:
        session = form_session(request)
        return render(
            request, "signin.html.j2", "home", session=session, error="", next=safe_next(request.query_params.get("next"))
        )

    async def signin(request: Request) -> Response:
        try:
            session, fields = await read_form(request, admin=False)
        except Refused as exc:
            return refused(request, exc)
        given = fields.get("token", [""])[0].strip().encode("utf-8", "replace")
        target = safe_next(fields.get("next", ["/"])[0])
        if not hmac.compare_digest(given, expected):
            return render(request, "signin.html.j2", "home", status=403, session=session, error="wrong admin token", next=target)
        admin = sessions.sign_in(session, time.monotonic())
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(COOKIE, admin.id, httponly=True, samesite="strict", secure=secure, path="/")
        return response

    async def signout(request: Request) -> Response:
        try:
            session, _ = await read_form(request, admin=False)
        except Refused as exc:
            return refused(request, exc)
        sessions.sign_out(session)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    # --- mutations --------------------------------------------------------------------------

    async def new_run_page(request: Request) -> Response:
        session = form_session(request)
        bots = await store.read(Store.bots)
        return render(request, "run_new.html.j2", "home", session=session, bots=bots, values={}, error="")

    async def submit_run(request: Request) -> Response:
        try:
            session, fields = await read_form(request)
        except Refused as exc:
            return refused(request, exc)
        values = {key: fields.get(key, []) for key in FORM_FIELDS}
        body: dict[str, Any] = {}
        error, status = "", 400
        for key in FORM_FIELDS:
            given = [v.strip() for v in values[key] if v.strip()]
            if key in LIST_FIELDS:
                body[key] = given
            elif given and key in INT_FIELDS:
                if _WHOLE_NUMBER.fullmatch(given[0]) is None:
                    error = f"{key}: {given[0][:40]!r} is not a whole number"
                    break
                body[key] = int(given[0])
            elif given:
                body[key] = given[0]
        if not error:
            try:
                settings, kind = await store.read(run_settings, body)
                run = await scheduler.queue(kind, settings)
            except (ValueError, StoreError) as exc:
                error = str(exc)
            except QueueFull as exc:
                error, status = str(exc), 503
            else:
                return RedirectResponse(f"/runs/{run.id}", status_code=303)
        bots = await store.read(Store.bots)
        return render(
            request, "run_new.html.j2", "home", status=status, session=session, bots=bots, values=values, error=error
        )

    async def cancel_run(request: Request) -> Response:
        try:
            await read_form(request)
            run_id = parse_id(request.path_params["id"])
            await scheduler.cancel(run_id)
        except Refused as exc:
            return refused(request, exc)
        except (ValueError, NoSuchRun):
            return refused(request, Refused(404, f"no run {request.path_params['id']}"))
        except BadRunState as exc:
            return refused(request, Refused(409, str(exc)))
        return RedirectResponse(f"/runs/{run_id}", status_code=303)

    async def bot_action(request: Request) -> Response:
        name, action = request.path_params["name"], request.path_params["action"]
        if action not in ("revoke", "remove"):
            return refused(request, Refused(404, f"no such page: /bots/{name}/{action}"))
        try:
            await read_form(request)
            if action == "revoke":
                await store.write(Store.revoke_bot, name)
            else:
                await store.write(Store.remove_bot, name)
                return RedirectResponse("/", status_code=303)
        except Refused as exc:
            return refused(request, exc)
        except NoSuchBot:
            return refused(request, Refused(404, f"no bot named {name}"))
        except BotHasGames as exc:
            data = await store.read(_bot_data, name, None)
            return bot_response(request, data, status=409, message=str(exc))
        return RedirectResponse(f"/bots/{name}", status_code=303)

    return [
        Route("/", home, methods=["GET"]),
        Route("/runs/new", new_run_page, methods=["GET"]),
        Route("/runs/new", submit_run, methods=["POST"]),
        Route("/runs/{id}", run_page, methods=["GET"]),
        Route("/runs/{id}/cancel", cancel_run, methods=["POST"]),
        Route("/bots/{name}", bot_page, methods=["GET"]),
        Route("/bots/{name}/{action:str}", bot_action, methods=["POST"]),
        Route("/signin", signin_page, methods=["GET"]),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        static_mount(),
    ]

