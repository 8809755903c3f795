"""A Phoenician Sea Trader game at its first typed turn."""

from __future__ import annotations

from typing import Any

from games.models import Game
from games.play import orders
from tests.support.phases import open_phase


def phoenician(make_game: Any) -> tuple[Game, int]:
    """A Phoenician game at the first ship's start, then at its first turn (a one-seat phase)."""
    game = make_game(humans=2, engine="phoenician", seed=3)
    for _ in range(2):
        phase = open_phase(game)
        (seat,) = phase.prompts
        centre = phase.prompt_for(int(seat))["fields"][0]["choices"][0]["value"]  # type: ignore[index]
        orders.submit_order(game.seats.get(number=int(seat)), phase.number, {"centre": centre})
    phase = open_phase(game)
    assert game.state["step"] == "turn" and len(phase.prompts) == 1
    return game, int(next(iter(phase.prompts)))
