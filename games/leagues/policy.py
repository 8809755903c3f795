"""The league's rules for deadlines, emails and missed turns, attached to the core's extension points and
signals (games.extensions):

- `phase_deadline`: a league game's phase closes at the league's daily time, if it has one;
- `declines`: members who chose "only when I owe an order" get no email for a phase that asks nothing of
  them; members on the daily digest find that phase's news in their digest instead;
- `phase_opened`: a seat whose holder has now missed `substitute_after` owed orders in a row is handed to a
  substitute (the holder becomes inactive: not drawn again until they say they are back);
- `deadline_passed`: the first miss of a game extends its deadline once, for everyone, by the league's
  grace time (whole days in the league's calendar, so a 20:00 deadline stays at 20:00 across a daylight-
  saving change), and every player is told the new deadline; later misses fall through to the core,
  which resolves with default orders;
- `game_finished`: seats still offered to standby players are withdrawn, nobody can claim a game that is over;
  and the round closes if that was its last game (games/leagues/services.py finish_round, after commit);
- `seat_replaced`: whoever gave the seat to someone else (an organiser in the admin, a substitute's claim),
  the seat's holder so far stops holding it before the current phase and the newcomer holds it from
  there, so misses, results and the public page credit each of them with their own phases; a seat an
  organiser gave straight from one member to another also makes the newcomer an active member and the
  member it was taken from inactive, and tells them (games/leagues/substitutes.py seat_given);
- `news_declined`: a one-click unsubscribe lowers the player's memberships to the least mail too;
- `excused`: a member on a declared vacation who misses an order plays the default order, which is no miss.

Games outside leagues have no Table row, so the receivers return at once for them.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver

from games import extensions
from games.extensions import EmailAsk
from games.leagues import emails
from games.leagues.away import days_away
from games.leagues.models import Membership, Seating, Table
from games.leagues.services import FINISH_ROUND, league_deadline
from games.leagues.substitutes import drop_absentee, seat_given, withdraw_offers
from games.models import Game, Order, OutboundEmail, Phase, Player, Seat, unique_row
from games.outgoing.dispatch import after_commit
from games.outgoing.facts import game_facts, phase_facts
from games.outgoing.messages import zone_of
from games.play import turns
from games.play.deadlines import add_local


def table_of(game: Game) -> Table | None:
    """The game's league table. Free after a resolution, which read it along with the phase it locked
    (the phase_related path games/leagues/apps.py registers); one query otherwise."""
    try:
        return game.league_table
    except Table.DoesNotExist:
        return None


@receiver(extensions.phase_opened, sender=Game)
def on_phase_opened(game: Game, phase: Phase, previous: Phase | None, now: datetime, **kwargs: Any) -> None:
    if previous is None:
        return  # a round's first phases get their deadline in start_round, once the table points at the game
    table = table_of(game)
    if table is None:
        return
    league = table.round.season.league
    if previous.used_defaults and league.substitute_after:
        for seating in absent_seats(table, previous, league.substitute_after):
            drop_absentee(seating, now, phase, league.substitute_after)


def phase_deadline(game: Game, phase: Phase) -> datetime | None:
    """The league's daily deadline for a phase opening in a league game (None outside leagues, and for a
    round's first phases, which start_round gives theirs once the table points at the game)."""
    table = table_of(game)
    return league_deadline(table.round.season.league, phase) if table is not None else None


def excused(game: Game, phase: Phase, missing: Collection[int], now: datetime) -> Collection[int]:
    """Seats of a league game whose player is on a declared vacation today (the league's calendar): their
    default orders are played, and are no missed turns (games.extensions.excused)."""
    table = table_of(game)
    if table is None:
        return ()
    league = table.round.season.league
    today = now.astimezone(zone_of(league.time_zone)).date()
    holders = dict(
        Seat.objects.filter(game=game, number__in=list(missing), player__isnull=False).values_list(
            "player_id", "number"
        )
    )
    return {holders[player] for player in days_away(league, holders, today)}


def declines(ask: EmailAsk) -> Collection[int]:
    """Members who chose "only when I owe an order" get no email for a phase that asks nothing of them;
    members on the daily digest find its news in their digest instead. A turn email that asks for an order
    always goes out at once."""
    if ask.kind != OutboundEmail.Kind.PHASE_RESOLVED or ask.game is None or not ask.players:
        return ()
    table = table_of(ask.game)
    if table is None:
        return ()
    league = table.round.season.league
    chosen = dict(
        Membership.objects.filter(league=league, player__in=ask.players)
        .filter(Q(notify=Membership.Notify.OWED) | Q(digest=True))
        .values_list("player_id", "digest")
    )
    assert ask.phase is not None and ask.opened is not None, "phase news is about a phase and the next"
    digest = [player for player in ask.players if chosen.get(player.pk)]
    if digest:
        news = {"game": game_facts(ask.game), "previous": phase_facts(ask.phase), "phase": phase_facts(ask.opened)}
        for player in digest:
            emails.queue(league, "phase-news", news, player=player)
    return chosen.keys()


def absent_seats(table: Table, previous: Phase, in_a_row: int) -> list[Seating]:
    """The seatings whose holder missed their last `in_a_row` owed orders, up to `previous`."""
    missed = set(
        Order.objects.filter(phase=previous, is_default=True, excused=False, seat__is_bot=False).values_list(
            "seat__number", flat=True
        )
    )
    absent = []
    for seating in Seating.objects.filter(table=table, seat_number__in=missed, until_phase__isnull=True):
        # Excused defaults (an early resolve by the organiser, a vacation) neither break a run nor add to it.
        recent = list(
            Order.objects.filter(
                seat__game=table.game,
                seat__number=seating.seat_number,
                phase__number__gte=seating.from_phase,
                excused=False,
            )
            .order_by("-phase__number")
            .values_list("is_default", flat=True)[:in_a_row]
        )
        if len(recent) == in_a_row and all(recent):
            absent.append(seating)
    return absent


@receiver(extensions.deadline_passed, sender=Phase)
def on_deadline_passed(phase_id: int, now: datetime, **kwargs: Any) -> bool:
    """Grace: the first time anyone misses a deadline in a game, the deadline moves once for everyone."""
    with transaction.atomic():
        phase = unique_row(
            Phase.objects.select_for_update(of=("self",))
            .select_related("game")
            .filter(pk=phase_id, status=Phase.Status.OPEN)
        )
        if phase is None or phase.deadline > now:
            return False
        table = unique_row(
            Table.objects.select_for_update(of=("self",))
            .select_related("round__season__league")
            .filter(game_id=phase.game_id)
        )
        if table is None or table.grace_used:
            return False
        league = table.round.season.league
        if not league.grace:
            return False
        missing = set(phase.owed_seats) - turns.submitted_seats(phase)
        if not Seat.objects.filter(game_id=phase.game_id, number__in=missing, is_bot=False).exists():
            return False
        deadline = add_local(phase.deadline, league.grace, zone_of(league.time_zone))
        phase.save(update_fields=phase.move_deadline(deadline, phase.game.reminder_before))
        table.grace_used = True
        table.save(update_fields=["grace_used"])
        emails.deadline_moved(league, phase.game, phase)
    return True


@receiver(extensions.news_declined, sender=Player)
def on_news_declined(player: Player, now: datetime, **kwargs: Any) -> bool:
    """The one-click unsubscribe: in every league, only when an order is owed (and a game's end), no digest."""
    lowered = Membership.objects.filter(player=player).exclude(notify=Membership.Notify.OWED, digest=False)
    return bool(lowered.update(notify=Membership.Notify.OWED, digest=False))


@receiver(extensions.game_finished, sender=Game)
def on_game_finished(game: Game, now: datetime, **kwargs: Any) -> None:
    """Offers on the game's seats are withdrawn, and once the game's end is committed its round closes if it
    was the round's last game (with tasks inline, as `make run` has them, too: no beat needed)."""
    table = table_of(game)
    if table is not None:
        withdraw_offers(table)
        after_commit(FINISH_ROUND, table.round_id)


@receiver(extensions.seat_replaced, sender=Seat)
def on_seat_replaced(seat: Seat, previous: object, now: datetime, **kwargs: Any) -> None:
    table = table_of(seat.game)
    if table is None:
        return
    running = [Game.Status.ACTIVE, Game.Status.PAUSED]
    league = table.round.season.league
    elsewhere = Seat.objects.filter(
        player=seat.player, game__status__in=running, game__league_table__round__season__league=league
    ).exclude(game=seat.game)
    if elsewhere.exists():  # refused: the replacement rolls back, and whoever asked reads why
        assert seat.player is not None
        raise ValueError(f"{seat.player.email} already plays a running game of {league}: one at a time.")
    from_phase = seat.game.phase_number
    for seating in Seating.objects.filter(table=table, seat_number=seat.number, until_phase__isnull=True):
        # A holder replaced in the phase they sat down in held it for no phase at all.
        Seating.objects.filter(pk=seating.pk).update(until_phase=max(from_phase - 1, seating.from_phase - 1))
    Seating.objects.create(table=table, seat_number=seat.number, player=seat.player, from_phase=from_phase)
    seat_given(table, seat, previous if isinstance(previous, Player) else None, now)
