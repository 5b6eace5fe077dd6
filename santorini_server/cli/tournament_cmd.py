"""``santorini tournament``: the main job.  Many engines, many games, records, standings."""

from __future__ import annotations

import datetime
import os
import resource
import shlex
import sys
from pathlib import Path
from typing import Any

import click
import trio
from click.core import ParameterSource

from ..backends.dask_security import DaskTLS
from ..openings.suites import BUNDLED
from ..records import RecordError
from ..referee.iolog import make_io_log
from ..tournament.config import (
    MAX_GAMES,
    SETTING_NAMES,
    STATE_FILE,
    Settings,
    TournamentConfig,
    check_concurrency,
    check_event,
    load_settings,
    load_toml,
    read_openings,
    save_settings,
)
from ..tournament.output import ARCHIVE, RESULTS, SGN, TournamentFiles
from ..tournament.pool import ProcessPoolBackend, default_processes, local_backend, pin_to, usable_cpus
from ..tournament.report import config_info
from ..tournament.report_files import GAMES_DIR, REPORT, ReportWriter
from ..tournament.runner import Interrupted, run_tournament, seat_refusals, standings_block
from .dask_options import checked_address, checked_tls, dask_tls_options
from .options import Parsed, warn_time_controls

__all__ = ["tournament", "new_settings", "resume_conflicts"]

#: Settings of a bare ``santorini tournament``: a short round-robin of the bundled engines.
DEFAULT_ENGINES = ["random", "greedy", "alphabeta"]
DEFAULT_TC = "1+0.01"
DEFAULT_ROUNDS = 4
#: Parameters named otherwise than the setting they give (the rest share the setting's name).
PARAM_OF_SETTING = {"format": "fmt"}
#: Settings given by a flag of their own (``openings`` is a list; its flag reads a file).
FLAG_SETTINGS = tuple(name for name in SETTING_NAMES if name != "openings")
#: What may go with --resume: how to run the games, not which games.
RESUME_PARAMS = frozenset(
    {"resume_dir", "force_concurrency", "debug", "concurrency", "backend", "address", "processes", "affinity",
     "tls_ca_file", "tls_cert", "tls_key"}
)
#: What a tournament writes in its folder besides ``tournament.json``: a new tournament refuses a
#: folder holding any of them, as it would take their games for its own (the archive) or write
#: over them (the rest).
OUTPUT_NAMES = (ARCHIVE, SGN, RESULTS, REPORT, f"{GAMES_DIR}/")
#: ``--event``: what the records' ``Event`` tag may hold (the record layer's rule).
EVENT = Parsed("TEXT", check_event, ValueError)
#: File descriptors the referee holds per running engine: stdin, stdout, stderr, lifeline,
#: status pipe and a pidfd (process layer), with slack for the guard's start-up.
FDS_PER_ENGINE = 8


class _Console:
    """cutechess-style lines on stdout; on a terminal also a progress bar with ETA kept last."""

    def __init__(self) -> None:
        self.tty = sys.stdout.isatty()
        self.bar = ""

    def emit(self, line: str) -> None:
        if self.tty and self.bar:
            sys.stdout.write("\r\x1b[K")
        click.echo(line)
        if self.tty and self.bar:
            sys.stdout.write(self.bar)
            sys.stdout.flush()

    def progress(self, done: int, total: int, elapsed: float) -> None:
        if not self.tty:
            return
        width = 30
        filled = int(width * done / total) if total else width
        eta = elapsed / done * (total - done) if done else 0
        left = datetime.timedelta(seconds=int(eta))
        self.bar = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games, ETA {left}"
        sys.stdout.write("\r\x1b[K" + self.bar)
        sys.stdout.flush()

    def done(self) -> None:
        if self.tty and self.bar:
            sys.stdout.write("\r\x1b[K")
            sys.stdout.flush()
            self.bar = ""


DASK_MISSING = "--backend dask needs Dask: pip install 'santorini-server[dask]'"


def _dask_backend(config: TournamentConfig, address: str | None, tls: DaskTLS) -> Any:
    """The Dask backend, imported only when asked for (the core runs without Dask)."""
    try:
        from ..backends.dask_backend import DaskBackend
    except ImportError as exc:
        if (exc.name or "").split(".")[0] in ("dask", "distributed", "tornado", "cloudpickle", "toolz"):
            raise click.ClickException(DASK_MISSING) from None
        raise
    return DaskBackend(config, address, tls=tls)


def _what_runs_the_games(executor: object, address: str | None, cpus: list[int] | None = None) -> str:
    """The banner's words for the backend: this process, a pool of referee processes, a Dask
    local cluster, or a Dask scheduler elsewhere; with --affinity, the CPUs they are pinned to."""
    pinned = "" if not cpus else f", pinned to CPU{'s' if len(cpus) > 1 else ''} {', '.join(map(str, cpus))}"
    if isinstance(executor, ProcessPoolBackend):
        return f"games in {executor.processes} referee processes{pinned}"
    if executor is None:
        return f"games in this process{pinned}"
    return f"games on the Dask scheduler at {address}" if address else "games on a Dask local cluster"


def _backend_error(group: BaseExceptionGroup) -> str | None:
    """The message of a ``DaskBackendError`` inside ``group``, if that is what it holds."""
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            found = _backend_error(exc)
            if found is not None:
                return found
        elif type(exc).__name__ == "DaskBackendError":
            return str(exc)
    return None


def _check_limits(concurrency: int, force: bool, seats: int = 2) -> None:
    """Refuse a concurrency the file-descriptor or process limits cannot carry (fastchess does);
    a game runs an engine per seat."""
    need = concurrency * seats * FDS_PER_ENGINE + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and need > soft:
        if hard == resource.RLIM_INFINITY or need <= hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
        else:
            raise click.ClickException(
                f"--concurrency {concurrency} needs about {need} open files but the limit is {hard} (ulimit -n)"
            )
    nproc, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if nproc != resource.RLIM_INFINITY and concurrency * 2 * seats > nproc:
        raise click.ClickException(
            f"--concurrency {concurrency} needs about {concurrency * 2 * seats} processes; the limit is {nproc} (ulimit -u)"
        )
    if not force:
        try:
            check_concurrency(concurrency, os.cpu_count() or 1, "--force-concurrency")
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None


def _affinity_cpus(concurrency: int, processes: int | None, backend: str, debug: bool) -> list[int]:
    """The CPUs --affinity pins the games to, one each; or a one-line refusal."""
    if backend == "dask":
        raise click.ClickException("--affinity pins referee processes on this machine: it does not go with --backend dask")
    cpus = usable_cpus()
    if concurrency > len(cpus):
        raise click.ClickException(
            f"--affinity gives each game a CPU of its own: --concurrency {concurrency} is more than the "
            f"{len(cpus)} CPUs this process may use"
        )
    if processes is not None and processes != concurrency:
        raise click.ClickException(
            f"--affinity plays one game per referee process: leave out --processes (or give --processes {concurrency})"
        )
    if debug and concurrency > 1:
        raise click.ClickException("--debug logs from one referee process: with --affinity it needs --concurrency 1")
    return cpus[:concurrency]


def _refuse_undeclared_seats(config: TournamentConfig, debug: bool) -> None:
    """Three and four seats: start every engine once and refuse, before any game and with one
    line, an engine whose handshake did not declare the seat count (or that cannot start)."""
    refusals = trio.run(seat_refusals, config.specs, config.players, make_io_log() if debug else None)
    if refusals:
        raise click.ClickException(refusals[0] if len(refusals) == 1 else "; ".join(refusals))


def _refuse_occupied(directory: Path) -> None:
    """A new tournament's folder must hold none of a tournament's files (one line, nothing touched)."""
    if (directory / STATE_FILE).exists():
        raise click.ClickException(f"{directory} already holds a tournament: use --resume {directory}, or another --out")
    found = [name for name in OUTPUT_NAMES if os.path.lexists(directory / name)]
    if found:
        raise click.ClickException(
            f"{directory} already holds {', '.join(found)} but no {STATE_FILE} (records of another run): "
            "give another --out, or move them away"
        )


def _read_config(ctx: click.Context, param: click.Parameter, path: Path | None) -> dict[str, Any] | None:
    """``--config FILE``: the file's settings become the flags' defaults (``ctx.default_map``), so
    a flag given beats the file and the file beats the built-in default, by click's own rules."""
    if path is None:
        return None
    try:
        values = load_toml(path)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    params = {p.name: p for p in ctx.command.params}
    defaults = {}
    for name, value in values.items():
        if name not in FLAG_SETTINGS:
            continue
        flag = params[PARAM_OF_SETTING.get(name, name)]
        try:  # the flag's own checks (ranges, choices), reported against the file
            flag.type_cast_value(ctx, value)
        except click.BadParameter as exc:
            raise click.ClickException(f"{path}: {name}: {exc.message}") from None
        defaults[flag.name] = value
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return values


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the user set parameter ``name`` on the command line (not a default, not the file)."""
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def resume_conflicts(ctx: click.Context) -> list[str]:
    """The flags given with ``--resume`` that would change which games are played (refused)."""
    return [max(p.opts, key=len) for p in ctx.command.params
            if p.name is not None and p.name not in RESUME_PARAMS and _given(ctx, p.name)]


def new_settings(ctx: click.Context) -> Settings:
    """A new tournament's settings: each from its flag, else the ``--config`` file, else the default.

    With no engines anywhere, the bundled demo: its engines, and its short time control and
    rounds where neither a flag nor the file set them.

    Raises:
        ValueError: an unreadable ``--openings`` file (one line).
    """
    params = ctx.params
    values = {name: params[PARAM_OF_SETTING.get(name, name)] for name in FLAG_SETTINGS}
    settings = Settings(**{name: value for name, value in values.items() if value is not None})
    settings.engines = list(settings.engines)
    from_file = params["toml_settings"] or {}
    if params["openings_file"] == BUNDLED:
        settings.openings = [BUNDLED]  # expanded per gods list by the config (SPEC.md section 19.4)
    elif params["openings_file"] is not None:
        settings.openings = read_openings(Path(params["openings_file"]))
    elif "openings" in from_file:
        settings.openings = list(from_file["openings"])
    if settings.players != 2 and params["gods"] is None and "gods" not in from_file:
        settings.gods = "all"  # three and four seats need a god each: a seeded draw per set
    if not settings.engines:
        settings.engines = list(DEFAULT_ENGINES)
        if ctx.get_parameter_source("tc") is ParameterSource.DEFAULT:
            settings.tc = DEFAULT_TC
        if ctx.get_parameter_source("rounds") is ParameterSource.DEFAULT:
            settings.rounds = DEFAULT_ROUNDS
    return settings


@click.command()
@click.option("--engine", "-e", "engines", multiple=True, metavar="SPEC",
              help="An engine: a bundled name or a quoted spec (cmd=... name=... option.X=Y tc=... timemargin=MS). "
                   "Repeat.")
@click.option("--each", metavar="SPEC", help="Settings for every engine (option.X=Y tc=... timemargin=MS).")
@click.option("--config", "toml_settings", type=click.Path(dir_okay=False, path_type=Path), is_eager=True,
              callback=_read_config, help="A TOML file with the same settings (flags override it).")
@click.option("--format", "fmt", type=click.Choice(["round-robin", "gauntlet"]),
              help="Round-robin (default) or gauntlet: the first --seeds engines against the rest.")
@click.option("--seeds", type=click.IntRange(min=1), help="Gauntlet seeds (default 1).")
@click.option("--rounds", type=click.IntRange(1, MAX_GAMES), help="Rounds (default 1).")
@click.option("--players", type=click.IntRange(2, 4),
              help="Seats per game (default 2).  3: every group of three engines plays all 6 seat orders; "
                   "4: two teams, by default an engine in both seats of its team, sides swapped.")
@click.option("--teams", metavar="A+B,C+D",
              help="With --players 4: teams of two engines (names from the engine list); every team "
                   "plays every other, sides swapped.")
@click.option("--games", type=click.IntRange(2, MAX_GAMES),
              help="Games per encounter per round: even (colours swap in each pair; 4 players: sides), "
                   "a multiple of 6 with 3 players (every seat order).  Default: one set per gods x opening.")
@click.option("--gods",
              help="God matchups g1/g2[,g3/g4...] or 'all' (every ordered pair of different simple gods); "
                   "default mortal/mortal.  3 or 4 players: g1/g2/g3[/g4] lists (no mortal, no god twice) or "
                   "'all', the default: each set of games draws distinct gods from the eight, seeded by --seed.")
@click.option("--openings", "openings_file",
              help="File of SPS positions, one per line; each played twice with colours reversed.  'bundled': "
                   "each matchup's bundled suite (write ./bundled for a file of that name).")
@click.option("--order", type=click.Choice(["sequential", "random"]),
              help="Order of openings/matchups (random uses --seed).")
@click.option("--seed", type=int, help="Seed for --order random and for the gods of 3 and 4 players (default 0).")
@click.option("--concurrency", "-j", type=click.IntRange(min=1), help="Games at once (default: the number of cores).")
@click.option("--force-concurrency", is_flag=True, help="Allow more games at once than cores.")
@click.option("--tc",
              help="Time control: 60+0.5, 40/60+0, movetime=0.1, depth=6, nodes=N "
                   "(default 10+0.1; 1+0.01 for the bundled demo).")
@click.option("--sprt", metavar="'elo0=0 elo1=5 alpha=0.05 beta=0.05'",
              help="Two engines only: stop when a GSPRT bound on pentanomial pairs is crossed.")
@click.option("--rating-interval", type=click.IntRange(min=1), help="Print standings every N games (default 10).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for games.msgpack, games.sgn, results.jsonl, tournament.json, report.html and games/ "
                   "(default tournaments/<time>).")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Continue the interrupted tournament in this folder.")
@click.option("--ping", is_flag=True, help="isready before every go, off the clock.")
@click.option("--event", type=EVENT, help="Event tag of the records.")
@click.option("--debug", is_flag=True, help="Log every SEI line to stderr (JSON when not a terminal).")
@click.option("--backend", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Where games run: this process, or Dask workers (a local cluster, or --address).")
@click.option("--address", metavar="tcp://HOST:PORT",
              help="With --backend dask: the scheduler of `santorini scheduler` (tls://HOST:PORT with the --tls-* files).")
@click.option("--affinity", is_flag=True,
              help="Local backend: each game in a referee process of its own, pinned with its engines to one "
                   "CPU (like fastchess's -use-affinity): faster and steadier turns with fast engines.  Needs "
                   "--concurrency at most the CPUs; not for engines that search with several threads.")
@click.option("--processes", type=click.IntRange(min=1),
              help="Local backend: referee processes sharing the games (default: one per core, at most "
                   "--concurrency; 1 with --debug or when --concurrency exceeds the cores).")
@dask_tls_options
@click.pass_context
def tournament(
    ctx: click.Context,
    engines: tuple[str, ...],
    each: str | None,
    toml_settings: dict[str, Any] | None,
    fmt: str | None,
    seeds: int | None,
    rounds: int | None,
    players: int | None,
    teams: str | None,
    games: int | None,
    gods: str | None,
    openings_file: str | None,
    order: str | None,
    seed: int | None,
    concurrency: int | None,
    force_concurrency: bool,
    tc: str | None,
    sprt: str | None,
    rating_interval: int | None,
    out_dir: Path | None,
    resume_dir: Path | None,
    ping: bool,
    event: str | None,
    debug: bool,
    backend: str,
    processes: int | None,
    affinity: bool,
    address: str | None,
    tls: DaskTLS,
) -> None:
    """Run a tournament and print live results, standings and a crosstable.

    With no arguments: a short round-robin of the bundled engines (random, greedy, alphabeta).
    --players 3 or 4 plays games of three seats (every group of three engines in every seat
    order) or four (two teams); standings then rank by placings with Weng-Lin ratings.
    Every finished game is fsync'd to the output folder before it is counted; after Ctrl-C, a
    kill or a power cut, --resume DIR plays exactly the games that did not finish.

    \b
    Examples:
      santorini tournament
      santorini tournament -e alphabeta -e "cmd=./mybot name=Mine" --tc 5+0.05 --rounds 10
      santorini tournament -e alphabeta -e greedy --gods all --out runs/gods
      santorini tournament --players 3 -e alphabeta -e greedy -e random --tc 1+0.01
      santorini tournament --players 4 -e alphabeta -e greedy --gods apollo/atlas/pan/demeter
      santorini tournament --players 4 -e alphabeta -e greedy -e random -e "cmd=./mybot name=mine" \\
          --teams alphabeta+mine,greedy+random
      santorini tournament -e "cmd=./new name=new" -e "cmd=./base name=base" --sprt "elo0=0 elo1=10"
      santorini tournament --resume runs/gods
      santorini tournament --backend dask --address tcp://head:8786 -e alphabeta -e greedy
      santorini tournament --backend dask --address tls://head:8786 --tls-ca-file ca.pem \\
          --tls-cert me.pem --tls-key me.key -e alphabeta -e greedy
    """
    if address is not None and backend != "dask":
        raise click.UsageError("--address needs --backend dask")
    if tls.enabled and backend != "dask":
        raise click.UsageError("--tls-ca-file, --tls-cert and --tls-key need --backend dask")
    if address is not None:
        checked_address(tls, address)
    else:  # a local cluster: under these files when given
        checked_tls(tls)
    try:
        if resume_dir is not None:
            conflicts = resume_conflicts(ctx)
            if conflicts:
                raise click.UsageError(
                    f"--resume takes the settings from {resume_dir}; do not also give {', '.join(conflicts)}"
                )
            settings = load_settings(resume_dir)
            if concurrency:
                settings.concurrency = concurrency
            directory = resume_dir
        else:
            settings = new_settings(ctx)
            directory = out_dir or Path("tournaments") / datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            _refuse_occupied(directory)
        config = TournamentConfig.from_settings(settings)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    warn_time_controls(config.tc, *(spec.tc for spec in config.specs))
    if address is None:  # games on this machine: its limits and cores apply
        _check_limits(config.concurrency, force_concurrency, config.players)
        if config.players != 2:  # engines elsewhere are checked by the workers that run them
            _refuse_undeclared_seats(config, debug)
    cpus = _affinity_cpus(config.concurrency, processes, backend, debug) if affinity else None
    if backend == "dask":
        executor = _dask_backend(config, address, tls)
    elif cpus is not None:
        executor = local_backend(config, config.concurrency, cpus=cpus)
        if executor is None:  # one game: this process referees it, on the first CPU
            pin_to(cpus[0])
    else:
        executor = local_backend(config, processes or default_processes(config.concurrency, debug))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        save_settings(directory, settings)
    except OSError as exc:
        raise click.ClickException(f"cannot write to {directory}: {exc.strerror or exc}") from None
    console = _Console()
    files = TournamentFiles(directory)
    where = f"concurrency {config.concurrency}, {_what_runs_the_games(executor, address, cpus)}"
    seats = f", {config.players} seats a game" if config.players != 2 else ""
    click.echo(f"Tournament: {len(config.specs)} engines{seats}, {len(config.schedule)} games, tc {config.tc}, {where}; "
               f"records in {directory}")
    io_log = make_io_log() if debug else None
    try:
        try:
            report = ReportWriter(directory, config_info(config, directory.resolve().name), archive=directory / ARCHIVE)
            result = trio.run(lambda: run_tournament(config, files, backend=executor, emit=console.emit,
                                                     progress=console.progress, io_log=io_log, report=report))
        except KeyboardInterrupt:  # Ctrl-C before the run's own signal handling was in place
            raise Interrupted("SIGINT") from None
    except Interrupted as stop:
        console.done()
        click.echo(f"Interrupted ({stop.signame}): engines stopped, finished games saved in {directory}", err=True)
        flags = ["--backend", "dask", *(["--address", address] if address else []), *tls.cli_args()]  # ours are Dask's flags
        again = "" if backend != "dask" else " " + shlex.join(flags)
        click.echo(f"Resume with: santorini tournament --resume {directory}{again}", err=True)
        sys.exit(130 if stop.signame == "SIGINT" else 143)
    except (OSError, RecordError) as exc:
        raise click.ClickException(f"cannot write records in {directory}: {exc}") from None
    except BaseExceptionGroup as group:  # a backend's one-line failure (no scheduler, no workers...)
        reason = _backend_error(group)
        if reason is None:
            raise
        raise click.ClickException(reason) from None
    finally:
        files.close()
    console.done()
    standings = result.standings
    click.echo(standings_block(config, standings, final=True))
    if standings.seats == 2 and len(config.specs) > 2:
        click.echo(standings.crosstable(joint=True))
    if standings.seats == 2 and len(config.specs) == 2:
        names = [s.name for s in config.specs]
        click.echo(standings.score_line(names[0], names[1]))
    click.echo(f"Records: {directory / 'games.sgn'}, {directory / 'games.msgpack'}, {directory / 'results.jsonl'}")
    click.echo(f"Report: {directory / REPORT} (open it in a browser; every game is viewable from it)")
