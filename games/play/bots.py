"""Bots, and seats that play their default order because their player cannot be reached: each submits
through the players' own path (games/play/turns.py), after commit of what made its order due."""

from __future__ import annotations

import logging
import random

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games.engines.base import Engine, Order, State
from games.engines.search import Budget, choose_order
from games.models import BotLevel, Phase, Player, Seat, unique_row
from games.outgoing.dispatch import PLAY_BOTS, after_commit
from games.play.orders import IllegalOrder, OrderRejected, submit_order
from games.play.turns import engine_of

log = logging.getLogger(__name__)


def budget(level: str, seconds: float | None = None) -> Budget:
    """A level's search budget per decision: the settings' for `strong`, a tenth of them for `easy`;
    `seconds` (manage.py simulate's --bot-budget) in place of the setting."""
    seconds = settings.PBEM_BOT_SECONDS if seconds is None else seconds
    share = 1 if level == BotLevel.STRONG else 10
    return Budget(seconds=seconds / share, iterations=max(1, settings.PBEM_BOT_ITERATIONS // share))


def bot_order(engine: Engine, state: State, seat: int, level: str, seed: str, seconds: float | None = None) -> Order:
    """A bot's order at `level`: a random legal order, or the search's, which reads only what the seat sees."""
    if level == BotLevel.RANDOM:
        return engine.random_order(state, seat, random.Random(f"{seed}:{seat}"))
    return choose_order(engine, state, seat, f"{seed}:{seat}:{level}", budget(level, seconds))


def ask_bots(phase: Phase) -> None:
    """Have the bots play their owed orders after commit (a seat went to a bot in an open phase)."""
    Phase.objects.filter(pk=phase.pk).update(bots_due_at=timezone.now())
    after_commit(PLAY_BOTS, phase.pk)


def play_bots(phase_id: int) -> int:
    """Every bot seat owed in the phase and not yet played submits its order through the players' own
    path: an order at the seat's level (bot_order), or the default order for a seat that stands in for a player
    who left; and a seat whose player's address bounced plays its default order, marked as a miss
    (games/incoming/mail/bounces.py).
    Run again (the sweep, after a worker died half-way), it plays only the bots still owing."""
    phase = unique_row(Phase.objects.select_related("game").filter(pk=phase_id, status=Phase.Status.OPEN))
    if phase is None:
        return 0
    game = phase.game
    engine = engine_of(game)
    played = 0
    owing = (
        Seat.objects.filter(game=game, number__in=phase.owed_seats)
        .filter(Q(is_bot=True) | Q(player__mail_problem=Player.MailProblem.BOUNCED))
        .exclude(orders__phase=phase)
    )
    for seat in owing.order_by("number"):
        missed = not seat.is_bot  # the player cannot be reached: their default order, as a missed deadline
        if seat.bot_plays_defaults or missed:
            order = engine.default_order(game.state, seat.number)
        else:
            try:
                order = bot_order(engine, game.state, seat.number, seat.bot_level, f"{game.seed}:{phase.number}:bot")
            except Exception:
                # A search that fails (an engine that trips on a drawn state) must not stall the table: the
                # sweep would only run it again. Logged, and the seat plays a random legal order.
                log.exception("bot search failed: game %s phase %s seat %s", game.pk, phase.number, seat.number)
                order = engine.random_order(game.state, seat.number, random.Random(f"{game.seed}:{phase.number}"))
        try:
            try:
                submit_order(seat, phase.number, order, default=missed)
            except IllegalOrder:
                # The search chose in states drawn from what the seat sees; should a rule turn on what it cannot
                # see, the refusal is all it learns, and it plays a random legal order instead of stalling.
                log.warning("bot order refused: game %s phase %s seat %s", game.pk, phase.number, seat.number)
                order = engine.random_order(game.state, seat.number, random.Random(f"{game.seed}:{phase.number}"))
                submit_order(seat, phase.number, order, default=missed)
            played += 1
        except OrderRejected:
            # The phase moved on under us (a deadline or the admin): nothing left to do.
            return played
    if phase.bots_due_at is not None:
        # Done, unless a seat went to a bot meanwhile (ask_bots set a newer time, and its own task runs).
        Phase.objects.filter(pk=phase.pk, bots_due_at=phase.bots_due_at).update(bots_due_at=None)
    return played
