"""Earlier phases of a game, as a seat saw them then: the board in which the phase was decided, and the lines
the phase's resolution logged that this seat may read.

A phase row keeps no state, only the game keeps its current one; but an engine is pure and every resolution
is seeded (turns.phase_rng), so the state of phase N is rebuilt by replaying the game from its setup with
the orders stored for phases 1..N-1 (defaults included: a resolution stores them too). Each replayed phase
must have the name and the owed seats the stored phase has; if the engine's rules changed since the game
was played, the replay diverges there and that phase's board is reported as lost rather than drawn wrong.
What a seat is shown of a rebuilt state is the engine's `view` for that seat, as on the game page.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from games import words
from games.engines.base import ReadBack, State
from games.extensions import split_options
from games.models import Game, Order, Phase, phase_label
from games.play import turns


@dataclass(frozen=True)
class PastPhase:
    number: int
    name: str  # in the active language (Phase.label)


@dataclass(frozen=True)
class Replayed:
    """Phase `number` as it was decided: its state (None when the replay could not rebuild it) and the seats'
    orders in it."""

    number: int
    name: str
    state: State | None
    orders: dict[int, dict[str, Any]]


def past_phases(game: Game) -> list[PastPhase]:
    """The game's resolved phases, in order."""
    rows = Phase.objects.filter(game=game, status=Phase.Status.RESOLVED).order_by("number")
    return [
        PastPhase(number, phase_label(name, message))
        for number, name, message in rows.values_list("number", "name", "message")
    ]


def replay(game: Game, number: int) -> Replayed | None:
    """Resolved phase `number` of `game` rebuilt, or None if the game has no such resolved phase."""
    phases = list(
        Phase.objects.filter(game=game, number__lte=number, status=Phase.Status.RESOLVED)
        .order_by("number")
        .values_list("number", "name", "prompts", "message")
    )
    if not phases or phases[-1][0] != number:
        return None
    orders: dict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
    for phase_number, seat, data in Order.objects.filter(
        phase__game=game, phase__number__lte=number, phase__status=Phase.Status.RESOLVED
    ).values_list("phase__number", "seat__number", "data"):
        orders[phase_number][seat] = data
    engine = turns.engine_of(game)
    # As turns.create_game set the game up: the same engine options (the server's own, such as table talk's,
    # taken out first), seat count and seeded generator.
    engine_options, _ = split_options(game.options)
    state: State | None = engine.setup(game.seats.count(), engine_options, random.Random(f"{game.seed}:0"))
    for phase_number, name, prompts, _message in phases:
        assert state is not None
        if engine.phase_name(state) != name or sorted(engine.prompts(state)) != sorted(int(s) for s in prompts):
            state = None  # the rules changed since: this phase and those after it cannot be rebuilt
            break
        if phase_number == number:
            break
        state, _ = engine.resolve(state, orders[phase_number], turns.phase_rng(game, phase_number))
    return Replayed(number=number, name=phase_label(phases[-1][1], phases[-1][3]), state=state, orders=orders[number])


def read_back(game: Game, replayed: Replayed, seat: int) -> ReadBack | None:
    """`seat`'s own order in that phase, in the engine's words (None if it owed none, or the board is lost)."""
    order = replayed.orders.get(seat)
    if order is None or replayed.state is None:
        return None
    return words.read_back(turns.engine_of(game).read_back(replayed.state, seat, order))
