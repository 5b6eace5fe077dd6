"""The daemon's database: bots, runs, the games index and ratings, in SQLite (SPEC.md section 16.1).

Theory of operation. One file, ``DIR/santorini.db``, opened by the daemon and by the ``santorini
bot`` commands alike, whether or not the other is running:

* **WAL mode**, so readers never wait for the writer and the writer never waits for readers;
  **busy_timeout**, so a second writer (the CLI while the daemon writes) waits its turn instead of
  failing; every write transaction starts with ``BEGIN IMMEDIATE``, taking the write lock at once,
  which is what makes the busy timeout apply (a read transaction upgraded to a write later can
  fail at once with ``SQLITE_BUSY`` in WAL mode, whatever the timeout).
* **Foreign keys on**: a game's seats name bots, so a bot that has played cannot be deleted under
  its games.
* **Versioned migrations**: :data:`MIGRATIONS` is a list of numbered steps, each a tuple of SQL
  statements applied in one transaction together with the new ``schema_version``; opening a
  database written by a newer santorini is a one-line :class:`SchemaTooNew`, never a guess.
* **Games stay in their files.** The archive and SGN files are the record; the ``games`` table is
  an index of them (result, termination, offsets) plus what the ratings need.
* **Damage is one line.** A database file that is damaged (a page overwritten, a file that is no
  database, text that is not UTF-8) raises :class:`DamagedStore` from any method, naming the file
  and the remedy (restore a backup).  A writable open (the daemon's start, the ``santorini bot``
  commands) first checks what a start reads whole, the ``bots`` and ``runs`` tables (their pages
  and indexes, every row decoded), so such damage stops the start rather than a later request;
  the other tables, which grow with every game, are not read at open (that would cost the start
  a second per million games): damage there is found when they are read.

:class:`Store` is the synchronous API (the CLI, one connection, no trio: ``santorini bot list``
starts fast); :class:`~.async_store.AsyncStore` is the daemon's facade over it.
"""

from __future__ import annotations

import bisect
import functools
import inspect
import json
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar, cast
from urllib.parse import quote

from ..referee.engine_spec import parse_engine_spec
from .names import check_bot_name
from .tokens import new_token, token_hash

__all__ = [
    "DB_FILE",
    "DEFAULT_DATA_DIR",
    "MIGRATIONS",
    "RATING_SYSTEM",
    "StoreError",
    "NoStore",
    "SchemaTooNew",
    "DamagedStore",
    "NoSuchBot",
    "BotExists",
    "BotHasGames",
    "NoSuchRun",
    "NoSuchGame",
    "DuplicateGame",
    "BadRunState",
    "Bot",
    "Run",
    "NewGame",
    "Game",
    "Rating",
    "RatingPoint",
    "Store",
]

_S = TypeVar("_S")

DB_FILE = "santorini.db"
DEFAULT_DATA_DIR = Path("santorini-data")
BUSY_TIMEOUT_MS = 10_000
"""How long a writer waits for another (the daemon mid-transaction) before giving up: transactions
here are a few rows, milliseconds, so ten seconds means something is stuck."""
RATING_SYSTEM = "wenglin"
"""The ``ratings.system`` of the ladder's Weng-Lin (openskill) ratings."""

BotKind = Literal["local", "remote"]
RunKind = Literal["match", "tournament", "ladder"]
RunState = Literal["queued", "running", "finished", "cancelled"]

#: Schema steps; step i (1-based) takes the database from version i-1 to i. Never edit a step
#: that has shipped: append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        # 1: the first server.
        """CREATE TABLE bots (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            kind TEXT NOT NULL CHECK (kind IN ('local', 'remote')),
            spec TEXT CHECK ((kind = 'local') = (spec IS NOT NULL)),
            token_hash TEXT CHECK (token_hash IS NULL OR (kind = 'remote' AND length(token_hash) = 64)),
            created TEXT NOT NULL,
            revoked TEXT
        )""",
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('match', 'tournament', 'ladder')),
            settings_json TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'finished', 'cancelled')),
            created TEXT NOT NULL,
            started TEXT,
            finished TEXT
        )""",
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id),
            number INTEGER NOT NULL CHECK (number >= 1),
            gods TEXT NOT NULL,
            result TEXT NOT NULL,
            termination TEXT NOT NULL,
            turns INTEGER NOT NULL CHECK (turns >= 0),
            archive_offset INTEGER,
            sgn_offset INTEGER,
            finished TEXT NOT NULL,
            UNIQUE (run_id, number)
        )""",
        """CREATE TABLE game_seats (
            game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
            seat INTEGER NOT NULL CHECK (seat BETWEEN 1 AND 4),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            place INTEGER NOT NULL CHECK (place BETWEEN 1 AND 4),
            PRIMARY KEY (game_id, seat)
        )""",
        "CREATE INDEX game_seats_bot ON game_seats(bot_id)",
        """CREATE TABLE ratings (
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            system TEXT NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL CHECK (sigma > 0),
            games INTEGER NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (bot_id, system)
        )""",
        """CREATE TABLE rating_history (
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            game_id INTEGER NOT NULL REFERENCES games(id),
            system TEXT NOT NULL,
            mu REAL NOT NULL,
            sigma REAL NOT NULL,
            PRIMARY KEY (bot_id, game_id, system)
        )""",
    ),
    (
        # 2: the dashboard's queries (SPEC.md section 17.1): a bot's games newest first, a run's
        # games by number and the runs by state, each an index range scan, never a table scan.
        "CREATE INDEX game_seats_bot_game ON game_seats(bot_id, game_id)",
        "DROP INDEX game_seats_bot",
        "CREATE INDEX runs_state ON runs(state, id)",
    ),
)


class StoreError(Exception):
    """A request the store refuses; ``str()`` is one line for the user."""


class NoStore(StoreError):
    """The data directory holds no database (and was not to be created)."""


class SchemaTooNew(StoreError):
    """The database was written by a newer santorini."""


class DamagedStore(StoreError):
    """The database file is damaged: it cannot be used until it is restored from a backup."""


_SQLITE_CORRUPT, _SQLITE_NOTADB = 11, 26
_UNDECODABLE = re.compile(r"Could not decode to UTF-8 column '([^']{1,64})'")


def _damage(exc: sqlite3.Error) -> str | None:
    """Why ``exc`` means the database file is damaged, in a few words; None if it does not (a
    busy database, a constraint, a full disk are not damage)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return str(exc)
    found = _UNDECODABLE.match(str(exc))  # raised by Python's sqlite3, which quotes the bad text: not repeated
    if isinstance(exc, sqlite3.OperationalError) and found is not None:
        return f"text that is not UTF-8 in column {found.group(1)}"
    return None


def damaged(path: Path, reason: str) -> DamagedStore:
    """The one line for a damaged database file: what, why, and what to do (SPEC.md section 16.1)."""
    return DamagedStore(
        f"{path} is damaged ({reason}): restore the data directory from a backup made by santorini backup "
        "(SPEC.md section 16.1)"
    )


def _guard(method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` raising :func:`damaged` in place of a ``sqlite3`` error that means damage."""

    @functools.wraps(method)
    def guarded(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            reason = _damage(exc)
            if reason is None:
                raise
            raise damaged(self.path, reason) from None

    return guarded


def _reports_damage(cls: type[_S]) -> type[_S]:
    """Each public method of ``cls`` raises :func:`damaged` where SQLite (or the decoding of a
    row) finds the file damaged, rather than a ``sqlite3`` error's traceback.  ``vacuum_into`` is
    left as it is: the backup reports its own failure, after removing what it began."""
    for name, method in list(vars(cls).items()):
        if not name.startswith("_") and name != "vacuum_into" and inspect.isfunction(method):
            setattr(cls, name, _guard(method))
    return cls


class NoSuchBot(StoreError):
    """No bot of that name is registered."""


class BotExists(StoreError):
    """A bot of that name (in any case) is registered already."""


class BotHasGames(StoreError):
    """The bot has played: its games name it, so it can be revoked but not removed."""


#: Largest id SQLite can hold (a signed 64-bit INTEGER); binding a larger int is an OverflowError.
_MAX_ROWID = 2**63 - 1


def _is_rowid(value: int) -> bool:
    """Whether ``value`` can be a row's id: an id from a URL beyond SQLite's range names no run
    or game (404), rather than an OverflowError (500) in the query."""
    return 0 < value <= _MAX_ROWID


class NoSuchRun(StoreError):
    """No run with that id."""


class NoSuchGame(StoreError):
    """No game with that id."""


class DuplicateGame(StoreError):
    """The run already has a game with that number (a resumed run must not record a game twice)."""


class BadRunState(StoreError):
    """A run state change that its life cycle does not allow."""


@dataclass(frozen=True, slots=True)
class Bot:
    """A registered bot."""

    id: int
    name: str
    kind: BotKind
    spec: str | None
    """The engine spec of a local bot, as given (SPEC.md section 9 grammar); None for a remote one."""
    created: str
    """ISO 8601, UTC."""
    revoked: str | None
    """When it was revoked (it plays no more; its games stay), or None."""
    has_token: bool
    """A remote bot with a usable token."""

    @property
    def active(self) -> bool:
        return self.revoked is None


@dataclass(frozen=True, slots=True)
class Run:
    """A match, tournament or ladder submitted to the daemon."""

    id: int
    kind: RunKind
    settings: dict[str, Any]
    state: RunState
    created: str
    started: str | None
    finished: str | None

    @property
    def bot_names(self) -> list[str]:
        """The run's bots: a remote bot is listed by its name (and in ``remote``), a local one by
        its engine spec, named after the bot."""
        remote = set(self.settings.get("remote", []))
        return [text if text in remote else _spec_name(text) for text in self.settings.get("engines", [])]


def _spec_name(text: str) -> str:
    try:
        return parse_engine_spec(text).name
    except ValueError:  # settings stored by the job API were checked: only a damaged row gets here
        return text


@dataclass(frozen=True, slots=True)
class NewGame:
    """A finished game to index: what :meth:`Store.record_game` takes."""

    run_id: int
    number: int
    """The game's number in its run, from 1: with ``run_id``, its identity (a replayed game keeps it)."""
    bots: tuple[str, ...]
    """Bot names in seat order."""
    places: tuple[int, ...]
    """Each seat's placing (1 = won), in seat order."""
    gods: str
    """As the record's ``Gods`` tag: ``apollo/pan``."""
    result: str
    termination: str
    turns: int
    archive_offset: int | None = None
    """Byte offset of the game in the run's msgpack archive, if any."""
    sgn_offset: int | None = None
    """Byte offset of the game in the run's SGN file, if any."""


@dataclass(frozen=True, slots=True)
class Game(NewGame):
    """An indexed game."""

    id: int = 0
    finished: str = ""


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's current rating in one system."""

    bot: str
    system: str
    mu: float
    sigma: float
    games: int
    updated: str

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the rating the bot is almost surely above; the ladder's order."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """A bot's rating right after one game (a bot's chart)."""

    game_id: int
    mu: float
    sigma: float


#: Allowed run state changes: a run is queued, runs, then finishes or is cancelled; a running run
#: interrupted by a restart stays ``running`` and is resumed.
_RUN_TRANSITIONS: dict[str, frozenset[str]] = {
    "queued": frozenset({"running", "cancelled"}),
    "running": frozenset({"finished", "cancelled"}),
    "finished": frozenset(),
    "cancelled": frozenset(),
}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def migrate(conn: sqlite3.Connection, migrations: tuple[tuple[str, ...], ...] = MIGRATIONS) -> int:
    """Bring the database up to ``len(migrations)``, one transaction per step; return the version.

    Two processes may open a new database at once: each step re-reads the version under the write
    lock, so a step is applied once.

    Raises:
        SchemaTooNew: the database's version is beyond ``migrations``.
    """
    if _version(conn) == len(migrations):
        return len(migrations)  # up to date: no write lock taken (a writer mid-transaction is not waited for)
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            if row is None:
                conn.execute("INSERT INTO schema_version VALUES (0)")
            version = 0 if row is None else int(row[0])
            if version > len(migrations):
                raise SchemaTooNew(
                    f"the database has schema version {version} but this santorini knows up to {len(migrations)}: "
                    "upgrade santorini-server"
                )
            if version == len(migrations):
                conn.execute("COMMIT")
                return version
            for statement in migrations[version]:
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = ?", (version + 1,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _version(conn: sqlite3.Connection) -> int | None:
    """The schema version, or None before the first migration."""
    try:
        row = conn.execute("SELECT version FROM schema_version").fetchone()
    except sqlite3.OperationalError:  # no such table
        return None
    return None if row is None else int(row[0])


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), usable from any one thread at a time."""
    target = f"file:{quote(str(path.resolve()))}?mode={'ro' if readonly else 'rwc'}"
    # sqlite3's timeout is SQLite's busy_timeout.
    conn = sqlite3.connect(target, uri=True, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        # WAL with synchronous=NORMAL loses no committed transaction on a process crash (only on
        # power loss the last ones): the records, fsynced by their writers, are the source of truth.
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


@_reports_damage
class Store:
    """The database of one data directory, through one connection (not for two threads at once).

    Args:
        data_dir: the data directory (``santorini serve --data``).
        create: create the directory (mode 0700) and database if missing; otherwise :class:`NoStore`.
        readonly: open read-only (the daemon's readers); the database must exist and be migrated.
            A writable open checks the ``bots`` and ``runs`` tables (:meth:`check`); a reader
            trusts the writer's check.

    Raises:
        NoStore, SchemaTooNew, DamagedStore: one line each.
    """

    def __init__(self, data_dir: Path, *, create: bool = False, readonly: bool = False) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / DB_FILE
        if not self.path.exists():
            if not create or readonly:
                raise NoStore(
                    f"no santorini data in {self.data_dir} (santorini bot add or santorini serve creates it)"
                )
            self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            self._conn = _connect(self.path, readonly=readonly)
            if readonly:
                version = _version(self._conn)
                if version is None or version > len(MIGRATIONS):
                    raise SchemaTooNew(f"schema version {version}, this santorini knows up to {len(MIGRATIONS)}")
            else:
                migrate(self._conn)
                self._check()
        except SchemaTooNew as exc:
            self.close()
            raise SchemaTooNew(f"{self.path}: {exc}") from None
        except DamagedStore:
            self.close()
            raise
        except sqlite3.DatabaseError as exc:
            self.close()
            reason = _damage(exc)
            raise (damaged(self.path, reason) if reason else StoreError(f"cannot open {self.path}: {exc}")) from None

    def _check(self) -> None:
        """Read what every start reads whole, the ``bots`` and ``runs`` tables: SQLite's check of
        their pages and indexes, then every row decoded as the daemon decodes it (a page whose
        text was overwritten passes SQLite's check but not the decoding).  A few rows per bot and
        run: milliseconds.

        Raises:
            DamagedStore: the tables are damaged.
            sqlite3.DatabaseError: SQLite refuses the file (its caller words it).
        """
        for table in ("bots", "runs"):
            problems = self._conn.execute(f"PRAGMA quick_check({table})").fetchall()
            if problems != [("ok",)]:
                raise damaged(self.path, f"table {table}: {str(problems[0][0])[:200]}")
        self.bots()
        self.token_hashes()
        self.runs()

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("SELECT version FROM schema_version").fetchone()[0])

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, the write lock taken at once (waits up to the busy timeout)."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # --- bots -----------------------------------------------------------------------------------

    _BOT_COLUMNS = "id, name, kind, spec, created, revoked, token_hash IS NOT NULL"

    @staticmethod
    def _bot(row: tuple[Any, ...]) -> Bot:
        return Bot(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]))

    def _find_bot(self, conn: sqlite3.Connection, name: str) -> Bot:
        row = conn.execute(f"SELECT {self._BOT_COLUMNS} FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NoSuchBot(f"no bot named {name!r}")
        return self._bot(row)

    def _insert_bot(self, name: str, kind: BotKind, spec: str | None, hashed: str | None) -> Bot:
        check_bot_name(name)
        with self._write() as conn:
            try:
                conn.execute(
                    "INSERT INTO bots (name, kind, spec, token_hash, created) VALUES (?, ?, ?, ?, ?)",
                    (name, kind, spec, hashed, _now()),
                )
            except sqlite3.IntegrityError:
                existing = self._find_bot(conn, name).name
                raise BotExists(f"a bot named {existing!r} exists already (names are unique regardless of case)") from None
            return self._find_bot(conn, name)

    def add_local_bot(self, name: str, spec: str) -> Bot:
        """Register an engine the daemon starts itself.

        Raises:
            ValueError: a bad name or engine spec (one line). BotExists.
        """
        # Imported here: the referee package loads the whole engine layer (0.7 s), which
        # `santorini bot list` and the other commands do not need.
        from ..referee.engine_spec import parse_engine_spec

        parse_engine_spec(spec)
        return self._insert_bot(name, "local", spec.strip(), None)

    def add_remote_bot(self, name: str) -> tuple[Bot, str]:
        """Register a bot that logs in over TCP; returns it and its token, which is stored only hashed.

        Raises:
            ValueError: a bad name. BotExists.
        """
        token = new_token()
        return self._insert_bot(name, "remote", None, token_hash(token)), token

    def issue_token(self, name: str) -> str:
        """A fresh token for a remote bot; the old one stops working, and a revoked bot is reinstated.

        Raises:
            NoSuchBot; StoreError: a local bot (it has no token).
        """
        token = new_token()
        with self._write() as conn:
            bot = self._find_bot(conn, name)
            if bot.kind != "remote":
                raise StoreError(f"{bot.name} is a local bot: the server starts it, it has no token")
            conn.execute("UPDATE bots SET token_hash = ?, revoked = NULL WHERE id = ?", (token_hash(token), bot.id))
        return token

    def revoke_bot(self, name: str) -> Bot:
        """Stop a bot playing: its token is erased, it is scheduled no more; it stays with its games.

        Revoking a revoked bot changes nothing.

        Raises:
            NoSuchBot.
        """
        with self._write() as conn:
            bot = self._find_bot(conn, name)
            if bot.revoked is None:
                conn.execute("UPDATE bots SET token_hash = NULL, revoked = ? WHERE id = ?", (_now(), bot.id))
            return self._find_bot(conn, name)

    def remove_bot(self, name: str) -> None:
        """Forget a bot that has never played (its name becomes free).

        Raises:
            NoSuchBot; BotHasGames: its games and ratings name it (revoke it instead).
        """
        with self._write() as conn:
            bot = self._find_bot(conn, name)
            (played,) = conn.execute("SELECT count(*) FROM game_seats WHERE bot_id = ?", (bot.id,)).fetchone()
            if played:
                raise BotHasGames(
                    f"{bot.name} has played {played} game{'s' * (played != 1)} and stays with them: "
                    f"santorini bot revoke {bot.name} stops it playing"
                )
            conn.execute("DELETE FROM ratings WHERE bot_id = ?", (bot.id,))
            conn.execute("DELETE FROM bots WHERE id = ?", (bot.id,))

    def bot(self, name: str) -> Bot:
        """Raises NoSuchBot."""
        return self._find_bot(self._conn, name)

    def bots(self) -> list[Bot]:
        """Every bot, by name."""
        rows = self._conn.execute(f"SELECT {self._BOT_COLUMNS} FROM bots ORDER BY name").fetchall()
        return [self._bot(row) for row in rows]

    def token_hashes(self) -> dict[str, str]:
        """Lower-cased name -> token hash of every remote bot that may log in (the authenticator's cache)."""
        rows = self._conn.execute(
            "SELECT name, token_hash FROM bots WHERE kind = 'remote' AND revoked IS NULL AND token_hash IS NOT NULL"
        ).fetchall()
        return {name.lower(): hashed for name, hashed in rows}

    def data_version(self) -> int:
        """Changes whenever another connection (another process, the writer) commits: a cache's cue."""
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    # --- runs -----------------------------------------------------------------------------------

    def _run(self, row: tuple[Any, ...]) -> Run:
        try:
            settings = json.loads(row[2])
        except (TypeError, ValueError):
            settings = None
        if not isinstance(settings, dict):  # only a damaged page holds settings that are not the object written
            raise damaged(self.path, f"the settings of run {row[0]} are not a JSON object")
        return Run(row[0], row[1], settings, row[3], row[4], row[5], row[6])

    _RUN_COLUMNS = "id, kind, settings_json, state, created, started, finished"

    def create_run(self, kind: RunKind, settings: Mapping[str, Any]) -> Run:
        """Queue a run; ``settings`` is stored as JSON (the job API's body, validated by the caller)."""
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO runs (kind, settings_json, state, created) VALUES (?, ?, 'queued', ?)",
                (kind, json.dumps(dict(settings), sort_keys=True), _now()),
            )
            return self._find_run(conn, cast(int, cursor.lastrowid))

    def _find_run(self, conn: sqlite3.Connection, run_id: int) -> Run:
        if not _is_rowid(run_id):
            raise NoSuchRun(f"no run {run_id}")
        row = conn.execute(f"SELECT {self._RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise NoSuchRun(f"no run {run_id}")
        return self._run(row)

    def set_run_state(self, run_id: int, state: RunState) -> Run:
        """Move a run along its life cycle (queued -> running -> finished, or -> cancelled).

        Raises:
            NoSuchRun; BadRunState: a change the life cycle does not allow (a finished run cancelled).
        """
        with self._write() as conn:
            run = self._find_run(conn, run_id)
            if state not in _RUN_TRANSITIONS[run.state]:
                raise BadRunState(f"run {run_id} is {run.state}: it cannot become {state}")
            column = "started" if state == "running" else "finished"
            conn.execute(f"UPDATE runs SET state = ?, {column} = ? WHERE id = ?", (state, _now(), run_id))
            return self._find_run(conn, run_id)

    def run(self, run_id: int) -> Run:
        """Raises NoSuchRun."""
        return self._find_run(self._conn, run_id)

    def runs(self, state: RunState | None = None) -> list[Run]:
        """Runs, oldest first; only those in ``state`` if given."""
        where, args = ("WHERE state = ?", (state,)) if state else ("", ())
        rows = self._conn.execute(f"SELECT {self._RUN_COLUMNS} FROM runs {where} ORDER BY id", args).fetchall()
        return [self._run(row) for row in rows]

    # --- games and ratings ----------------------------------------------------------------------

    def record_game(
        self, game: NewGame, ratings: Mapping[str, tuple[float, float]] | None = None, system: str = RATING_SYSTEM
    ) -> Game:
        """Index a finished game and set its players' new ratings, in one transaction.

        Args:
            ratings: bot name -> (mu, sigma) after this game; each becomes the bot's rating and a
                point of its history.

        Raises:
            DuplicateGame: the run has a game with this number already; NoSuchRun; NoSuchBot;
            ValueError: seats and places of different lengths.
        """
        if len(game.bots) != len(game.places) or not 2 <= len(game.bots) <= 4:
            raise ValueError(f"a game has 2 to 4 seats, each with a place: bots {game.bots}, places {game.places}")
        finished = _now()
        with self._write() as conn:
            self._find_run(conn, game.run_id)
            bot_ids = {name: self._find_bot(conn, name).id for name in {*game.bots, *(ratings or {})}}
            try:
                cursor = conn.execute(
                    "INSERT INTO games (run_id, number, gods, result, termination, turns, archive_offset, sgn_offset, finished)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game.run_id, game.number, game.gods, game.result, game.termination, game.turns,
                        game.archive_offset, game.sgn_offset, finished,
                    ),
                )
            except sqlite3.IntegrityError:
                raise DuplicateGame(f"run {game.run_id} already has game {game.number}") from None
            game_id = cast(int, cursor.lastrowid)
            conn.executemany(
                "INSERT INTO game_seats (game_id, seat, bot_id, place) VALUES (?, ?, ?, ?)",
                [
                    (game_id, seat, bot_ids[name], place)
                    for seat, (name, place) in enumerate(zip(game.bots, game.places, strict=True), 1)
                ],
            )
            for name, (mu, sigma) in (ratings or {}).items():
                conn.execute(
                    "INSERT INTO ratings (bot_id, system, mu, sigma, games, updated) VALUES (?, ?, ?, ?, 1, ?)"
                    " ON CONFLICT (bot_id, system) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
                    " games = games + 1, updated = excluded.updated",
                    (bot_ids[name], system, mu, sigma, finished),
                )
                conn.execute(
                    "INSERT INTO rating_history (bot_id, game_id, system, mu, sigma) VALUES (?, ?, ?, ?, ?)",
                    (bot_ids[name], game_id, system, mu, sigma),
                )
            return self._find_game(conn, game_id)

    _GAME_COLUMNS = "id, run_id, number, gods, result, termination, turns, archive_offset, sgn_offset, finished"

    def _game(self, conn: sqlite3.Connection, row: tuple[Any, ...]) -> Game:
        seats = conn.execute(
            "SELECT bots.name, place FROM game_seats JOIN bots ON bots.id = bot_id WHERE game_id = ? ORDER BY seat",
            (row[0],),
        ).fetchall()
        return Game(
            run_id=row[1], number=row[2], bots=tuple(s[0] for s in seats), places=tuple(s[1] for s in seats),
            gods=row[3], result=row[4], termination=row[5], turns=row[6], archive_offset=row[7], sgn_offset=row[8],
            id=row[0], finished=row[9],
        )

    def _find_game(self, conn: sqlite3.Connection, game_id: int) -> Game:
        if not _is_rowid(game_id):
            raise NoSuchGame(f"no game {game_id}")
        row = conn.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise NoSuchGame(f"no game {game_id}")
        return self._game(conn, row)

    def game(self, game_id: int) -> Game:
        """Raises NoSuchGame."""
        return self._find_game(self._conn, game_id)

    def run_game(self, run_id: int, number: int) -> Game:
        """Game ``number`` of a run (the index of a run's game numbers: one lookup).

        Raises:
            NoSuchGame: the run has no game of that number indexed.
        """
        row = None
        if _is_rowid(run_id) and _is_rowid(number):
            row = self._conn.execute(
                f"SELECT {self._GAME_COLUMNS} FROM games WHERE run_id = ? AND number = ?", (run_id, number)
            ).fetchone()
        if row is None:
            raise NoSuchGame(f"no game {number} in run {run_id}")
        return self._game(self._conn, row)

    def games_within(
        self, run_id: int, regions: Sequence[tuple[int, int]], limit: int
    ) -> list[tuple[int, list[tuple[int, int]]]]:
        """For each byte range ``[start, end)`` of the run's archive (in file order, disjoint): how
        many of the run's indexed games have their frame starting there, and the first ``limit``
        of them as (number, id), by number: the games a damaged region of the archive lost.  One
        pass over the run's rows (in the order of its number index)."""
        counts = [0] * len(regions)
        first: list[list[tuple[int, int]]] = [[] for _ in regions]
        if regions:
            starts = [start for start, _ in regions]
            rows = self._conn.execute(
                "SELECT archive_offset, number, id FROM games WHERE run_id = ? AND archive_offset IS NOT NULL"
                " ORDER BY number",
                (run_id,),
            )
            for offset, number, game_id in rows:
                k = bisect.bisect_right(starts, offset) - 1
                if k >= 0 and offset < regions[k][1]:
                    counts[k] += 1
                    if len(first[k]) < limit:
                        first[k].append((number, game_id))
        return list(zip(counts, first, strict=True))

    def games(self, run_id: int) -> list[Game]:
        """A run's games by number (a resumed run compares these numbers with its records)."""
        rows = self._conn.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE run_id = ? ORDER BY number", (run_id,))
        return [self._game(self._conn, row) for row in rows.fetchall()]

    def run_tail(self, run_id: int) -> tuple[int, int | None]:
        """The highest game number indexed for the run (0: none) and the highest archive offset
        indexed (None: none): where the games not indexed yet can only be, since a run's games
        are indexed in the order of their archive.  Read from the run's rows, not its archive."""
        number, offset = self._conn.execute(
            "SELECT max(number), max(archive_offset) FROM games WHERE run_id = ?", (run_id,)
        ).fetchone()
        return int(number or 0), None if offset is None else int(offset)

    def last_seating(self, run_id: int, a: str, b: str) -> tuple[str, str] | None:
        """The seats (seat 1, seat 2) of the run's latest game between bots ``a`` and ``b``, or
        None if they have not met in it: a walk back through ``a``'s games (its index), which
        stops at the first with ``b``.  Raises NoSuchBot."""
        first, second = self._find_bot(self._conn, a).id, self._find_bot(self._conn, b).id
        row = self._conn.execute(
            "SELECT x.game_id FROM game_seats x JOIN game_seats y ON y.game_id = x.game_id AND y.bot_id = ?"
            " JOIN games ON games.id = x.game_id WHERE x.bot_id = ? AND games.run_id = ? ORDER BY x.game_id DESC LIMIT 1",
            (second, first, run_id),
        ).fetchone()
        if row is None:
            return None
        seats = self._conn.execute(
            "SELECT bots.name FROM game_seats JOIN bots ON bots.id = bot_id WHERE game_id = ? ORDER BY seat", (row[0],)
        ).fetchall()
        return seats[0][0], seats[1][0]

    def game_ids(self, run_id: int) -> list[int]:
        """The ids of a run's games, by number (one query: what ``GET /api/runs/ID`` lists)."""
        rows = self._conn.execute("SELECT id FROM games WHERE run_id = ? ORDER BY number", (run_id,))
        return [row[0] for row in rows.fetchall()]

    def games_played(self, name: str) -> int:
        """How many games a bot has played. Raises NoSuchBot."""
        bot = self._find_bot(self._conn, name)
        return int(self._conn.execute("SELECT count(*) FROM game_seats WHERE bot_id = ?", (bot.id,)).fetchone()[0])

    def ratings(self, system: str = RATING_SYSTEM) -> dict[str, Rating]:
        """Bot name -> current rating, for the bots rated in ``system``."""
        rows = self._conn.execute(
            "SELECT bots.name, system, mu, sigma, games, updated FROM ratings JOIN bots ON bots.id = bot_id"
            " WHERE system = ? ORDER BY bots.name",
            (system,),
        ).fetchall()
        return {row[0]: Rating(*row) for row in rows}

    def rating_history(self, name: str, system: str = RATING_SYSTEM) -> list[RatingPoint]:
        """A bot's rating after each of its rated games, oldest first. Raises NoSuchBot."""
        bot = self._find_bot(self._conn, name)
        rows = self._conn.execute(
            "SELECT game_id, mu, sigma FROM rating_history WHERE bot_id = ? AND system = ? ORDER BY game_id",
            (bot.id, system),
        ).fetchall()
        return [RatingPoint(*row) for row in rows]

    # --- the dashboard's queries (SPEC.md section 17.1): bounded, each an index range scan -------

    def recent_runs(self, limit: int) -> list[Run]:
        """The runs still queued or running, then the latest others, newest first; at most ``limit``."""
        rows = self._conn.execute(
            f"SELECT {self._RUN_COLUMNS} FROM runs ORDER BY state IN ('queued', 'running') DESC, id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [self._run(row) for row in rows]

    def run_timing(self, run_id: int) -> tuple[int, str | None]:
        """How many games of the run are indexed, and when the last one finished (None: none yet)."""
        count, last = self._conn.execute("SELECT count(*), max(finished) FROM games WHERE run_id = ?", (run_id,)).fetchone()
        return int(count), last

    def run_games_page(self, run_id: int, offset: int, limit: int) -> list[Game]:
        """A run's games by number, ``limit`` of them from the ``offset``-th."""
        rows = self._conn.execute(
            f"SELECT {self._GAME_COLUMNS} FROM games WHERE run_id = ? ORDER BY number LIMIT ? OFFSET ?",
            (run_id, limit, offset),
        ).fetchall()
        return [self._game(self._conn, row) for row in rows]

    def termination_counts(self, run_id: int) -> list[tuple[str, int]]:
        """How a run's games ended: (termination, games), most frequent first."""
        rows = self._conn.execute(
            "SELECT termination, count(*) AS n FROM games WHERE run_id = ? GROUP BY termination ORDER BY n DESC, termination",
            (run_id,),
        ).fetchall()
        return [(str(t), int(n)) for t, n in rows]

    def bot_games_page(self, name: str, offset: int, limit: int) -> list[Game]:
        """A bot's games, newest first, ``limit`` of them from the ``offset``-th. Raises NoSuchBot."""
        bot = self._find_bot(self._conn, name)
        rows = self._conn.execute(
            f"SELECT {', '.join('games.' + c for c in self._GAME_COLUMNS.split(', '))} FROM game_seats"
            " JOIN games ON games.id = game_seats.game_id WHERE game_seats.bot_id = ?"
            " GROUP BY games.id ORDER BY games.id DESC LIMIT ? OFFSET ?",
            (bot.id, limit, offset),
        ).fetchall()
        return [self._game(self._conn, row) for row in rows]

    def results_by_opponent(self, name: str) -> list[tuple[str, int, int, int, int]]:
        """A bot's results against each bot it met: (opponent, games, placed ahead, behind, level),
        by games played. Raises NoSuchBot."""
        bot = self._find_bot(self._conn, name)
        rows = self._conn.execute(
            "SELECT bots.name, count(DISTINCT me.game_id), sum(me.place < op.place), sum(me.place > op.place),"
            " sum(me.place = op.place) FROM game_seats AS me"
            " JOIN game_seats AS op ON op.game_id = me.game_id AND op.seat != me.seat AND op.bot_id != me.bot_id"
            " JOIN bots ON bots.id = op.bot_id WHERE me.bot_id = ? GROUP BY op.bot_id ORDER BY 2 DESC, bots.name",
            (bot.id,),
        ).fetchall()
        return [(str(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows]

    def results_by_gods(self, name: str) -> list[tuple[str, int, int, int]]:
        """A bot's results by god pairing and its seat: (gods, seat, games, won), by games played.
        Raises NoSuchBot."""
        bot = self._find_bot(self._conn, name)
        rows = self._conn.execute(
            "SELECT games.gods, me.seat, count(*), sum(me.place = 1) FROM game_seats AS me"
            " JOIN games ON games.id = me.game_id WHERE me.bot_id = ? GROUP BY games.gods, me.seat"
            " ORDER BY 3 DESC, games.gods, me.seat",
            (bot.id,),
        ).fetchall()
        return [(str(r[0]), int(r[1]), int(r[2]), int(r[3])) for r in rows]

    def top_ratings(self, limit: int, system: str = RATING_SYSTEM) -> list[Rating]:
        """The best ``limit`` ratings by ``mu - 3 sigma`` (the ladder's order)."""
        rows = self._conn.execute(
            "SELECT bots.name, system, mu, sigma, games, updated FROM ratings JOIN bots ON bots.id = bot_id"
            " WHERE system = ? ORDER BY mu - 3 * sigma DESC, bots.name LIMIT ?",
            (system, limit),
        ).fetchall()
        return [Rating(*row) for row in rows]

    # --- backup ---------------------------------------------------------------------------------

    def vacuum_into(self, target: Path) -> None:
        """A consistent, compacted copy of the database at ``target`` (which must not exist),
        taken while other connections keep reading and writing."""
        self._conn.execute("VACUUM INTO ?", (str(target),))
