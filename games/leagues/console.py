"""The organiser's console: one page per league and round (/admin/leagues/league/<id>/console/?round=<id>) with
each table, its phase, its deadline in the league's time zone, who still owes an order (by name, never what
anyone ordered) and who holds each seat, the members away, and the jobs at hand. Its buttons post to the
admin lists' own actions (games/admin.py, games/leagues/admin.py), which come back here with what they did:
each job has one path whichever page it starts from."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.admin import ModelAdmin
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _

from games.extensions import Fragment
from games.leagues import services
from games.leagues.admin_filters import leagues_of
from games.leagues.away import days_away
from games.leagues.models import League, Membership, Round, Table
from games.models import Game, Order, Phase, Player, Seat
from games.outgoing.durations import relative
from games.outgoing.messages import zone_of


@dataclass
class SeatRow:
    number: int  # as players count seats, from 1
    holder: str
    change_url: str  # the seat's page: replace its player


@dataclass
class TableRow:
    number: int
    game: str = ""
    game_id: int | None = None
    game_url: str = ""
    status: str = ""  # "not started" until the game exists (table_rows)
    phase: str = ""
    deadline: str = ""
    owing: list[str] = field(default_factory=list)
    seats: list[SeatRow] = field(default_factory=list)
    running: bool = False
    paused: bool = False


def shown(moment: datetime, league: League, now: datetime) -> str:
    local = moment.astimezone(zone_of(league.time_zone))
    return f"{dateformat.format(local, 'D d M Y H:i')} {local.tzname()} ({relative(moment, now)})"


def table_rows(league: League, round_: Round, now: datetime) -> list[TableRow]:
    """The round's tables, in a fixed number of queries whatever their number."""
    tables = list(Table.objects.filter(round=round_).select_related("game").order_by("number"))
    games = [t.game for t in tables if t.game is not None]
    seats: dict[int, list[Seat]] = defaultdict(list)
    for seat in Seat.objects.filter(game__in=games).select_related("player").order_by("number"):
        seats[seat.game_id].append(seat)
    phases = {p.game_id: p for p in Phase.objects.filter(game__in=games, status=Phase.Status.OPEN)}
    ordered = set(Order.objects.filter(phase__in=phases.values()).values_list("phase_id", "seat_id"))
    drawn = Player.objects.in_bulk({p for t in tables if t.game is None for p in t.players})
    rows = []
    for table in tables:
        row = TableRow(number=table.number, status=_("not started"))
        if table.game is None:
            row.seats = [SeatRow(n + 1, drawn[p].display_name, "") for n, p in enumerate(table.players) if p in drawn]
            rows.append(row)
            continue
        game = table.game
        row.game, row.game_id = str(game), game.pk
        row.game_url = reverse("admin:games_game_change", args=[game.pk])
        row.status = game.get_status_display()
        row.running, row.paused = game.status == Game.Status.ACTIVE, game.status == Game.Status.PAUSED
        phase = phases.get(game.pk) if game.status != Game.Status.FINISHED else None
        for seat in seats[game.pk]:
            holder = _("bot") if seat.is_bot else (seat.player.display_name if seat.player else _("open seat"))
            row.seats.append(SeatRow(seat.number + 1, holder, reverse("admin:games_seat_change", args=[seat.pk])))
            owes = phase is not None and phase.owes(seat.number) and not seat.is_bot
            if owes and phase is not None and (phase.pk, seat.pk) not in ordered:
                row.owing.append(_("seat %(number)s: %(who)s") % {"number": seat.number + 1, "who": holder})
        if phase is not None:
            row.phase = phase.label
            row.deadline = shown(phase.deadline, league, now) + (_(" — paused") if row.paused else "")
        rows.append(row)
    return rows


def console_view(model_admin: ModelAdmin[League], request: HttpRequest, league_id: str) -> HttpResponse:
    """The console of one of the user's leagues (another's is not found: it tells nothing)."""
    league = model_admin.get_queryset(request).filter(pk=league_id).first() if league_id.isdigit() else None
    if league is None or not model_admin.has_view_permission(request, league):
        raise Http404(_("No such league."))
    rounds = list(
        Round.objects.filter(season__league=league).select_related("season").order_by("-season__number", "-number")
    )
    chosen = request.GET.get("round")
    round_ = next((r for r in rounds if str(r.pk) == chosen), rounds[0] if rounds else None)
    now = timezone.now()
    today = now.astimezone(zone_of(league.time_zone)).date()
    members = Membership.objects.filter(league=league).select_related("player")
    counts: dict[str, int] = defaultdict(int)
    for member in members:
        counts[member.status] += 1
    away = days_away(league, [m.player_id for m in members], today)
    context: dict[str, Any] = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": _("%(league)s: console") % {"league": league},
        "league": league,
        "round": round_,
        "rounds": rounds,
        "tables": table_rows(league, round_, now) if round_ else [],
        "counts": dict(counts),
        "away": sorted((m.player.display_name, away[m.player_id], m.pk) for m in members if m.player_id in away),
        "here": request.get_full_path(),
        "time_zone": league.time_zone,
        "season": services.season_number(league),  # what the buttons name: a season started meanwhile refuses
    }
    response = TemplateResponse(request, "admin/leagues/league/console.html", context)
    with timezone.override(zone_of(league.time_zone)):  # every time on it, and the zone named at its top
        return response.render()


def staff_time_zone(user: Any) -> str | None:
    """The zone an organiser's admin pages speak: their leagues' (the zone most of them keep, if they differ);
    None (the server's) for staff who organise no league."""
    zones = League.objects.filter(organisers__pk=user.pk or 0).values("time_zone").annotate(leagues=Count("pk"))
    first = zones.order_by("-leagues", "time_zone").first()
    return first["time_zone"] if first else None


def game_time_zones(game_ids: Collection[int]) -> dict[int, str]:
    """A league game's times are its league's zone's, wherever the admin shows them (one query for a list)."""
    tables = Table.objects.filter(game_id__in=list(game_ids)).values_list("game_id", "round__season__league__time_zone")
    return {game_id: zone for game_id, zone in tables if game_id is not None}


def home_card(request: HttpRequest) -> Fragment | None:
    """The admin's home links the console of each of the user's leagues (nothing for staff who run none)."""
    if not request.user.has_perm("leagues.view_league"):
        return None
    leagues = [
        {
            "name": league.name,
            "console_url": reverse("admin:leagues_league_console", args=[league.pk]),
            "time_zone": league.time_zone,
        }
        for league in leagues_of(request).order_by("name")
    ]
    return Fragment("admin/leagues/_consoles.html", {"leagues": leagues}) if leagues else None
