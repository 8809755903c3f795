"""The API's one door to the core's turn services: storing, checking and reading back orders, the current
phase, the log a seat may read and earlier turns. Every rule, refusal and message comes from there (the engines
and games.play.orders, one call per intent), exactly as the pages get them; when the core's order service changes, this
module is the one edit."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from games.engines.base import ReadBack
from games.incoming import review
from games.models import Event, Game, Phase, Seat, carried_phase
from games.play import history, orders, turns

OrderRejected = orders.OrderRejected
TurnClosed = orders.TurnClosed
IllegalOrder = orders.IllegalOrder
Stored = orders.Stored
Checked = orders.Checked
ReviewExpired = review.ReviewExpired
Replayed = history.Replayed


def current_phase(game: Game) -> Phase | None:
    return turns.current_phase(game)


def open_phase(seat: Seat) -> Phase | None:
    """The open phase of the seat's game: the one read with the seat (Caller.seat reads it so), else read now."""
    read, phase = carried_phase(seat)
    return phase if read else turns.current_phase(seat.game)


def submitted_seats(phase: Phase) -> set[int]:
    return turns.submitted_seats(phase)


def visible_events(game: Game, seat_number: int | None) -> QuerySet[Event]:
    return turns.visible_events(game, seat_number)


def submit(seat: Seat, phase_number: int, order: dict[str, Any]) -> Stored:
    """Store or revise the seat's sealed order, read back as stored (OrderRejected, TurnClosed: nothing
    stored)."""
    return orders.submit_order(seat, phase_number, order, read_back=True)


def check(seat: Seat, phase_number: int, order: dict[str, Any]) -> Checked:
    """The order as the engine reads it now and its read-back, stored nowhere (IllegalOrder with the page's
    message, TurnClosed)."""
    return orders.check_order(seat, phase_number, order)


def read_back(game: Game, seat_number: int, order: dict[str, Any]) -> ReadBack:
    return review.read_back(game, seat_number, order)


def needs_confirmation(phase: Phase) -> bool:
    """The turn asks one seat, so its order resolves it: read back and confirmed first, as on the page."""
    return review.needs_review(phase)


def confirmation(seat: Seat, phase_number: int, order: dict[str, Any]) -> str:
    return review.sign(seat, review.Reviewed(phase_number, order, typed=False))


def confirmed(seat: Seat, token: str) -> tuple[int, dict[str, Any]]:
    """The turn and order a confirmation carries (ReviewExpired if it is not this seat's, or too old)."""
    reviewed = review.unsign(seat, token)
    return reviewed.phase_number, reviewed.order


def outcome_words(result: Stored, game_id: int, phase_number: int) -> str:
    return review.outcome_words(result, game_id, phase_number)


def next_steps(game: Game, seat_number: int, field: str, steps: list[str]) -> Any:
    return turns.engine_of(game).next_steps(game.state, seat_number, field, steps)


def past_phases(game: Game) -> list[history.PastPhase]:
    return history.past_phases(game)


def replay(game: Game, number: int) -> Replayed | None:
    return history.replay(game, number)


def replayed_read_back(game: Game, replayed: Replayed, seat_number: int) -> ReadBack | None:
    return history.read_back(game, replayed, seat_number)
