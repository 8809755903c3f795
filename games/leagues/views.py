"""League pages: the public league page and CSV exports, the invite and confirmation pages, the claim page
for substitutes, a member's settings and vacations, and the calendar feed. GET never changes anything (mail
scanners follow links): confirming and claiming are POSTs from the page the link opens."""

from __future__ import annotations

import csv

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from games import words
from games.engines import get_engine
from games.incoming import sessions
from games.leagues import emails, ical, services, substitutes, vacations
from games.leagues.away import away_on
from games.leagues.forms import MemberSettingsForm, SignupForm, VacationForm
from games.leagues.models import League, Membership, Round, Season, Table
from games.leagues.results import seat_holders
from games.outgoing.links import seat_url
from games.outgoing.messages import zone_of
from games.play import turns

# The settings links of memberships this browser opened (games/incoming/sessions.py keeps them, as seat links).
SESSION_MEMBERS = sessions.grant_key("pbem_members")


def _error(request: HttpRequest, message: str, status: int = 400) -> HttpResponse:
    return render(request, "games/link_error.html", {"message": message}, status=status)


@require_GET
def league_page(request: HttpRequest, slug: str, number: int | None = None) -> HttpResponse:
    """The league's public page: a season's standings and rounds (the current season's, or `number`'s: past
    seasons stay readable), and links to every season."""
    league = get_object_or_404(League, slug=slug)
    seasons = list(league.seasons.order_by("number"))
    if number is None:
        season = seasons[-1] if seasons else None
    else:
        season = next((s for s in seasons if s.number == number), None)
        if season is None:
            raise Http404(_("No such season."))
    rounds = list(
        Round.objects.filter(season=season).prefetch_related("tables__game").order_by("-number") if season else []
    )
    holders = seat_holders(t for r in rounds for t in r.tables.all())
    today = timezone.now().astimezone(zone_of(league.time_zone)).date()
    members = league.memberships.filter(status=Membership.Status.ACTIVE).prefetch_related("vacations")
    context = {
        "league": league,
        "engine": get_engine(league.engine),
        "engine_title": words.game_title(get_engine(league.engine).title),
        "season": season,
        "seasons": seasons,
        "current": bool(seasons) and season == seasons[-1],
        "rows": services.named_standings(season) if season else [],
        "rounds": [(r, [(t, holders[t.pk]) for t in r.tables.all()]) for r in rounds],
        "away": [m.player for m in members.select_related("player") if away_on(m, today)],
        "standby": league.memberships.filter(status=Membership.Status.STANDBY).count(),
        "inactive": set(
            league.memberships.filter(status=Membership.Status.INACTIVE).values_list("player_id", flat=True)
        ),
    }
    return render(request, "leagues/league.html", context)


def _season(league: League, number: int | None) -> Season | None:
    """The season `number` of the league (404 if there is none), or its current one (None before any)."""
    if number is None:
        return league.seasons.order_by("-number").first()
    return get_object_or_404(Season, league=league, number=number)


@require_GET
def standings_csv(request: HttpRequest, slug: str, number: int | None = None) -> HttpResponse:
    """A season's standings (the current one's, or season `number`'s)."""
    league = get_object_or_404(League, slug=slug)
    season = _season(league, number)
    rows = services.named_standings(season) if season else []
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"{league.slug}-season-{season.number}-standings" if season and number else f"{league.slug}-standings"
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response)
    writer.writerow(["rank", "player", "points", "games", "wins", "average place", "reliability", "rating"])
    for row, person in rows:
        writer.writerow(
            [
                row.rank,
                person.display_name,
                f"{row.points:g}",
                row.games,
                f"{row.wins:g}",
                f"{row.average_place:.2f}",
                f"{row.reliability:.3f}",
                f"{row.rating:.2f}",
            ]
        )
    return response


@require_GET
def results_csv(request: HttpRequest, slug: str, number: int | None = None) -> HttpResponse:
    """Every finished league game (of season `number`, if given): one line per seat with its final score and
    rank (public at the end)."""
    league = get_object_or_404(League, slug=slug)
    season = _season(league, number) if number else None
    tables = (
        Table.objects.filter(round__season__league=league, game__finished_at__isnull=False)
        .filter(**({"round__season": season} if season else {}))
        .select_related("game", "round__season")
        .prefetch_related("game__seats__player")
        .order_by("round__season__number", "round__number", "number")
    )
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"{league.slug}-season-{number}-results" if season else f"{league.slug}-results"
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response)
    writer.writerow(["season", "round", "table", "game", "seat", "player", "score", "rank"])
    for table in tables:
        assert table.game is not None
        seats = {s.number: s for s in table.game.seats.all()}
        for result in table.game.result:
            seat = seats[result["seat"]]
            writer.writerow(
                [
                    table.round.season.number,
                    table.round.number,
                    table.number,
                    table.game.pk,
                    result["seat"] + 1,
                    seat.label,
                    result["score"],
                    result["rank"],
                ]
            )
    return response


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    league = get_object_or_404(League, slug=slug)
    try:
        services.check_invite(league, key)
    except services.LeagueError as error:
        return _error(request, str(error), status=403)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            services.request_signup(league, data["email"], data["name"], data["time_zone"], standby=data["standby"])
        except services.LeagueError as error:
            form.add_error(None, str(error))
        else:
            return render(request, "leagues/check_email.html", {"league": league, "email": data["email"]})
    return render(request, "leagues/join.html", {"league": league, "form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
def confirm(request: HttpRequest, token: str) -> HttpResponse:
    if request.method == "GET":
        return render(request, "leagues/confirm.html", {"token": token})
    try:
        membership = services.confirm_signup(token)
    except services.LeagueError as error:
        return _error(request, str(error))
    # The confirmation proves the address, but opens only this membership's settings page, like the
    # settings link in league emails: the player's games open by their own links.
    sessions.grant_row(request, SESSION_MEMBERS, membership)
    messages.success(
        request, _("Welcome to %(league_name)s: your address is confirmed.") % {"league_name": membership.league.name}
    )
    return redirect("leagues-member", slug=membership.league.slug)


@require_http_methods(["GET", "POST"])
def claim(request: HttpRequest, token: str) -> HttpResponse:
    try:
        offer = substitutes.read_claim(token)
    except services.LeagueError as error:
        return _error(request, str(error), status=403)
    if request.method == "GET":
        game = offer.table.game
        assert game is not None
        shown = {"status": offer.status, "seat_number": offer.seat_number, "expires_at": offer.expires_at}
        context = {"offer": shown, "game": {"id": game.pk, "title": game.name}, "token": token}
        return render(request, "leagues/claim.html", context)
    try:
        seat = substitutes.claim(token)
    except services.LeagueError as error:
        return _error(request, str(error), status=409)
    phase = turns.current_phase(seat.game)
    if phase is None:
        return redirect("games-game", game_id=seat.game_id)
    messages.success(request, _("The seat is yours. Here is your position."))
    return redirect(seat_url(seat, phase))


@never_cache  # Cache-Control: no-store: it shows the member's calendar feed's secret link
@require_http_methods(["GET", "POST"])
def member(request: HttpRequest, slug: str) -> HttpResponse:
    league = get_object_or_404(League, slug=slug)
    if "k" in request.GET:
        # The signed link from a league email opens this membership's settings page (not the member's
        # games), then drops the token from the address bar.
        member_id = emails.read_settings_token(request.GET["k"])
        linked = (
            Membership.objects.filter(pk=member_id, league=league).select_related("player").first()
            if member_id
            else None
        )
        if linked is None:
            return _error(request, _("This link is not valid. Please use the latest link from your email."), status=403)
        sessions.grant_row(request, SESSION_MEMBERS, linked)
        return redirect("leagues-member", slug=slug)
    membership = sessions.row_of(request, SESSION_MEMBERS, league.memberships.select_related("league"))
    if membership is None:
        return _error(
            request,
            _("Open the settings link in one of your league emails, or sign in at My games, to see this page."),
            status=403,
        )
    settings_form = MemberSettingsForm(request.POST if "save" in request.POST else None, instance=membership)
    vacation_form = VacationForm(request.POST if "vacation" in request.POST else None)
    if request.method == "POST":
        if "back" in request.POST:
            if services.come_back(membership):
                messages.success(request, _("Welcome back: you will be drawn from the next round on."))
            return redirect("leagues-member", slug=slug)
        if settings_form.is_bound and settings_form.is_valid():
            settings_form.save()
            messages.success(request, _("Settings saved."))
            return redirect("leagues-member", slug=slug)
        if vacation_form.is_bound and vacation_form.is_valid():
            try:
                extended = vacations.declare(membership, vacation_form.cleaned_data["days"])[1]
            except services.LeagueError as error:
                vacation_form.add_error(None, str(error))
            else:
                said = ngettext(
                    "Enjoy your vacation: %(count)d game deadline extended.",
                    "Enjoy your vacation: %(count)d game deadlines extended.",
                    len(extended),
                )
                messages.success(request, said % {"count": len(extended)})
                return redirect("leagues-member", slug=slug)
    context = {
        "league": league,
        "membership": membership,
        "settings_form": settings_form,
        "vacation_form": vacation_form,
        "days_left": league.vacation_days - vacations.days_used(membership),
        "calendar_url": ical.feed_url(membership),
    }
    status = 400 if settings_form.errors or vacation_form.errors else 200
    return render(request, "leagues/member.html", context, status=status)


@require_GET
def calendar(request: HttpRequest, key: str) -> HttpResponse:
    membership = get_object_or_404(Membership.objects.select_related("league"), calendar_key=key)
    return HttpResponse(ical.deadlines_feed(membership), content_type="text/calendar; charset=utf-8")
