"""santorini-ai's notations next to ours: its FEN against SPS, its actions against STN (SPEC.md 20.2).

Pure (no I/O): the adapter, its fake engine in the tests and ``tools/rules_diff.py`` share it.

* **FEN** (``game_state_to_fen`` in santorini-ai's ``fen.rs``): ``HEIGHTS/SIDE/P1/P2``; ``HEIGHTS``
  is 25 digits in the SPS board's order (a5, b5, ... e1; ``4`` a dome whatever stands under it, as
  in SPS), ``SIDE`` is ``1`` or ``2``, a player is ``[#]god[data][:SQ,SQ]`` with uppercase squares
  in that same index order (no colon before placement), ``#`` marking the winner; Athena's data
  ``[^]`` says she moved up on her last turn.  No turn counter: :func:`position_of_fen` takes one.
* **Actions** (``PartialAction``, serde ``{"type": ..., "value": ...}``): ``place_worker SQ`` twice for
  a placement; ``select_worker SQ`` then ``move_worker {"dest": SQ, "meta": ...}`` (``meta`` names
  the displaced opponent for Apollo and the Minotaur); ``build SQ``, ``dome SQ`` after a build
  for Atlas' low dome; a build before the first selection is Prometheus' pre-build, a lone build is
  Hermes moving nobody; ``no_moves`` when the side has lost.  A winning climb has no build.  An
  Artemis turn is one ``move_worker`` to her *final* square: the path is not written, so
  :func:`turn_of_actions` finds it in our rules (the single step first).
* :func:`action_key` reduces a turn to what both notations say alike, so legal-turn sets compare:
  the pre-build, the squares the mover's workers left and reached, the builds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import Position, parse_square, parse_stn, square_name
from ..rules.movegen import generate
from ..rules.squares import NEIGHBOURS, PUSH_TARGET, scan
from ..rules.stn import first_step_masks

__all__ = [
    "GODS",
    "FenState",
    "fen_of",
    "parse_fen",
    "position_of_fen",
    "turn_of_actions",
    "actions_of_turn",
    "action_key",
    "turn_key",
    "state_key",
]

#: Every god of ours santorini-ai plays, in SPS spelling (its names are the same, lowercase).
GODS: tuple[str, ...] = (
    "mortal", "apollo", "artemis", "athena", "atlas", "demeter", "hephaestus", "hermes", "minotaur", "pan",
    "prometheus",
)  # fmt: skip

Action = Mapping[str, Any]


@dataclass(frozen=True)
class FenState:
    """A FEN read field by field (squares are ours: 0-24 from a5)."""

    levels: tuple[int, ...]
    """25 levels, ``4`` a dome."""
    side: int
    """0 or 1: the player to move."""
    gods: tuple[str, str]
    workers: tuple[tuple[int, ...], tuple[int, ...]]
    athena_up: tuple[bool, bool]
    winner: int | None


def fen_of(position: Position) -> str:
    """The FEN of a two-seat position (placement included: a side not placed has no colon)."""
    heights = "".join(str(position.level(sq)) for sq in range(25))
    parts = [heights, str(position.to_move + 1)]
    for seat, god in enumerate(position.gods):
        text = god + ("[^]" if god == "athena" and position.athena_up else "")
        squares = [square_name(sq).upper() for sq in scan(position.workers[seat])]
        parts.append(text + (":" + ",".join(squares) if squares else ""))
    return "/".join(parts)


def parse_fen(text: str) -> FenState:
    """Read a FEN.  Raises ValueError (one line quoting it) when it is not one."""
    sections = text.strip().split("/")
    if len(sections) != 4 or len(sections[0]) != 25 or not all(c in "01234" for c in sections[0]):
        raise ValueError(f"not a santorini-ai FEN: {text!r} (expected 25 heights/side/player/player)")
    if sections[1] not in ("1", "2"):
        raise ValueError(f"not a santorini-ai FEN: {text!r} (the side to move is 1 or 2)")
    gods: list[str] = []
    workers: list[tuple[int, ...]] = []
    ups: list[bool] = []
    winner = None
    for seat, section in enumerate(sections[2:]):
        head, _, squares = section.partition(":")
        if head.startswith("#"):
            winner, head = seat, head[1:]
        head = head.lstrip("-")  # an old spelling of the mover being bound by Athena
        name, _, data = head.partition("[")
        if name not in GODS:
            raise ValueError(f"not a santorini-ai FEN: {text!r} (god {name!r} is none of {', '.join(GODS)})")
        gods.append(name)
        ups.append(data.rstrip("]") == "^")
        try:
            workers.append(tuple(parse_square(s.lower()) for s in squares.split(",") if s))
        except ValueError:
            raise ValueError(f"not a santorini-ai FEN: {text!r} (bad worker square in {section!r})") from None
    return FenState(
        tuple(int(c) for c in sections[0]),
        int(sections[1]) - 1,
        (gods[0], gods[1]),
        (workers[0], workers[1]),
        (ups[0], ups[1]),
        winner,
    )


def position_of_fen(text: str, turn: int = 1) -> Position:
    """Our position of a FEN (``turn`` is SPS' counter, which the FEN lacks).  Athena's ``[^]``
    counts only while her opponent is to move, as in SPS.  Raises ValueError for what is not a
    valid position of ours (a winner mark included)."""
    state = parse_fen(text)
    if state.winner is not None:
        raise ValueError(f"the game of {text!r} is over")
    heights = {sq: level for sq, level in enumerate(state.levels) if level < 4}
    domes = sum(1 << sq for sq, level in enumerate(state.levels) if level == 4)
    masks = tuple(sum(1 << sq for sq in side) for side in state.workers)
    pairs = enumerate(zip(state.gods, state.athena_up, strict=True))
    athena_up = any(up and god == "athena" and seat != state.side for seat, (god, up) in pairs)
    return Position(
        gods=state.gods,
        heights=heights,
        domes=domes,
        workers=masks,
        to_move=state.side,
        turn=turn,
        athena_up=athena_up and all(masks),
    )


def _square(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"not a square: {value!r}")
    name = value.lower()
    parse_square(name)  # raises NotationError (a ValueError) for what is not one
    return name


@dataclass
class _Parts:
    place: list[str]
    pre: str | None
    moves: list[tuple[str, str, bool]]  # (from, to, displaces an opponent)
    builds: list[tuple[str, bool]]  # (square, dome)


def _parts(actions: Sequence[Action]) -> _Parts:
    """The actions of one turn, grouped; raises ValueError for an unknown or misplaced action."""
    parts = _Parts([], None, [], [])
    selected: str | None = None
    for action in actions:
        kind = action.get("type") if isinstance(action, Mapping) else None
        value = action.get("value") if isinstance(action, Mapping) else None
        if kind == "place_worker":
            parts.place.append(_square(value))
        elif kind == "select_worker":
            selected = _square(value)
        elif kind == "move_worker":
            if selected is None or not isinstance(value, Mapping):
                raise ValueError(f"a move with no selected worker: {action!r}")
            dest = _square(value.get("dest"))
            parts.moves.append((selected, dest, value.get("meta") is not None))
            selected = dest
        elif kind == "build":
            square = _square(value)
            if selected is None and not parts.moves and parts.pre is None and not parts.builds:
                parts.pre = square  # before any selection: Prometheus' pre-build (or Hermes' lone build)
            else:
                parts.builds.append((square, False))
        elif kind == "dome":
            square = _square(value)
            if parts.builds and parts.builds[-1][0] == square and not parts.builds[-1][1]:
                parts.builds[-1] = (square, True)  # Atlas: a build, then the dome on it
            else:
                parts.builds.append((square, True))
        elif kind == "no_moves":
            raise ValueError("santorini-ai reports no move (the side to move has lost)")
        elif kind != "end_turn":
            raise ValueError(f"an action santorini-ai plays only for gods we do not have: {action!r}")
    if parts.pre is not None and not parts.moves:  # a build and nobody moved: Hermes' `+sq`
        parts.builds.insert(0, (parts.pre, False))
        parts.pre = None
    return parts


def _build_text(position: Position, builds: Iterable[tuple[str, bool]]) -> str:
    # a dome on level 3 is the ordinary build (SPEC.md section 3.2)
    return "".join(f"+{sq}" + ("D" if dome and position.level(parse_square(sq)) < 3 else "") for sq, dome in builds)


def turn_of_actions(position: Position, actions: Sequence[Action]) -> str:
    """Our STN spelling of santorini-ai's ``actions`` in ``position`` (not checked: the caller
    plays it).  An Artemis move names only her final square: the first legal of the single step
    and the two-step paths through each common neighbour (in canonical order) is taken, and with
    none legal the single step is spelled.  Raises ValueError for actions that are no turn
    (``no_moves`` included)."""
    parts = _parts(actions)
    if parts.place:
        if len(parts.place) != 2 or parts.moves or parts.builds:
            raise ValueError(f"a placement is two place_worker actions, got {list(actions)!r}")
        return ",".join(sorted(parts.place))
    builds = _build_text(position, parts.builds)
    moved = [(frm, to, x) for frm, to, x in parts.moves if frm != to]
    if not moved:
        if not builds:
            raise ValueError(f"no move and no build: {list(actions)!r}")
        return builds
    pre = f"+{parts.pre}" if parts.pre else ""
    if len(moved) == 2:  # Hermes moving both workers: our endpoint label (the rules core normalises it)
        (f1, t1, _), (f2, t2, _) = moved
        return f"{pre}{f1}-{t1},{f2}-{t2}{builds}"
    if len(moved) > 2:
        raise ValueError(f"more than two moves in one turn: {list(actions)!r}")
    frm, to, displaces = moved[0]
    single = f"{pre}{frm}{'x' if displaces else '-'}{to}{builds}"
    if position.gods[position.to_move] != "artemis":
        return single
    adjacent = NEIGHBOURS[parse_square(frm)] >> parse_square(to) & 1
    paths = [f"{frm}-{square_name(mid)}-{to}{builds}" for mid in _between(frm, to)]
    for text in [single, *paths] if adjacent else paths:
        if _is_legal(position, text):
            return text
    return single


def _is_legal(position: Position, canonical: str) -> bool:
    """Whether canonical STN ``canonical`` is legal, without the reason a refusal would carry
    (``Position.play`` words one, at a cost of up to milliseconds: an Artemis move tries several)."""
    masks = first_step_masks(position, canonical)
    return masks is not None and any(raw.stn == canonical for raw in generate(position, *masks))


def _between(frm: str, to: str) -> list[int]:
    a, b = parse_square(frm), parse_square(to)
    common = list(scan(NEIGHBOURS[a] & NEIGHBOURS[b]))
    return sorted(common, key=square_name)


def actions_of_turn(position: Position, stn: str) -> list[dict[str, Any]]:
    """santorini-ai's actions for our legal turn ``stn`` (one spelling of the several it may list:
    the first move and build first).  Raises NotationError for text that is not STN."""
    turn = parse_stn(stn)

    def sq(name: str) -> str:
        return name.upper()

    if turn.place:
        return [{"type": "place_worker", "value": sq(s)} for s in turn.place]
    out: list[dict[str, Any]] = []
    if turn.pre:
        out.append({"type": "build", "value": sq(turn.pre)})
    if turn.frm and turn.to:
        dest = turn.to2 or turn.to
        meta = None
        if turn.op == "x":
            frm, to = parse_square(turn.frm), parse_square(turn.to)
            god = position.gods[position.to_move]
            pushed = frm if god == "apollo" else PUSH_TARGET[(frm, to)]
            meta = {"type": "move_enemy_worker", "value": {"from": sq(turn.to), "to": sq(square_name(pushed))}}
        out.append({"type": "select_worker", "value": sq(turn.frm)})
        out.append({"type": "move_worker", "value": {"dest": sq(dest), "meta": meta}})
        if turn.frm_b and turn.to_b:
            out.append({"type": "select_worker", "value": sq(turn.frm_b)})
            out.append({"type": "move_worker", "value": {"dest": sq(turn.to_b), "meta": None}})
    for square, dome in turn.builds:
        out.append({"type": "build", "value": sq(square)})
        if dome:
            out.append({"type": "dome", "value": sq(square)})
    return out


def action_key(position: Position, actions: Sequence[Action]) -> str:
    """What a turn does, in terms both notations share: ``pre|left|reached|builds`` (squares the
    mover's workers left and reached, net of a Hermes worker ending on its partner's start; builds
    sorted, ``D`` only below level 3).  Artemis' path and the order of Demeter's builds or of
    Hermes' moves are not in it.  Raises ValueError as :func:`turn_of_actions`."""
    parts = _parts(actions)
    if parts.place:
        return "place " + ",".join(sorted(parts.place))
    before = Counter(square_name(sq) for sq in scan(position.workers[position.to_move]))
    after = before.copy()
    for frm, to, _ in parts.moves:
        after[frm] -= 1
        after[to] += 1
    left = sorted((before - after).elements())
    reached = sorted((after - before).elements())
    builds = sorted(_build_text(position, [b]) for b in parts.builds)
    return "|".join([parts.pre or "", ",".join(left), ",".join(reached), "".join(builds)])


def turn_key(position: Position, stn: str) -> str:
    """:func:`action_key` of our turn ``stn``."""
    return action_key(position, actions_of_turn(position, stn))


def state_key(fen: str, mover: int) -> str:
    """A FEN reduced to what a turn decides: levels, workers, the winner, and Athena's ``[^]`` when
    she is the one who moved and the game goes on (santorini-ai keeps it on the board after her
    opponent's turn too, and leaves it off after her winning climb; SPS drops it in the first case
    and sets it in the second; neither changes what is legal)."""
    state = parse_fen(fen)
    up = "^" if state.gods[mover] == "athena" and state.athena_up[mover] and state.winner is None else ""
    sides = ["-".join(map(str, sorted(side))) for side in state.workers]
    return f"{''.join(map(str, state.levels))}/{sides[0]}/{sides[1]}/{state.winner}{up}"
