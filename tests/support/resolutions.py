"""Whole games resolved one phase at a time with their statements counted: what an app's idle cost is measured by
(tests/hooks/test_idle.py, tests/votes/test_idle.py)."""

from __future__ import annotations

import random

from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import Game, Order, Phase
from games.play import turns


def table(name: str, engine: str, seed: int = 7) -> Game:
    """A game of three players named after `name`."""
    players = [turns.player_for(f"{name}{n}@example.com", f"{name} {n}") for n in range(3)]
    return turns.create_game(engine, players, seed=seed)


def orders_in(game: Game, rng: random.Random) -> Phase | None:
    """Every owed order of the game's open phase written (no resolution asked for); the phase, or None at the end."""
    game.refresh_from_db()
    phase = turns.current_phase(game)
    if phase is None:
        return None
    engine = turns.engine_of(game)
    for seat in game.seats.filter(number__in=phase.owed_seats):
        order = engine.validate(game.state, seat.number, engine.random_order(game.state, seat.number, rng))
        Order.objects.create(phase=phase, seat=seat, data=order)
    return phase


def resolved(phase: Phase) -> int:
    """Resolves the phase; how many SQL statements that took."""
    with CaptureQueriesContext(connection) as seen:
        assert turns.resolve_phase(phase.pk)
    return len(seen.captured_queries)
