"""Vacations: each member has `vacation_days` per season. Declaring one moves the current deadline of each
of their running league games by the days away (calendar days in the league's time zone, so a 20:00
deadline stays at 20:00 across a daylight-saving change), but no game is extended by vacations for more
than the league's cap in total, so nobody can stall a game forever. The other players of each game whose
deadline moved are told the new deadline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.leagues import emails
from games.leagues.away import away_on
from games.leagues.models import Membership, Seating, Table, Vacation
from games.leagues.services import LeagueError, current_season
from games.models import Game
from games.outgoing.messages import zone_of
from games.play import endings
from games.play.deadlines import add_local_days


@dataclass(frozen=True)
class Extension:
    table: Table
    days: int
    deadline: datetime


def days_used(membership: Membership) -> int:
    season = current_season(membership.league)
    used = Vacation.objects.filter(membership=membership, season=season).aggregate(total=Sum("days"))["total"]
    return int(used or 0)


def check_allowance(membership: Membership, days: int) -> None:
    """LeagueError unless `days` fit what is left of the member's allowance this season."""
    if days < 1:
        raise LeagueError(_("A vacation lasts at least one day."))
    left = membership.league.vacation_days - days_used(membership)
    if days > left:
        raise LeagueError(
            ngettext(
                "Only %(left)d vacation day left this season, not %(days)d.",
                "Only %(left)d vacation days left this season, not %(days)d.",
                left,
            )
            % {"left": left, "days": days}
        )


def declare(
    membership: Membership, days: int, now: datetime | None = None, *, by_organiser: bool = False
) -> tuple[Vacation, list[Extension]]:
    """A vacation starting today (league time zone). Each running game's deadline moves by the days away,
    but by no more than what is left of the league's cap for that game (a longer vacation is allowed; its
    games just wait no longer than the cap). Raises LeagueError, changing nothing, beyond the season's
    allowance. `by_organiser`: recorded for the member by an organiser (the member's email says so)."""
    now = now or timezone.now()
    league = membership.league
    tz = zone_of(league.time_zone)
    cap = timedelta(days=league.vacation_cap_days)
    extended: list[Extension] = []
    with transaction.atomic():
        # One vacation of a member at a time: two recorded at once would both read the allowance before either
        # is stored, and both pass.
        Membership.objects.select_for_update().filter(pk=membership.pk).first()
        check_allowance(membership, days)
        vacation = Vacation.objects.create(
            membership=membership, season=current_season(league), starts_on=now.astimezone(tz).date(), days=days
        )
        held = Seating.objects.filter(
            player_id=membership.player_id,
            until_phase__isnull=True,
            table__round__season__league=league,
            table__game__status=Game.Status.ACTIVE,
        ).values_list("table__game_id", "table_id")
        for game_id, table_id in sorted(held):
            # The lock order of every path that moves a deadline (an Extend, a resolution, the league's grace):
            # the game's open phase with the game's row, then the table. Read unlocked, an Extend committed
            # meanwhile would be written over, and its hours lost.
            game, phase = endings.lock(game_id)
            if game is None or phase is None or game.status != Game.Status.ACTIVE:
                continue
            table = Table.objects.select_for_update(of=("self",)).get(pk=table_id)
            table.game = game
            grant = min(days, (cap - table.vacation_added).days)
            if grant <= 0:
                continue
            moved = add_local_days(phase.deadline, grant, tz)
            phase.save(update_fields=phase.move_deadline(moved, table.game.reminder_before))
            table.vacation_added += timedelta(days=grant)
            table.save(update_fields=["vacation_added"])
            extended.append(Extension(table=table, days=grant, deadline=phase.deadline))
            emails.deadline_moved(league, table.game, phase, away=membership.player)
        shown = [
            {"title": e.table.game.name_later, "days": e.days, "deadline": e.deadline} for e in extended if e.table.game
        ]
        vacation_facts = {"days": vacation.days, "starts_on": vacation.starts_on, "by_organiser": by_organiser}
        context = {"vacation": vacation_facts, "extended": shown}
        emails.queue(league, "vacation-confirmed", context, player=membership.player)
    return vacation, extended


__all__ = ["Extension", "away_on", "check_allowance", "days_used", "declare"]
