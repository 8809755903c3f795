"""Substitutes: a dropped seat is vacated (the old holder's links stop working) and offered to the first
player on the league's standby list, with a claim link and a briefing of the position (the public board: a
seat's hand is shown only to whoever holds it). Claiming gives the seat to them (the core's replace_player,
which sends them the current turn's email if the seat owes an order); of
two claims racing, the row lock lets exactly one through. Unclaimed in time, or with nobody on standby,
a bot plays the seat, as the league's substitute policy says (League.substitute_bot: strong by default).
When the game ends, seats still on offer are withdrawn: a claim on a game that is over
is refused, so nobody is credited with a result, a miss or a rating change they never played."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engines import board_templates, get_engine
from games.leagues import emails
from games.leagues.models import League, Membership, Seating, Substitution, Table
from games.leagues.services import LeagueError
from games.models import BotLevel, Game, OutboundEmail, Phase, Player, Seat, new_link_key
from games.outgoing import signed
from games.outgoing.facts import game_facts, phase_facts
from games.play import bots, organise, turns

CLAIM_SALT = "pbem.league-claim"
GAME_OVER = gettext_lazy("This game is over, so its seat is no longer offered. You are still on the standby list.")


def drop_seat(seating: Seating, now: datetime, current: Phase | None = None) -> Substitution:
    """End `seating` (its holder loses the seat from the current phase on) and offer the seat to the
    first standby player who has no seat at this table."""
    table = seating.table
    league = table.round.season.league
    assert table.game is not None
    current = current or turns.current_phase(table.game)
    last_held = (current.number - 1) if current else table.game.phase_number
    Seating.objects.filter(pk=seating.pk).update(until_phase=max(last_held, seating.from_phase - 1))
    # The seat is vacant from now on: the old holder's links and session stop working, and emails not yet
    # sent to them are withdrawn. Until someone claims it, its missed deadlines use default orders.
    seat = Seat.objects.filter(game=table.game, number=seating.seat_number)
    OutboundEmail.objects.filter(seat__in=seat, status=OutboundEmail.Status.PENDING).delete()
    seat.update(player=None, link_key=new_link_key())
    at_table = Seat.objects.filter(game=table.game, player__isnull=False).values_list("player_id", flat=True)
    standby = (
        Membership.objects.filter(league=league, status=Membership.Status.STANDBY)
        .exclude(player_id__in=list(at_table))
        .exclude(substitution__status=Substitution.Status.OFFERED)
        .select_related("player")
        .first()
    )
    offer = Substitution.objects.create(
        table=table,
        seat_number=seating.seat_number,
        standby=standby,
        created_at=now,
        expires_at=now + league.claim_window,
    )
    if standby is None:
        hand_to_bot(offer)
        return offer
    game = table.game
    engine = get_engine(game.engine)
    board = board_templates(game.engine)
    context = {
        "expires_at": offer.expires_at,
        "game": game_facts(game, engine),
        "phase": phase_facts(current) if current else None,
        "seat_title": engine.seat_name(game.state, seating.seat_number),
        "view": engine.view(game.state, None),  # the public board: no hand before the seat is theirs
        "board_txt": board.email_text,
        "board_html": board.email_html,
        "link": claim_url(offer),
    }
    emails.queue(league, "substitute-offer", context, player=standby.player)
    return offer


def drop_absentee(seating: Seating, now: datetime, current: Phase, misses: int) -> Substitution:
    """The holder missed `misses` owed orders in a row: the seat goes to a substitute, and the holder is
    drawn for no new round until they say they are back (their settings page), so an absentee does not
    leave every new table playing on default orders. They are told both."""
    offer = drop_seat(seating, now, current=current)
    league = seating.table.round.season.league
    member = (
        Membership.objects.filter(league=league, player__seatings=seating)
        .exclude(status__in=[Membership.Status.DROPPED, Membership.Status.INACTIVE])
        .select_related("player")
        .first()
    )
    if member is not None:
        Membership.objects.filter(pk=member.pk).update(status=Membership.Status.INACTIVE)
        assert seating.table.game is not None
        context = {"game": game_facts(seating.table.game), "misses": misses}
        emails.queue(league, "member-inactive", context, player=member.player)
    return offer


def drop_member(membership: Membership, now: datetime | None = None) -> int:
    """An organiser drops a player from the league: their seats in games still running go to substitutes, and
    they are told (their links stop working: they would otherwise learn it from a refused order)."""
    now = now or timezone.now()
    dropped = 0
    with transaction.atomic():
        Membership.objects.filter(pk=membership.pk).update(status=Membership.Status.DROPPED)
        held = Seating.objects.filter(
            player_id=membership.player_id,
            until_phase__isnull=True,
            table__round__season__league_id=membership.league_id,
            table__game__status__in=[Game.Status.ACTIVE, Game.Status.PAUSED],
        ).select_related("table__game", "table__round__season__league")
        for seating in held:
            drop_seat(seating, now)
            dropped += 1
        emails.queue(membership.league, "member-dropped", {"seats": dropped}, player=membership.player)
    return dropped


def claim_url(offer: Substitution) -> str:
    token = signed.dumps({"x": offer.pk, "m": offer.standby_id}, salt=CLAIM_SALT)
    return settings.SITE_URL + reverse("leagues-claim", args=[token])


def read_claim(token: str) -> Substitution:
    try:
        data = signed.loads(token, salt=CLAIM_SALT)
        offer = Substitution.objects.select_related("table__game", "standby__player").get(pk=data["x"])
    except (signing.BadSignature, Substitution.DoesNotExist, KeyError, TypeError):
        raise LeagueError(_("This claim link is not valid.")) from None
    if offer.standby_id != data["m"]:
        raise LeagueError(_("This claim link is not valid."))
    return offer


def claim(token: str, now: datetime | None = None) -> Seat:
    """Give the offered seat to the standby player the link was sent to. Raises LeagueError, having
    changed nothing, if the offer was claimed already, has expired, went to a bot or its game is over."""
    now = now or timezone.now()
    offer = read_claim(token)
    with transaction.atomic():
        # The game's row first, locked as a resolution locks it: a claim and the game's last resolution
        # run one after the other (in the order a resolution takes its locks), so no claim lands on a
        # game that has just ended.
        locked_game = Game.objects.select_for_update(no_key=True).only("status", "phase_number")
        game = locked_game.get(pk=offer.table.game_id or 0)
        if game.status == Game.Status.FINISHED:
            raise LeagueError(str(GAME_OVER))
        # The lock makes a second claim wait for the first and then see it claimed.
        locked = Substitution.objects.select_for_update(of=("self",)).select_related("table", "standby__player")
        offer = locked.get(pk=offer.pk)
        if offer.status == Substitution.Status.CLAIMED:
            raise LeagueError(_("This seat has already been claimed."))
        if offer.status == Substitution.Status.WITHDRAWN:
            raise LeagueError(str(GAME_OVER))
        if offer.status != Substitution.Status.OFFERED or now > offer.expires_at:
            raise LeagueError(_("This offer has expired: the seat is played by a bot now."))
        assert offer.standby is not None
        seat = Seat.objects.get(game=game, number=offer.seat_number)
        try:
            seat = organise.replace_player(seat, offer.standby.player.email)
        except ValueError as error:
            raise LeagueError(str(error)) from None
        offer.status = Substitution.Status.CLAIMED
        offer.save(update_fields=["status"])
        Membership.objects.filter(pk=offer.standby.pk).update(status=Membership.Status.ACTIVE)
        # The Seating row is written by the league's seat_replaced receiver (games/leagues/policy.py).
    return seat


def seat_given(table: Table, seat: Seat, previous: Player | None, now: datetime) -> None:
    """A league seat was given to someone (a standby player's claim, or an organiser on the Seat page): the
    newcomer is an active member from now on, and any other offer of the seat is withdrawn. Given straight
    from one player to another by an organiser, the seat's history of offers shows it too (a claimed
    Substitution; the Seating rows are the seat_replaced receiver's), and the member it was taken from is told
    and drawn for no new round until they say they are back (inactive), as after missed turns."""
    league = table.round.season.league
    assert seat.player is not None and table.game is not None
    newcomer, _ = Membership.objects.get_or_create(league=league, player=seat.player)
    Membership.objects.filter(pk=newcomer.pk).exclude(status=Membership.Status.ACTIVE).update(
        status=Membership.Status.ACTIVE
    )
    offers = Substitution.objects.filter(table=table, seat_number=seat.number, status=Substitution.Status.OFFERED)
    claimed = offers.filter(standby=newcomer).exists()  # a standby player's claim: they asked for it
    offers.exclude(standby=newcomer).update(status=Substitution.Status.WITHDRAWN)
    if not claimed:  # seated by an organiser (the Seat page): welcomed, as a sign-up is
        emails.queue(
            league, "seat-welcome", {"game": game_facts(table.game), "seat": seat.number + 1}, player=seat.player
        )
    if previous is None:
        return
    Substitution.objects.create(
        table=table,
        seat_number=seat.number,
        standby=newcomer,
        status=Substitution.Status.CLAIMED,
        created_at=now,
        expires_at=now,
    )
    before = Membership.objects.filter(league=league, player=previous).exclude(status=Membership.Status.DROPPED)
    if before.update(status=Membership.Status.INACTIVE):
        context = {"game": game_facts(table.game), "seat": seat.number + 1}
        emails.queue(league, "seat-replaced", context, player=previous)


def withdraw_offers(table: Table) -> int:
    """The table's game is over: its seats still on offer are not to be had (the standby players stay on
    the standby list, first in line for the next seat)."""
    offered = Substitution.objects.filter(table=table, status=Substitution.Status.OFFERED)
    return offered.update(status=Substitution.Status.WITHDRAWN)


def expire_offers(now: datetime | None = None) -> int:
    """Offers nobody claimed in time: a bot takes the seat."""
    now = now or timezone.now()
    expired = 0
    for offer_id in Substitution.objects.filter(status=Substitution.Status.OFFERED, expires_at__lte=now).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            offer = Substitution.objects.select_for_update().filter(pk=offer_id, status="offered").first()
            if offer is not None:
                hand_to_bot(offer)
                expired += 1
    return expired


def hand_to_bot(offer: Substitution) -> None:
    """A bot plays the seat from now on, as the league's substitute policy says (a strong bot by default, or
    default orders only); the old holder's links stop working."""
    Substitution.objects.filter(pk=offer.pk).update(status=Substitution.Status.BOT)
    game = offer.table.game
    assert game is not None
    policy = offer.table.round.season.league.substitute_bot
    defaults = policy == League.SubstituteBot.DEFAULTS
    Seat.objects.filter(game=game, number=offer.seat_number).update(
        is_bot=True,
        bot_plays_defaults=defaults,
        bot_level=BotLevel.RANDOM if defaults else policy,
        player=None,
        link_key=new_link_key(),
    )
    phase = turns.current_phase(game)
    if phase is not None and phase.owes(offer.seat_number):
        bots.ask_bots(phase)
