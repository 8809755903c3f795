from __future__ import annotations

import json
import random
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.extensions import split_options
from games.models import Event, Game, Order, Phase
from games.play import turns


def replay(game: Game) -> tuple[bool, str]:
    """Replay a game from its seed and stored orders; compare with the stored state and log."""
    engine = turns.engine_of(game)
    options, _ = split_options(game.options)
    state = engine.setup(game.seats.count(), options, random.Random(f"{game.seed}:0"))
    orders: dict[int, dict[int, dict[str, Any]]] = {}
    for order in Order.objects.filter(phase__game=game).select_related("phase", "seat"):
        orders.setdefault(order.phase.number, {})[order.seat.number] = order.data
    texts: list[str] = []
    for phase in Phase.objects.filter(game=game, status=Phase.Status.RESOLVED).order_by("number"):
        state, events = engine.resolve(state, orders.get(phase.number, {}), turns.phase_rng(game, phase.number))
        texts += [e.text for e in events]
    stored = list(Event.objects.filter(game=game).order_by("seq").values_list("text", flat=True))
    if texts != stored:
        first = next(
            (i for i, (a, b) in enumerate(zip(texts, stored, strict=False)) if a != b), min(len(texts), len(stored))
        )
        return False, f"log differs at line {first + 1}"
    if json.dumps(state, sort_keys=True) != json.dumps(game.state, sort_keys=True):
        return False, "final state differs"
    return True, f"{len(texts)} log lines and the state match"


class Command(BaseCommand):
    help = "Replay a game from its seed and orders and compare with what is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id", type=int)

    def handle(self, *args: Any, **opts: Any) -> None:
        game = Game.objects.filter(pk=opts["game_id"]).first()
        if game is None:
            raise CommandError(f"No game #{opts['game_id']}.")
        same, detail = replay(game)
        if not same:
            raise CommandError(f"Game #{game.pk} does not replay: {detail}.")
        self.stdout.write(f"Game #{game.pk} replays identically: {detail}.")
