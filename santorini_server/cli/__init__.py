"""The ``santorini`` command line: a click group whose subcommands load on first use.

``santorini --help`` must start fast (issue 2: under 0.3 s), so the group only knows each
command's module and one-line help; the module (and trio, the rules tables...) is imported only
when that command runs.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

__all__ = ["main"]

#: name -> (module under santorini_server.cli, attribute, one-line help)
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "legal": ("rules_cmds", "legal", "List the legal turns of positions (SPS), optionally as JSON."),
    "perft": ("rules_cmds", "perft", "Count move-tree leaves of a position, or check a perft suite."),
    "show": ("rules_cmds", "show", "Draw a position (SPS) in the terminal."),
    "match": ("match_cmd", "match", "Play games between two engines and print the score."),
    "check": ("check_cmd", "check", "Test an engine's SEI compliance, one line per check."),
    "replay": ("replay_cmd", "replay", "List, check or replay the games of an SGN file or msgpack archive."),
    "report": ("report_cmd", "report", "Write report.html (standings, chart, every game viewable) for records."),
    "analyse": ("analyse_cmd", "analyse", "Score every turn of recorded games with an engine; write them annotated."),
    "convert": ("replay_cmd", "convert", "Convert game records between SGN and msgpack, losslessly."),
    "play": ("play_cmd", "play", "Play an engine yourself, in the terminal."),
    "tournament": ("tournament_cmd", "tournament", "Run a tournament (no arguments: the bundled engines)."),
    "scheduler": ("dask_cmds", "scheduler", "Run the Dask scheduler for tournaments over several machines."),
    "worker": ("dask_cmds", "worker", "Offer this machine's engines to a scheduler (a Dask worker)."),
    "connect": ("connect_cmd", "connect", "Play a local engine on a server through its bot port (remote bot)."),
    "bot": ("bot_cmd", "bot", "Register, list, revoke and remove the bots of a server (santorini serve)."),
    "backup": ("backup_cmd", "backup", "Copy a server's database and record files, safely while it runs."),
    "serve": ("serve_cmd", "serve", "Run the server: job API, bot port and runs, until SIGTERM or Ctrl-C."),
    "submit": ("client_cmds", "submit", "Submit a match or tournament (a TOML settings file) to a server."),
    "runs": ("client_cmds", "runs", "List a server's runs and their states."),
    "cancel": ("client_cmds", "cancel", "Cancel a queued or running run on a server."),
    "adapter": ("adapter_cmd", "adapter", "Run an existing engine (cpp-santorini, AlphaZero...) as an SEI engine."),
    "stats": ("stats_cmd", "stats", "Statistics of a records file: the god matrix and ratings (--gods)."),
    "openings": ("openings_cmd", "openings", "Make an opening suite (balanced starts, distinct under symmetry)."),
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(f"{__name__}.{entry[0]}")
        command: click.Command = getattr(module, entry[1])
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, _COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="santorini-server", prog_name="santorini")
def main(**_: Any) -> None:
    """Santorini engine-tournament referee.

    Runs SEI engines against each other under the authoritative rules of santorini-base-v1 and
    santorini-simple-gods-v1, and answers rules questions for engine authors.
    """
    _configure_logging()


def _configure_logging() -> None:
    """Warnings (an engine that had to be killed, ...) go to stderr, never into the result
    lines on stdout that tools parse; readable on a terminal, JSON Lines otherwise."""
    import sys

    import structlog

    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=True) if sys.stderr.isatty() else structlog.processors.JSONRenderer()
    )
    from ..server.redact import redact_secrets

    structlog.configure(
        processors=[
            redact_secrets,  # a token passed to a logger by accident never reaches stderr
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
