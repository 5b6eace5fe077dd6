"""Tournament settings: parsed once from flags or a TOML file, saved for ``--resume``.

The saved form (``tournament.json`` in the output folder) holds the settings as the user wrote
them (engine specs as text, the time control as text, the openings themselves), so a resumed
run rebuilds exactly the same schedule with the same parsers and the same error messages.

:class:`Settings` is a schema (a msgspec struct): a TOML file and a saved ``tournament.json``
are checked against it field by field, and a wrong type is one line naming the field
("t.toml: Expected `int`, got `str` - at `$.rounds`"), never a traceback further on.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from ..adjudicator import TimeControl, parse_tc
from ..openings.suites import BUNDLED, bundled_suite, read_suite
from ..records import MAX_LABEL, atomic_file, check_label
from ..referee.engine_spec import EngineSpec, parse_engine_spec
from ..rules import parse_sps
from ..stats.sprt import SprtConfig
from .schedule import DRAW, MAX_GAMES, PLAYER_COUNTS, Schedule, build_schedule, parse_gods_list, parse_teams

__all__ = [
    "Settings",
    "TournamentConfig",
    "load_toml",
    "read_openings",
    "bundled_conditions",
    "parse_sprt",
    "save_settings",
    "load_settings",
    "check_event",
    "check_concurrency",
    "MAX_LABEL",
    "STATE_FILE",
    "SETTING_NAMES",
    "MAX_GAMES",
]

STATE_FILE = "tournament.json"
STATE_VERSION = 1

#: ``rounds`` and ``games`` (per encounter per round): no more than a whole tournament may have
#: (:data:`~.schedule.MAX_GAMES`), checked as the settings are read (TOML, ``tournament.json``,
#: the job API); the schedule's total is checked when it is built.
Count = Annotated[int, msgspec.Meta(le=MAX_GAMES)]


class Settings(msgspec.Struct, forbid_unknown_fields=True):
    """The user's settings, as text where a parser owns the grammar (JSON- and TOML-friendly)."""

    engines: list[str] = msgspec.field(default_factory=list)
    each: str = ""
    format: str = "round-robin"
    seeds: int = 1
    rounds: Count = 1
    games: Count | None = None
    gods: str = "mortal/mortal"
    players: int = 2
    teams: str = ""
    openings: list[str] = msgspec.field(default_factory=list)
    order: str = "sequential"
    seed: int = 0
    tc: str = "10+0.1"
    concurrency: int = 0
    sprt: str = ""
    rating_interval: int = 10
    ping: bool = False
    event: str = "santorini tournament"
    remote: list[str] = msgspec.field(default_factory=list)
    """Set by the server only (not a flag, a TOML key or a job setting): the engines that are its
    remote bots, each given in ``engines`` by its bot name alone; their games lease the connected
    bot instead of starting a program (``server/bot_source.py``)."""

    def to_json(self) -> dict[str, Any]:
        """The saved form: ``{"version": 1, "settings": {...}}``."""
        return {"version": STATE_VERSION, "settings": msgspec.to_builtins(self)}

    @classmethod
    def from_json(cls, data: object) -> Settings:
        """Settings from their saved form, every field checked.

        Raises:
            ValueError: another version, an unknown setting or a wrong type (one line, naming
                the field).
        """
        try:
            return msgspec.convert(data, _SavedSettings).settings
        except msgspec.ValidationError as exc:
            raise ValueError(f"not version-{STATE_VERSION} tournament settings: {exc}") from None


class _SavedSettings(msgspec.Struct):
    """The saved form; keys it does not know are ignored, as a newer referee may add some."""

    version: Literal[1]
    settings: Settings


#: The settings' names, in order (the TOML file's keys, ``-`` or ``_``).
SETTING_NAMES: tuple[str, ...] = tuple(name for name in Settings.__struct_fields__ if name != "remote")


def load_toml(path: Path) -> dict[str, Any]:
    """The settings a TOML file gives (only those): the same names as the flags, ``-`` or ``_``
    (``rating-interval``), ``engines`` (or ``engine``) a list of specs, ``openings`` a list of SPS.

    Raises:
        ValueError: unreadable, not TOML, an unknown setting or a wrong type (one line).
    """
    try:
        data = tomllib.loads(path.read_text())
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: invalid TOML: {exc}") from None
    data = {k.replace("-", "_"): v for k, v in data.items()}
    if "engine" in data and "engines" not in data:
        data["engines"] = data.pop("engine")
    unknown = set(data) - set(SETTING_NAMES)
    if unknown:
        raise ValueError(
            f"{path}: unknown setting(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(SETTING_NAMES))})"
        )
    try:
        checked = msgspec.convert(data, Settings)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return {name: getattr(checked, name) for name in data}


def read_openings(path: Path) -> list[str]:
    """One SPS per line (``#`` comments, blank lines ignored); each checked, errors name the line
    (:func:`~santorini_server.openings.suites.read_suite`)."""
    return read_suite(path)


def bundled_conditions(
    matchups: tuple[tuple[str, ...], ...] | None, players: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """``--openings bundled``: each gods list's bundled suite, as zipped gods lists and openings
    (None: gods drawn per set with three or four seats, so the seat count's whole suite, each
    opening with its own gods).

    Raises:
        ValueError: a gods list with no bundled suite (one line).
    """
    gods_out: list[tuple[str, ...]] = []
    openings: list[str] = []
    for gods in matchups if matchups is not None else (None,):
        for sps in bundled_suite(gods, players):
            gods_out.append(parse_sps(sps).gods)
            openings.append(sps)
    return tuple(gods_out), tuple(openings)


def check_event(text: str) -> str:
    """Return ``text`` if it may be the records' ``Event`` tag, which every game repeats: the
    record layer's rule for a name a user gives (at most :data:`MAX_LABEL` characters, no
    control, format or separator character).

    Raises:
        RecordError: a ValueError, one line naming the character it may not hold, or the length.
    """
    return check_label("tag Event", text)


def check_concurrency(concurrency: int, cores: int, force_flag: str | None) -> None:
    """Refuse more games at once than ``cores``: engines sharing a core lose on time unfairly.
    ``force_flag`` is what lets the caller go beyond (the CLI's ``--force-concurrency``), None
    where nothing does (the job API).

    Raises:
        ValueError: one line.
    """
    if concurrency > cores:
        hint = f" (add {force_flag} to do it anyway)" if force_flag else ""
        raise ValueError(
            f"concurrency {concurrency} is more than the {cores} cores of this machine: engines would share "
            f"cores and lose on time unfairly{hint}"
        )


def parse_sprt(text: str) -> SprtConfig:
    """``elo0=0 elo1=5 alpha=0.05 beta=0.05 [model=normalized|logistic]`` (spaces or commas)."""
    values: dict[str, Any] = {}
    for token in text.replace(",", " ").split():
        key, sep, value = token.partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise ValueError(f"bad --sprt part {token!r} (expected elo0=, elo1=, alpha=, beta=, model=)")
        try:
            values[key] = value if key == "model" else float(value)
        except ValueError:
            raise ValueError(f"bad --sprt value {token!r}: not a number") from None
    if "elo0" not in values or "elo1" not in values:
        raise ValueError("--sprt needs elo0= and elo1=")
    try:
        return SprtConfig(**values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"bad --sprt: {exc}") from None


@dataclass(frozen=True)
class TournamentConfig:
    """Settings checked and parsed: what the runner uses."""

    settings: Settings
    specs: tuple[EngineSpec, ...]
    tc: TimeControl
    sprt: SprtConfig | None
    schedule: Schedule
    concurrency: int

    @property
    def total(self) -> int:
        """Games scheduled."""
        return len(self.schedule)

    @property
    def players(self) -> int:
        """Seats of every game (``--players``)."""
        return self.settings.players

    @property
    def ping(self) -> bool:
        return self.settings.ping

    @property
    def event(self) -> str:
        return self.settings.event

    @property
    def remote(self) -> frozenset[str]:
        """The names of the engines that are the server's remote bots (no program to start)."""
        return frozenset(self.settings.remote)

    @classmethod
    def from_settings(cls, settings: Settings) -> TournamentConfig:
        """Parse and check everything; raises ValueError with a one-line message."""
        if len(settings.engines) < 2:
            raise ValueError(f"a tournament needs at least 2 engines (--engine), got {len(settings.engines)}")
        check_event(settings.event)
        each = parse_engine_spec(settings.each, allow_partial=True) if settings.each.strip() else None
        remote = set(settings.remote)
        specs = [
            EngineSpec(name=text, argv=()) if text in remote else parse_engine_spec(text).with_defaults(each)
            for text in settings.engines
        ]
        names = [s.name for s in specs]
        seen: dict[str, int] = {}
        for i, name in enumerate(names):  # two copies of one engine get distinct names
            if names.count(name) > 1:
                seen[name] = seen.get(name, 0) + 1
                specs[i] = EngineSpec(**{**specs[i].__dict__, "name": f"{name}-{seen[name]}"})
        tc = parse_tc(settings.tc)
        sprt = parse_sprt(settings.sprt) if settings.sprt.strip() else None
        if sprt is not None and len(specs) != 2:
            raise ValueError("--sprt needs exactly two engines")
        players = settings.players
        if players not in PLAYER_COUNTS:
            raise ValueError(f"--players must be 2, 3 or 4, got {players}")
        if sprt is not None and players != 2:
            raise ValueError("--sprt is for two-seat tournaments")
        if settings.teams.strip() and players != 4:
            raise ValueError("--teams is for four-seat tournaments (--players 4)")
        teams = parse_teams(settings.teams, [s.name for s in specs]) if settings.teams.strip() else None
        matchups = parse_gods_list(settings.gods, players)
        paired = settings.openings == [BUNDLED]
        openings: tuple[str | None, ...] = tuple(settings.openings) or (None,)
        if paired:
            matchups, openings = bundled_conditions(None if matchups is DRAW else matchups, players)
        for opening in openings:
            if opening is not None and parse_sps(opening).nseats != players:
                raise ValueError(
                    f"opening {opening!r} has {parse_sps(opening).nseats} seats but the tournament plays {players} (--players)"
                )
        schedule = build_schedule(
            len(specs),
            fmt=settings.format,
            seeds=settings.seeds,
            rounds=settings.rounds,
            games=settings.games,
            matchups=matchups,
            openings=openings,
            order=settings.order,
            seed=settings.seed,
            players=players,
            teams=teams,
            paired=paired,
        )
        concurrency = settings.concurrency or os.cpu_count() or 1
        if concurrency < 1:
            raise ValueError(f"--concurrency must be at least 1, got {concurrency}")
        if settings.rating_interval < 1:
            raise ValueError("--rating-interval must be at least 1")
        return cls(settings, tuple(specs), tc, sprt, schedule, concurrency)


def save_settings(directory: Path, settings: Settings) -> None:
    """Write ``tournament.json`` atomically (temp file, fsync, rename)."""
    with atomic_file(directory / STATE_FILE) as f:
        f.write((json.dumps(settings.to_json(), indent=2) + "\n").encode("utf-8"))


def load_settings(directory: Path) -> Settings:
    """The settings saved in ``directory`` (for ``--resume``).

    Raises:
        ValueError: no saved settings there, or not readable as settings (one line).
    """
    path = directory / STATE_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"{directory} holds no tournament to resume (no {STATE_FILE})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    try:
        return Settings.from_json(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
