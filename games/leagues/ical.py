"""A member's deadlines as an iCalendar feed: one event per league game in which they owe an order now."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from icalendar import Calendar, Event

from games.leagues.models import Membership
from games.models import Phase, Seat
from games.outgoing.messages import mail_domain


def feed_url(membership: Membership) -> str:
    return settings.SITE_URL + reverse("leagues-calendar", args=[membership.calendar_key])


def deadlines_feed(membership: Membership) -> bytes:
    calendar = Calendar()
    calendar.add("prodid", "-//pbem//league deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", _("%(league)s: my deadlines") % {"league": membership.league.name})
    seats = {
        s.game_id: s
        for s in Seat.objects.filter(
            player_id=membership.player_id, game__league_table__round__season__league_id=membership.league_id
        )
    }
    phases = Phase.objects.filter(game_id__in=list(seats), status=Phase.Status.OPEN).select_related("game")
    for phase in phases:
        seat = seats[phase.game_id]
        if not phase.owes(seat.number):
            continue
        event = Event()
        event.add("uid", f"pbem-{phase.game_id}-{phase.number}-{seat.number}@{mail_domain()}")
        event.add("summary", _("Order due: %(game)s — %(phase)s") % {"game": phase.game.name, "phase": phase.label})
        event.add("dtstart", phase.deadline - timedelta(minutes=30))
        event.add("dtend", phase.deadline)
        event.add("dtstamp", phase.opened_at)
        event.add("url", settings.SITE_URL + reverse("games-game", args=[phase.game_id]))
        calendar.add_component(event)
    return calendar.to_ical()
