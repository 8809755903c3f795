"""The ready check: a table becomes a game only once its players are there.

- When every seat is taken (or a bot), the game starts at once (`check`, called by whatever took the last
  seat, under the table's lock).
- At the creator's start time (`settle_due`, run by the lobby's sweep, and by the lobby's pages, so `make
  run` without a beat does it too), the game starts with the players who accepted if, with the bot seats,
  they reach the game's minimum and at least one player besides the creator accepted (a game of friends
  needs a friend); seats still empty become bots if the creator allowed it, and are left out otherwise.
  Failing that, the table is cancelled and everyone who sat at it or was still invited is told.

The core's Game is created only here (games.play.turns.create_game, which checks the options with the engine's
own setup again), so a seat that never accepted is no seat of any game: no missed turn, no default order, no
standings row. Seats are dealt in a random order, as a table draws for the first player: the creator does
not always start.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy, ngettext

from games import words
from games.engines import get_engine
from games.lobby import emails
from games.lobby.models import Invitation, Table, TableSeat
from games.models import Game, Phase, Player, attach_apps
from games.outgoing.links import seat_url
from games.outgoing.messages import zone_of
from games.play import turns
from games.play.deadlines import daily_deadline

log = logging.getLogger(__name__)
CANCELLED_BY_CREATOR = gettext_lazy("Its creator cancelled it.")


def check(table: Table, now: datetime) -> bool:
    """Start the game if every seat is taken or a bot. The caller holds the table's lock. Whether it started."""
    seats = list(table.seats.select_related("player").order_by("number"))
    if table.status != Table.Status.OPEN or any(
        s.state not in (TableSeat.State.TAKEN, TableSeat.State.BOT) for s in seats
    ):
        return False
    start(table, seats, now)
    return True


def settle_due(now: datetime | None = None) -> int:
    """Settle every waiting table whose start time has come: start it or cancel it. How many it settled."""
    now = now or timezone.now()
    due = Table.objects.filter(status=Table.Status.OPEN, start_by__lte=now).order_by("start_by")
    return sum(settle(pk, now) for pk in list(due.values_list("pk", flat=True)[:200]))


def settle(table_id: int, now: datetime) -> bool:
    """The start time's ready check for one table, under its lock (another sweep holding it: skipped)."""
    with transaction.atomic():
        table = Table.objects.select_for_update(skip_locked=True).filter(pk=table_id).first()
        if table is None or table.status != Table.Status.OPEN or table.start_by > now:
            return False
        seats = list(table.seats.select_related("player").order_by("number"))
        taken = [s for s in seats if s.state == TableSeat.State.TAKEN]
        bots = [s for s in seats if s.state == TableSeat.State.BOT]
        empty = [s for s in seats if s.state in (TableSeat.State.OPEN, TableSeat.State.INVITED)]
        engine = get_engine(table.engine)
        count = len(taken) + len(bots) + (len(empty) if table.bots_fill else 0)
        if len(taken) < 2:
            cancel(table, gettext("Nobody else accepted by the start time."), now)
        elif count < engine.min_players:
            cancel(
                table,
                ngettext(
                    "Only %(count)d player accepted by the start time: %(game)s needs %(least)d.",
                    "Only %(count)d players accepted by the start time: %(game)s needs %(least)d.",
                    len(taken),
                )
                % {"count": len(taken), "game": words.game_title(engine.title), "least": engine.min_players},
                now,
            )
        else:
            start(table, seats if table.bots_fill else taken + bots, now)
    return True


def game_options(engine_slug: str, options: dict[str, Any], numbers: list[int]) -> dict[str, Any]:
    """A table's options for a game whose seats are the table's seats `numbers` (from 0), in the game's order: a
    per-seat option (Port of Piraeus' country of each seat), stored in the table's seat order, follows each
    table seat to its place in the game; a seat left out takes its value with it."""
    found = dict(options)
    for spec in get_engine(engine_slug).options:
        chosen = options.get(spec.name)
        if spec.kind == "seat-list" and isinstance(chosen, list):
            found[spec.name] = [chosen[n] if n < len(chosen) else None for n in numbers]
    return found


def start(table: Table, seats: list[TableSeat], now: datetime) -> Game | None:
    """Create the game for `seats` (taken ones as their players, the rest as bots), in a random order. If
    the engine refuses (options that do not fit this many players), the table is cancelled with its reason."""
    dealt = list(seats)
    random.SystemRandom().shuffle(dealt)
    players: list[Player | None] = [s.player if s.state == TableSeat.State.TAKEN else None for s in dealt]
    options = game_options(table.engine, table.options, [s.number for s in dealt])
    try:
        with transaction.atomic():
            game = turns.create_game(
                table.engine,
                players,
                options=options,
                phase_length=table.phase_length,
                title=table.title,
                bot_levels=[s.bot_level or table.bot_level for s in dealt],
            )
    except ValueError as error:
        cancel(table, gettext("The game could not start: %(error)s") % {"error": error}, now)
        return None
    table.game, table.status, table.settled_at = game, Table.Status.STARTED, now
    table.save(update_fields=["game", "status", "settled_at"])
    attach_apps(Game.objects.filter(pk=game.pk))  # its resolutions read the table (its daily deadline)
    # The seats as the game has them: the empty ones it plays become bots, those it left out open.
    playing = [s.pk for s in seats if s.state != TableSeat.State.TAKEN]
    table.seats.filter(pk__in=playing).update(state=TableSeat.State.BOT, player=None, invitation=None)
    left_out = table.seats.exclude(pk__in=[s.pk for s in seats])
    left_out.update(state=TableSeat.State.OPEN, player=None, invitation=None)
    first = turns.current_phase(game)
    if first is not None:
        apply_daily_deadline(table, game, first)
    waiting = table.invitations.filter(answer=Invitation.Answer.PENDING)
    waiting.update(answer=Invitation.Answer.WITHDRAWN, answered_at=now)
    game_page = settings.SITE_URL + reverse("games-game", args=[game.pk])
    for seat in game.seats.filter(player__isnull=False).select_related("player"):
        if first is None or not first.owes(seat.number):  # the others have their turn email
            assert seat.player is not None
            game_url = seat_url(seat, first) if first is not None else game_page  # their seat's link
            emails.queue(table, emails.STARTED, seat.player, game_id=game.pk, game_url=game_url)
    log.info("table %s started as game %s with %s seats", table.pk, game.pk, len(players))
    return game


def cancel(table: Table, why: str, now: datetime, by: Player | None = None) -> None:
    """The table will not start: everyone who sat at it or was still invited is told why (but `by`, who
    cancelled it)."""
    seated = [s.player for s in table.seats.filter(state=TableSeat.State.TAKEN).select_related("player") if s.player]
    waiting = list(table.invitations.filter(answer=Invitation.Answer.PENDING).select_related("player"))
    table.invitations.filter(pk__in=[i.pk for i in waiting]).update(answer=Invitation.Answer.WITHDRAWN, answered_at=now)
    table.seats.filter(state=TableSeat.State.INVITED).update(state=TableSeat.State.OPEN, invitation=None)
    table.status, table.settled_at, table.why_cancelled = Table.Status.CANCELLED, now, why[:200]
    table.save(update_fields=["status", "settled_at", "why_cancelled"])
    for player in seated:
        if player != by:
            emails.queue(table, emails.CANCELLED, player, why=why)
    for invitation in waiting:  # as an invitation's news: to its address, the player's or a newcomer's
        emails.queue(table, emails.CANCELLED, invitation.player, invitation, why=why)
    log.info("table %s cancelled", table.pk)


def lobby_table(game: Game) -> Table | None:
    """The table `game` started from, or None (free after a resolution, which reads it with the phase)."""
    try:
        return game.lobby_table
    except Table.DoesNotExist:
        return None


def deadline_for(table: Table, phase: Phase) -> datetime | None:
    if table.daily_at is None:
        return None
    return daily_deadline(phase.opened_at, table.daily_at, zone_of(table.time_zone), table.phase_length)


def phase_deadline(game: Game, phase: Phase) -> datetime | None:
    """The core's phase_deadline extension: a turn of a game with a daily time ends at that time."""
    table = lobby_table(game)
    return deadline_for(table, phase) if table is not None else None


def apply_daily_deadline(table: Table, game: Game, phase: Phase) -> None:
    """The first turn was opened before the table pointed at the game: it gets its daily deadline here, in
    the same transaction as its turn emails, which are rendered when sent."""
    deadline = deadline_for(table, phase)
    if deadline is not None:
        phase.save(update_fields=phase.move_deadline(deadline, game.reminder_before))
