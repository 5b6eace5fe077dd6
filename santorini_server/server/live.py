"""The live hub: games as they are played, fanned out to the dashboard's WebSocket viewers
(SPEC.md section 17.3).

Theory of operation.  Every game the daemon plays has a :class:`GameFeed`, told of the game's
progress (:mod:`santorini_server.referee.progress`: its start, each turn, its end) as the referee
rules.  A game between local bots is refereed in a worker process (the tournament's process pool),
so that nothing the daemon does for its pages and viewers delays a turn; the worker sends the
progress over its wire, and the pool hands it to the feed (:meth:`LiveHub.feeds`).  A game with a
remote bot is refereed in the daemon, which holds the bot's connection; the referee's observer
calls the feed in the game's own task (:meth:`LiveHub.observer`).  The feed never awaits and
never blocks: a turn costs it two list appends; the turn's event (its position and marks in the
viewer's data layout, :mod:`santorini_server.viewer.model`) is built only while somebody watches
that game or the home page, and a viewer joining later gets it built then, in its snapshot.

A viewer follows one **topic**: ``home``, ``run:ID``, ``game:RUN-NUMBER`` or ``bot:NAME``.  Each
event is serialised to JSON *once*, then handed to every viewer of its topics with
``send_nowait`` on that viewer's bounded memory channel (:data:`VIEWER_QUEUE` messages): a viewer
whose queue is full is dropped at once (its channel closed; the WebSocket shell closes the
connection with :attr:`Viewer.dropped` as the reason), so a slow or vanished browser never slows a
game.  Subscribing puts the topic's snapshot first in the new viewer's queue, in the same
synchronous step that registers it, so no event falls between the two; every turn event carries
``seq`` (the turn's number in its game), so a client that sees a gap knows to reconnect.

A live game's key is ``RUN-NUMBER`` (its run's id and its number in the run), known from the
start: the store's id exists only once the game is indexed, and the ``recorded`` event announces
it.  The page ``/games/RUN-NUMBER`` stays valid after the game (it then shows the record).
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import trio

from ..records import TurnRecord
from ..referee.progress import Begin, Ending, Turn
from ..rules import Position
from ..tournament.schedule import ScheduledGame
from ..viewer.model import DEFAULT_DOME_BASE, LETTERS, annotation, position_data, seats_data, track_dome_bases
from ..viewer.svg import geometry

__all__ = ["LiveHub", "GameFeed", "Viewer", "VIEWER_QUEUE", "MAX_VIEWERS", "TOPIC_RE", "game_key", "BadTopic", "TooManyViewers"]

VIEWER_QUEUE = 256
"""Messages a viewer may have queued; one more and it is dropped.  A game sends one message a
turn to its viewers, so a browser would have to stall for hundreds of turns (minutes of play)."""
MAX_VIEWERS = 2000
"""Viewers connected at once; more are refused (each costs a queue and a socket)."""
RECENT_GAMES = 50
"""Finished games kept for the home page's snapshot until their record is indexed."""
TOPIC_RE = re.compile(r"home|run:[0-9]{1,9}|game:[0-9]{1,9}-[0-9]{1,9}|bot:[A-Za-z0-9_.-]{1,32}")
"""The topics a page may follow (a bot name as SPEC.md section 16.2 allows)."""


class BadTopic(ValueError):
    """A topic not of the forms :data:`TOPIC_RE` allows."""


class TooManyViewers(RuntimeError):
    """:data:`MAX_VIEWERS` are connected already."""


def game_key(run_id: int, number: int) -> str:
    """A game's key while it is live and after: ``RUN-NUMBER``."""
    return f"{run_id}-{number}"


@dataclass(eq=False)
class Viewer:
    """One WebSocket's subscription: its topic and its bounded queue of JSON texts."""

    topic: str
    send: trio.MemorySendChannel[str]
    receive: trio.MemoryReceiveChannel[str]
    dropped: str | None = None
    """Why the hub dropped this viewer (its queue is then closed), or None."""


@dataclass(eq=False)
class GameFeed:
    """One game as the hub sees it: the :class:`~santorini_server.referee.progress.GameSink` of
    that game, told of it by the referee's observer in this process or over a referee worker's
    wire (see the module docstring)."""

    hub: LiveHub
    run_id: int
    number: int
    key: str = ""
    names: tuple[str, ...] = ()
    gods: tuple[str, ...] = ()
    positions: list[Position] = field(default_factory=list)
    """The start, then the position after each turn, as far as the events built so far go."""
    turns: list[TurnRecord] = field(default_factory=list)
    stamps: list[tuple[float, list[int | None]]] = field(default_factory=list)
    """Per turn: the wall time of its ruling and every clock after it (ms)."""
    start_clocks: list[int | None] = field(default_factory=list)
    started_at: float = 0.0
    over_event: dict[str, Any] | None = None
    _entries: list[dict[str, Any]] = field(default_factory=list)
    _views: list[dict[str, Any]] = field(default_factory=list)
    _base: list[int] = field(default_factory=lambda: [DEFAULT_DOME_BASE] * 25)

    # --- GameSink ---------------------------------------------------------------------------

    def begin(self, event: Begin) -> None:
        self.key = game_key(self.run_id, self.number)
        self.names = tuple(event.names)
        start = Position.from_sps(event.start)
        self.gods = tuple(start.gods)
        self.positions.append(start)
        self.start_clocks = event.clocks
        self.started_at = event.t
        self.hub._game_started(self)

    def turn(self, event: Turn) -> None:
        self.turns.append(event.record)
        self.stamps.append((event.t, event.clocks))
        if self.hub.watched(self):
            self.hub._publish(self.hub.game_topics(self, turns=True), functools.partial(self.turn_event, len(self.stamps)))

    def end(self, event: Ending) -> None:
        self.over_event = {
            "type": "over", "game": self.key, "run": self.run_id, "number": self.number,
            "result": event.result, "termination": event.termination, "detail": event.detail,
            "turns": event.turns, "words": event.words, "t": event.t,
        }
        self.hub._game_over(self)

    # --- the events -------------------------------------------------------------------------

    @property
    def clocks(self) -> list[int | None]:
        """Every clock now (ms)."""
        return self.stamps[-1][1] if self.stamps else self.start_clocks

    @property
    def seq(self) -> int:
        """Turns played so far."""
        return len(self.stamps)

    def _catch_up(self, upto: int) -> None:
        """Build the viewer's data of turns ``len(_entries)+1 .. upto`` (in order: dome bases carry over)."""
        if not self._views:
            self._views.append(position_data(self.positions[0], self._base))
        while len(self._entries) < upto:
            k = len(self._entries)  # the turn's index from 0
            before = self.positions[k]
            record = self.turns[k]
            transition = before.play(record.turn)
            track_dome_bases(self._base, before, transition)
            seat = before.player
            first = min(s for s in range(1, len(self.names) + 1) if not before.eliminated >> (s - 1) & 1)
            entry: dict[str, Any] = {
                "s": transition.stn, "l": f"{before.turn}{'.' if seat == first else '...'}", "seat": seat,
                "a": annotation(before, transition),
            }
            clocks = self.stamps[k][1]
            for name, value in (("ms", record.time_ms), ("clock", clocks[seat - 1]), ("score", record.score),
                                ("depth", record.depth), ("nodes", record.nodes)):
                if value is not None:
                    entry[name] = value
            if transition.win:
                entry["win"] = transition.termination
            self._entries.append(entry)
            self.positions.append(transition.position)
            self._views.append(position_data(transition.position, self._base))

    def _to_move(self, k: int) -> int:
        """The seat (1-based) to move after ``k`` turns; 0 once the game is over."""
        if self.over_event is not None and k == self.seq:
            return 0
        return self.positions[k].player

    def turn_event(self, k: int) -> dict[str, Any]:
        """The event of turn ``k`` (from 1)."""
        self._catch_up(k)
        wall, clocks = self.stamps[k - 1]
        return {
            "type": "turn", "game": self.key, "seq": k, "stn": self._entries[k - 1]["s"],
            "sps": self.positions[k].sps(), "turn": self._entries[k - 1], "p": self._views[k],
            "clocks": clocks, "to_move": self._to_move(k), "t": wall,
        }

    def summary(self) -> dict[str, Any]:
        """What the home, run and bot pages show of a live game: its players and latest position."""
        self._catch_up(self.seq)
        return {
            "game": self.key, "run": self.run_id, "number": self.number,
            "seats": [{"name": n, "god": g} for n, g in zip(self.names, self.gods, strict=True)],
            "letters": list(LETTERS[len(self.names)]), "seq": self.seq, "p": self._views[-1],
            "over": self.over_event,
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything a viewer joining now needs (SPEC.md section 17.3, ``snapshot``)."""
        self._catch_up(self.seq)
        now = self.hub.clock()
        since = self.stamps[-1][0] if self.stamps else self.started_at
        return {
            "game": self.key, "run": self.run_id, "number": self.number, "nseats": len(self.names),
            "seats": seats_data(self.names, self.gods), "letters": list(LETTERS[len(self.names)]),
            "start": self.positions[0].sps(), "sps": self.positions[-1].sps(),
            "p": list(self._views), "t": list(self._entries), "seq": self.seq,
            "clocks": self.clocks, "to_move": self._to_move(self.seq),
            "elapsed_ms": round((now - since) * 1000), "over": self.over_event,
        }


class LiveHub:
    """The daemon's live games and their viewers (see the module docstring).

    Args:
        queue: each viewer's queue bound (messages).
        clock: the wall clock events are stamped with (``time.time``: the browser compares it
            with its own ``performance.timeOrigin + performance.now()`` on the same machine).
    """

    def __init__(
        self, *, queue: int = VIEWER_QUEUE, max_viewers: int = MAX_VIEWERS, clock: Callable[[], float] = time.time
    ) -> None:
        self.queue = queue
        self.max_viewers = max_viewers
        self.clock = clock
        self.games: dict[str, GameFeed] = {}
        """Games being played, and finished ones not yet indexed, by key."""
        self._topics: dict[str, set[Viewer]] = {}
        self._viewers = 0
        self.dropped = 0
        """Viewers dropped for a full queue since the start."""
        self._pending: deque[tuple[tuple[Viewer, ...], dict[str, Any] | Callable[[], dict[str, Any]]]] = deque()
        self._wake: trio.Event | None = None
        """Set to wake :meth:`run`; None while it is not running."""

    # --- viewers ----------------------------------------------------------------------------

    def subscribe(self, topic: str) -> Viewer:
        """A new viewer of ``topic``, its snapshot already queued.

        Raises:
            BadTopic: ``topic`` is not one of :data:`TOPIC_RE`'s forms.
            TooManyViewers: :attr:`max_viewers` are connected.
        """
        if TOPIC_RE.fullmatch(topic) is None:
            raise BadTopic(f"bad topic {topic[:80]!r}: home, run:ID, game:RUN-NUMBER or bot:NAME")
        if self._viewers >= self.max_viewers:
            raise TooManyViewers(f"{self.max_viewers} viewers are connected already")
        send, receive = trio.open_memory_channel[str](self.queue)
        viewer = Viewer(topic, send, receive)
        send.send_nowait(json.dumps(self._snapshot(topic), separators=(",", ":")))
        self._topics.setdefault(topic, set()).add(viewer)
        self._viewers += 1
        return viewer

    def unsubscribe(self, viewer: Viewer) -> None:
        """Forget ``viewer`` (its WebSocket closed); twice is harmless."""
        viewers = self._topics.get(viewer.topic)
        if viewers is not None and viewer in viewers:
            viewers.discard(viewer)
            self._viewers -= 1
            if not viewers:
                del self._topics[viewer.topic]
        viewer.send.close()

    def viewers(self, topic: str | None = None) -> int:
        """How many viewers follow ``topic`` (all topics: None)."""
        return self._viewers if topic is None else len(self._topics.get(topic, ()))

    def _drop(self, viewer: Viewer, reason: str) -> None:
        viewer.dropped = reason
        self.dropped += 1
        self.unsubscribe(viewer)

    def _publish(self, topics: Iterable[str], event: dict[str, Any] | Callable[[], dict[str, Any]]) -> None:
        """Queue ``event`` (or what ``event()`` builds) for every viewer of ``topics``; never blocks.

        With :meth:`run` going, this only notes who the viewers are now and wakes the fan-out
        task: the game's task pays a few microseconds whatever the number of viewers, and the
        event is built, serialised and queued after the game has asked its next engine.  Without
        it (a hub used outside the daemon), the event goes out at once."""
        recipients: tuple[Viewer, ...] = ()
        for topic in topics:
            viewers = self._topics.get(topic)
            if viewers:
                recipients += tuple(viewers)
        if not recipients:
            return
        if self._wake is None:
            self._deliver(recipients, event)
            return
        self._pending.append((recipients, event))
        self._wake.set()

    def _deliver(self, recipients: tuple[Viewer, ...], event: dict[str, Any] | Callable[[], dict[str, Any]]) -> None:
        """Serialise ``event`` once and put it in each of ``recipients``' queues."""
        text = json.dumps(event if isinstance(event, dict) else event(), separators=(",", ":"))
        for viewer in recipients:
            try:
                viewer.send.send_nowait(text)
            except trio.WouldBlock:
                self._drop(viewer, f"too slow: {self.queue} messages queued")
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self.unsubscribe(viewer)

    async def run(self) -> None:
        """The fan-out task (the daemon runs it in its nursery): delivers what :meth:`_publish`
        queued, in order, one event per scheduler pass, until cancelled."""
        try:
            while True:
                self._wake = trio.Event()
                while self._pending:
                    recipients, event = self._pending.popleft()
                    self._deliver(recipients, event)
                    await trio.lowlevel.checkpoint()
                await self._wake.wait()
        finally:
            self._wake = None
            self._pending.clear()

    # --- topics -----------------------------------------------------------------------------

    def game_topics(self, feed: GameFeed, *, turns: bool = False) -> list[str]:
        """Who hears of ``feed``: its own page and the home page, and for the game's start, end
        and indexing (not each turn) its run's page and its players' pages."""
        topics = [f"game:{feed.key}", "home"]
        if not turns:
            topics.append(f"run:{feed.run_id}")
            topics.extend(f"bot:{name}" for name in feed.names)
        return topics

    def watched(self, feed: GameFeed) -> bool:
        """Whether anybody hears of ``feed``'s turns (only then is a turn's event built)."""
        return bool(self._topics.get(f"game:{feed.key}") or self._topics.get("home"))

    def _snapshot(self, topic: str) -> dict[str, Any]:
        event: dict[str, Any] = {"type": "snapshot", "topic": topic, "t": self.clock()}
        kind, _, name = topic.partition(":")
        if kind == "game":
            feed = self.games.get(name)
            event["game"] = feed.snapshot() if feed is not None else None
        else:
            feeds = [f for f in self.games.values() if kind == "home" or (kind == "run" and str(f.run_id) == name)
                     or (kind == "bot" and name.lower() in (n.lower() for n in f.names))]
            event["games"] = [f.summary() for f in feeds]
            event["geometry"] = geometry()  # for the small boards (viewer.js draws them)
        return event

    # --- games (called by the feeds and the run scheduler) ----------------------------------

    def feeds(self, run_id: int) -> Callable[[ScheduledGame], GameFeed]:
        """The feed of each game of run ``run_id``, wherever it is refereed (this process or a pool)."""
        return lambda game: self.feed(run_id, game.number)

    def feed(self, run_id: int, number: int) -> GameFeed:
        """The feed of game ``number`` of run ``run_id``."""
        return GameFeed(self, run_id, number)

    def _game_started(self, feed: GameFeed) -> None:
        self.games[feed.key] = feed
        if len(self.games) > RECENT_GAMES:  # finished games whose indexing never came (a drain)
            for key in [k for k, f in self.games.items() if f.over_event is not None][: len(self.games) - RECENT_GAMES]:
                del self.games[key]
        self._publish(self.game_topics(feed), {"type": "started", **feed.summary(), "t": feed.started_at})

    def _game_over(self, feed: GameFeed) -> None:
        assert feed.over_event is not None
        self._publish(self.game_topics(feed), feed.over_event)

    def abandoned(self, run_id: int, number: int) -> None:
        """A game was cancelled (a drain, a cancelled run): it is not live any more and will not be recorded."""
        feed = self.games.pop(game_key(run_id, number), None)
        if feed is not None and feed.over_event is None:
            self._publish(self.game_topics(feed), {"type": "abandoned", "game": feed.key, "run": run_id, "number": number})

    def run_ended(self, run_id: int) -> None:
        """A run stopped (finished, cancelled, drained): its games still live were abandoned."""
        for feed in [f for f in self.games.values() if f.run_id == run_id and f.over_event is None]:
            self.abandoned(run_id, feed.number)

    def recorded(self, run_id: int, number: int, game_id: int | None) -> None:
        """A finished game is in its run's archive and indexed as ``game_id``: its page now shows the record."""
        key = game_key(run_id, number)
        feed = self.games.pop(key, None)
        topics = self.game_topics(feed) if feed is not None else [f"game:{key}", "home", f"run:{run_id}"]
        self._publish(topics, {"type": "recorded", "game": key, "run": run_id, "number": number, "id": game_id})

    def run_changed(self, run_id: int, state: str, games: int | None = None, total: int | None = None) -> None:
        """A run changed state or progressed (``games`` of ``total`` played)."""
        self._publish(["home", f"run:{run_id}"], {"type": "run", "run": run_id, "state": state, "games": games, "total": total})
