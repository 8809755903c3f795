"""Manila's order form posted as a page posts it."""

from __future__ import annotations

from games.models import Game
from games.play import orders
from tests.support.phases import open_phase


def submit(game: Game, seat_number: int, order: dict) -> None:
    orders.submit_order(game.seats.get(number=seat_number), open_phase(game).number, order)
