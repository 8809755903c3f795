"""Orders, one call per intent, for every caller alike: the web form, an email reply, a bot, the API. Each
takes plain data (a seat, a turn's number, an order as a dict) and answers with a plain result or a typed
refusal whose message is for the player and names nothing hidden.

- `open_turn`: what a seat is asked in a turn (its prompt, whether the turn is the seat's alone, an example
  of a legal order), read in one snapshot; refused with TurnClosed when the turn is not open to the seat.
- `check_order`: an order as the engine reads it now and its read-back, storing nothing (the review of a
  one-seat turn); IllegalOrder when the engine refuses it.
- `submit_order`: validate and store (or revise) the sealed order under the phase's lock, and enqueue the
  resolution after commit if it was the last one owed. Refusals: TurnClosed, IllegalOrder, Superseded.

A caller reads and shapes its input (a form, a reply's lines) before the call; nothing it passes calls back.
What decides runs under the lock in `submit_order`: whether the turn is open, the engine's verdict, whether
a later order already stands."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from games import words
from games.engines import OrderError, get_engine
from games.engines.base import ReadBack
from games.models import Game, Order, Phase, Seat, carried_phase, unique_row
from games.outgoing.dispatch import RESOLVE_PHASE, after_commit
from games.play import order_sql

log = logging.getLogger(__name__)


class OrderRejected(Exception):
    """An order that was not stored. The message is for the player and names no hidden information."""


class TurnClosed(OrderRejected):
    """The turn is not open to this seat (over, resolved, or not asking it): the order was not looked at."""


class IllegalOrder(OrderRejected):
    """The engine refused the order (the message says why, in the rules' words)."""


class Superseded(OrderRejected):
    """An order written before the one that stands (an older email reply delivered late): that order stands."""


@dataclass(frozen=True)
class Turn:
    """What a seat is asked in an open turn."""

    game_id: int
    phase_number: int
    phase_name: str
    deadline: datetime
    prompt: dict[str, Any]
    alone: bool  # the turn asks this seat only: storing its order resolves the turn
    example: dict[str, Any] | None  # a legal order now, when asked for (`with_example`)


@dataclass(frozen=True)
class Checked:
    order: dict[str, Any]  # as the engine reads it (normalised): what storing it would store
    read_back: ReadBack


@dataclass(frozen=True)
class Stored:
    revised: bool  # it replaced the seat's earlier order of this turn
    complete: bool  # every owed order of the phase is now in
    read_back: ReadBack | None = None  # the stored order in the engine's words, when asked for


def _closed(phase: Phase | None, seat: Seat) -> TurnClosed | None:
    """Why `phase` does not take an order from `seat`, or None if it does."""
    if phase is None:
        return TurnClosed(gettext("There is no such turn in this game."))
    if phase.game.status == Game.Status.FINISHED:
        return TurnClosed(gettext("This game is over; no more orders are taken."))
    if phase.status != Phase.Status.OPEN:
        return TurnClosed(
            gettext(
                "That turn (%(turn)s) has already been resolved, so your order was not stored. "
                "The game page shows the current turn."
            )
            % {"turn": phase.label}
        )
    if not phase.owes(seat.number):
        return TurnClosed(gettext("You owe no order in this turn."))
    return None


def _superseded(phase: Phase, seat: Seat, written_at: datetime | None) -> Superseded | None:
    if written_at is None:
        return None
    stored = unique_row(Order.objects.filter(phase=phase, seat=seat).only("written_at", "submitted_at"))
    if stored is not None and written_at < (stored.written_at or stored.submitted_at):
        return Superseded(
            gettext("Your reply was written before the order you sent since, so it was not used; that order stands.")
        )
    return None


# What submit_order reads of the phase it locks and its game, and no more: the rows never leave it, and the other
# columns (the sweep's marks, the game's options and result) cost their decoding on every order.
LOCKED = (
    "number",
    "name",
    "message",
    "prompts",
    "status",
    "complete_at",
    "game__engine",
    "game__state",
    "game__status",
)


def _phase(seat: Seat, phase_number: int, *, lock: bool = False) -> Phase | None:
    # The phase and its game in one read: the game's state is the open phase's own (a resolution changes both
    # in one transaction), so an example or a read-back is of the turn the prompt belongs to.
    phases = Phase.objects.select_for_update(no_key=True).only(*LOCKED) if lock else Phase.objects
    return unique_row(phases.select_related("game").filter(game_id=seat.game_id, number=phase_number))


def open_turn(seat: Seat, phase_number: int, *, with_example: bool = False, written_at: datetime | None = None) -> Turn:
    """The turn `phase_number` as `seat` is asked it. `written_at` (an email reply's Date) refuses it as
    Superseded when an order written later already stands. Raises TurnClosed, Superseded. A seat read with its
    open phase (games.models.with_open_phase) costs no statement when that phase is the turn asked for; any
    other turn is read, for its own refusal."""
    read, phase = carried_phase(seat)
    if not read or phase is None or phase.number != phase_number:
        phase = _phase(seat, phase_number)
    refused = _closed(phase, seat) or (phase and _superseded(phase, seat, written_at))
    if refused or phase is None:
        raise refused or TurnClosed(gettext("There is no such turn in this game."))
    game = phase.game
    prompt = phase.prompt_for(seat.number)
    assert prompt is not None  # _closed says so
    example = get_engine(game.engine).example_order(game.state, seat.number) if with_example else None
    return Turn(game.pk, phase.number, phase.label, phase.deadline, prompt, len(phase.prompts) == 1, example)


def check_order(seat: Seat, phase_number: int, order: dict[str, Any]) -> Checked:
    """`order` as the engine would store it now, and read back in its words; nothing is stored. Raises
    TurnClosed, IllegalOrder."""
    phase = _phase(seat, phase_number)
    refused = _closed(phase, seat)
    if refused or phase is None:
        raise refused or TurnClosed(gettext("There is no such turn in this game."))
    engine, state = get_engine(phase.game.engine), phase.game.state
    try:
        normalised = engine.validate(state, seat.number, order)
    except OrderError as error:
        raise IllegalOrder(words.refusal(error)) from None
    return Checked(normalised, words.read_back(engine.read_back(state, seat.number, normalised)))


def submit_order(
    seat: Seat,
    phase_number: int,
    order: dict[str, Any],
    *,
    written_at: datetime | None = None,
    default: bool = False,
    read_back: bool = False,
) -> Stored:
    """Validate and store (or revise) `seat`'s sealed order for the phase; if it was the last one owed,
    enqueue the resolution after commit. `written_at`: when an email reply was written (its Date), kept with
    the order; an order written later that already stands is not replaced (Superseded). `default`: the
    engine's default order, played for a seat whose player cannot be reached (it counts as a miss, as at a
    deadline). `read_back`: the stored order in the engine's words comes back with the result. Raises
    TurnClosed, IllegalOrder, Superseded, having stored nothing."""
    with transaction.atomic():
        # The lock serialises the submissions of one phase with each other and with its resolution, so
        # of two "last" orders arriving together exactly one sees the phase complete, and no order can
        # slip in while the phase is being resolved.
        read, phase = order_sql.locked_phase(seat.game_id, phase_number)
        if not read:
            phase = _phase(seat, phase_number, lock=True)
        refused = _closed(phase, seat) or (phase and _superseded(phase, seat, written_at))
        if refused or phase is None:
            raise refused or TurnClosed(gettext("There is no such turn in this game."))
        game = phase.game
        engine = get_engine(game.engine)
        try:
            normalised = engine.validate(game.state, seat.number, order)
        except OrderError as error:
            raise IllegalOrder(words.refusal(error)) from None
        now = timezone.now()
        # A revision is one UPDATE; it cannot change whether the phase is complete, so only a first
        # order counts the phase's orders, and marks the phase complete if it was the last one owed.
        revised = order_sql.revise_order(phase.pk, seat.pk, normalised, now, default, written_at)
        complete = phase.complete_at is not None
        if not revised:
            Order.objects.create(phase=phase, seat=seat, data=normalised, is_default=default, written_at=written_at)
            complete = Order.objects.filter(phase=phase).count() >= len(phase.prompts)
            if complete:
                Phase.objects.filter(pk=phase.pk).update(complete_at=now)
        # A revision of a complete phase enqueues the resolution again: the first call may have been lost
        # (a broker outage), and the player retrying is the first to notice. Resolving twice is harmless.
        if complete and game.status == Game.Status.ACTIVE:
            after_commit(RESOLVE_PHASE, phase.pk)
        said = words.read_back(engine.read_back(game.state, seat.number, normalised)) if read_back else None
    # The log line names the seat, never the order's content.
    log.info("order stored: game %s phase %s seat %s revised=%s", game.pk, phase.number, seat.number, revised)
    return Stored(revised=revised, complete=complete, read_back=said)
