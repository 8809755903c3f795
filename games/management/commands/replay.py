from __future__ import annotations

import json
import random
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

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
    # The core's own lines (games/play/endings.py: a game ended early, a seat left) are no engine's; the phase a game
    # ended early in was closed unplayed.
    core = Q(data__has_key="ended") | Q(data__has_key="left")
    unplayed = set(Event.objects.filter(game=game, data__has_key="ended").values_list("phase_number", flat=True))
    texts: list[str] = []
    for phase in Phase.objects.filter(game=game, status=Phase.Status.RESOLVED).order_by("number"):
        if phase.number in unplayed:
            continue
        state, events = engine.resolve(state, orders.get(phase.number, {}), turns.phase_rng(game, phase.number))
        texts += [e.text for e in events]
    stored = list(Event.objects.filter(game=game).exclude(core).order_by("seq").values_list("text", flat=True))
    if texts != stored:
        first = next(
            (i for i, (a, b) in enumerate(zip(texts, stored, strict=False)) if a != b), min(len(texts), len(stored))
        )
        return False, f"log differs at line {first + 1}"
    if json.dumps(state, sort_keys=True) != json.dumps(game.state, sort_keys=True):
        return False, "final state differs"
    return True, f"{len(texts)} log lines and the state match"


class Command(BaseCommand):
    help = "Replay a game (or every game) from its seed and orders and compare with what is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("game_id", type=int, nargs="?")
        parser.add_argument("--all", action="store_true", help="every game, one line each (after a restore, say)")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["all"] == (opts["game_id"] is not None):
            raise CommandError("Name one game, or --all.")
        games = Game.objects.order_by("pk") if opts["all"] else Game.objects.filter(pk=opts["game_id"])
        if not opts["all"] and not games.exists():
            raise CommandError(f"No game #{opts['game_id']}.")
        differ = []
        for game in games.iterator():
            same, detail = replay(game)
            if same:
                self.stdout.write(f"Game #{game.pk} replays identically: {detail}.")
            else:
                differ.append(f"Game #{game.pk} does not replay: {detail}.")
        if differ:
            raise CommandError("\n".join(differ))
