"""Ending a game, or a seat, before the rules do: what an app asks of the core when a table agrees to end its
game early (games/votes: a draw, a cancelled game) or a player gives up their seat. Each keeps the guarantees
of an ordinary end (games/play/turns.py): the game's rows are locked as a resolution locks them, so a game ends
exactly once, whichever of a resolution and an early end comes first; the log says what happened; the
emails go through the outbox and the mail policy; `game_finished` and `seat_replaced`'s receivers run as
they do for any end or change of hands."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import transaction

from games import extensions, words
from games.engines.base import Standing
from games.models import Event, Game, Order, OutboundEmail, Phase, Seat, new_link_key, unique_row
from games.play import bots, turns

log = logging.getLogger(__name__)


class _PhaseOpened(Exception):
    """A phase opened while only the game's row was locked: let go of it and lock the two together."""


def lock(game_id: int) -> tuple[Game | None, Phase | None]:
    """Lock the game as a resolution does: its open phase and the game's row, in one statement; the game's row
    alone only once it has no open phase. An app's transaction that may end the game or its phase locks it this
    way first, so it waits for a resolution under way (and a resolution for it) instead of deadlocking with one.

    The lock order of every path that ends a game or a phase (a resolution, an order that completes a turn, a
    vote's ballot or re-count, a concession, an early end): the game's open phase and the game's row together,
    first; then what else of the game it changes (its seats, its votes). Never the game's row alone while a
    phase of it is open: a resolution that finishes while this waits for its phase opens the next, which the
    statement's snapshot cannot see; locking the game alone then and that new phase later (as finish_early
    does) would hold the game while waiting for a phase another transaction holds while waiting for the game.
    So when the phase moved, the statement is run again, and a game row locked while a phase opened is let go
    (its savepoint rolled back releases it) before the two are locked together."""
    while True:
        phase = unique_row(
            Phase.objects.select_for_update(no_key=True, of=("self", "game"))
            .select_related("game")
            .filter(game_id=game_id, status=Phase.Status.OPEN)
        )
        if phase is not None:
            return phase.game, phase
        try:
            with transaction.atomic():
                game = unique_row(Game.objects.select_for_update(no_key=True).filter(pk=game_id))
                # Under the game's lock no phase of it opens (a resolution opens the next holding the game's row)
                if game is not None and Phase.objects.filter(game_id=game_id, status=Phase.Status.OPEN).exists():
                    raise _PhaseOpened
                return game, None
        except _PhaseOpened:
            continue


def log_line(game: Game, phase_number: int, text: str, data: dict[str, Any] | None = None) -> None:
    """One public line of the game's log (`game` is locked by the caller). `text` is a message (Msg) as an engine's
    lines are, stored as its message and its English, so each reader reads it in their language."""
    game.event_count += 1
    Event.objects.create(
        game=game,
        phase_number=phase_number,
        seq=game.event_count,
        text=str(text),
        message=words.message(text),
        data=data or {},
    )
    Game.objects.filter(pk=game.pk).update(event_count=game.event_count)


def finish_early(game_id: int, standings: Sequence[Standing], line: str, now: datetime) -> bool:
    """End a running (or paused) game now with `standings` (empty: no result, a cancelled game), `line` in its
    log. The phase in progress is closed unplayed: its sealed orders are discarded unread, so they are never
    played nor shown to anyone. Every player is sent the game-over email. False, changing nothing, if the game
    is over already (it ended otherwise meanwhile)."""
    with transaction.atomic():
        game, phase = lock(game_id)
        if game is None or phase is None or game.status == Game.Status.FINISHED:
            return False
        Order.objects.filter(phase=phase).delete()
        log_line(game, phase.number, line, {"ended": "early"})
        phase.status = Phase.Status.RESOLVED
        phase.resolved_at = now
        phase.complete_at = phase.bots_due_at = phase.remind_at = None
        phase.save(update_fields=["status", "resolved_at", "complete_at", "bots_due_at", "remind_at"])
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.paused_at = None
        game.result = [turns.result_row(s) for s in standings]
        game.save(update_fields=["status", "finished_at", "paused_at", "result"])
        humans = [seat for seat in game.seats.select_related("player") if seat.player is not None]
        turns.queue_emails(phase, turns.email_rows(game, phase, humans, OutboundEmail.Kind.GAME_OVER))
        extensions.game_finished.send(sender=Game, game=game, now=now)
    log.info("game %s ended early", game_id)
    return True


def leave_seat(seat_id: int, player_id: int, line: str, now: datetime) -> bool:
    """The player gives up their seat for good: an app may find it a new holder (extensions.seat_left: a league
    offers it to a standby player); otherwise a bot plays the seat's default orders from now on. Their links
    stop working and emails not yet sent to them are withdrawn; an order they sealed for the turn in progress
    stands (they sent it while they held the seat). `line` goes in the log. False, changing nothing, if the
    player no longer holds the seat or the game is over."""
    with transaction.atomic():
        seat = unique_row(Seat.objects.filter(pk=seat_id).only("game_id"))
        if seat is None:
            return False
        game, phase = lock(seat.game_id)
        seat = Seat.objects.select_for_update(of=("self",)).select_related("game", "player").get(pk=seat_id)
        if game is None or game.status == Game.Status.FINISHED or seat.player_id != player_id:
            return False
        log_line(game, game.phase_number, line, {"left": seat.number})
        if not extensions.seat_left(seat, now):
            OutboundEmail.objects.filter(seat=seat, status=OutboundEmail.Status.PENDING).delete()
            Seat.objects.filter(pk=seat.pk).update(
                player=None, is_bot=True, bot_plays_defaults=True, link_key=new_link_key()
            )
            if phase is not None and phase.owes(seat.number):
                bots.ask_bots(phase)
    log.info("seat %s of game %s given up", seat.number + 1, seat.game_id)
    return True
