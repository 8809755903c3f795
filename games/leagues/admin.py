"""The organisers' league admin. Bulk actions go through the league services, which go through
games.play.turns; nothing here shows a sealed order or a hand (tables link to the core's game admin)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import words
from games.admin.games import extend_page, shown_phases
from games.admin.scope import StaffScoped, report
from games.leagues import ical, jobs, services, vacations
from games.leagues.away import away_on
from games.leagues.console import console_view
from games.leagues.models import League, LeagueEmail, Membership, Round, Season, Substitution, Table, Vacation
from games.models import Player, Seat, posted_id
from games.outgoing.durations import in_words
from games.outgoing.messages import zone_of
from games.play.organise import Said, Verb, outcome


class OrganisersOwn(StaffScoped):
    """Staff who are not superusers see and act on only the leagues they organise (and everything in
    them), so one server can host many organisers' leagues. `league_path` leads from the model to League
    ("pk" for League itself)."""

    league_path = "league"

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        # Pick lists (a league, a player, a member) come scoped from those models' own admins (StaffScoped).
        return queryset.filter(**{f"{self.league_path}__in": League.objects.filter(organisers=user)})

    def row_zones(self, rows: Sequence[Any]) -> dict[Any, str]:
        """Each row's times in its league's zone (games/admin/zones.py)."""
        zone = "time_zone" if self.league_path == "pk" else f"{self.league_path}__time_zone"
        return dict(self.model._default_manager.filter(pk__in=[row.pk for row in rows]).values_list("pk", zone))


SIGNUPS_OPENED = Verb(
    gettext_lazy("Sign-ups opened %(count)s: %(rows)s."),
    gettext_lazy("Sign-ups not opened (%(count)s): %(rows)s."),
    gettext_lazy("No sign-ups opened: no leagues."),
)
SIGNUPS_CLOSED = Verb(
    gettext_lazy("Sign-ups closed %(count)s: %(rows)s."),
    gettext_lazy("Sign-ups not closed (%(count)s): %(rows)s."),
    gettext_lazy("No sign-ups closed: no leagues."),
)


@admin.register(League)
class LeagueAdmin(OrganisersOwn):
    league_path = "pk"
    list_display = ["name", "console", "game", "signups_open", "deadline_mode", "time_zone", "public_page"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["organisers"]
    readonly_fields = ["invite_link", "public_page"]
    actions = ["open_signups", "close_signups", "draw_round_now", "draw_round_tomorrow", "new_season"]

    @admin.display(description=gettext_lazy("engine"), ordering="engine")
    def game(self, league: League) -> str:
        """The league's game in the organiser's language (get_engine_display says the model's English)."""
        return dict(words.game_choices()).get(league.engine, league.engine)

    def formfield_for_choice_field(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        """The game's choices in the organiser's language (the model's are the English the migrations name)."""
        if db_field.name == "engine" and "choices" not in kwargs:
            labels = dict(words.game_choices())
            blank = db_field.blank or not (db_field.has_default() or "initial" in kwargs)
            kwargs["choices"] = [(value, labels.get(value, label)) for value, label in db_field.get_choices(blank)]
        return super().formfield_for_choice_field(db_field, request, **kwargs)

    fieldsets = [
        (None, {"fields": ["name", "slug", "engine", "options", "organisers", "invite_link", "public_page"]}),
        (gettext_lazy("Sign-ups"), {"fields": ["signups_open", "invite_key"]}),
        (gettext_lazy("Deadlines"), {"fields": ["time_zone", "deadline_mode", "phase_length", "daily_time"]}),
        (gettext_lazy("Missed turns"), {"fields": ["grace", "substitute_after", "claim_window", "substitute_bot"]}),
        (gettext_lazy("Vacations"), {"fields": ["vacation_days", "vacation_cap_days"]}),
        (gettext_lazy("Standings"), {"fields": ["points"]}),
        (gettext_lazy("Ending games early"), {"fields": ["early_endings"]}),
    ]

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        """The organisers an organiser may name: themselves and those they already run a league with (the
        server's other staff accounts are other organisers' business; a superuser names anyone)."""
        if db_field.name == "organisers" and not request.user.is_superuser:
            ours = League.objects.filter(organisers__pk=request.user.pk or 0)
            users = db_field.remote_field.model._default_manager
            kwargs["queryset"] = users.filter(Q(pk=request.user.pk) | Q(leagues__in=ours)).distinct()
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        if not request.user.is_superuser:
            form.instance.organisers.add(request.user)  # nobody locks themselves out of their own league

    def get_urls(self) -> list[Any]:
        console = self.admin_site.admin_view(lambda request, league_id: console_view(self, request, league_id))
        return [path("<path:league_id>/console/", console, name="leagues_league_console"), *super().get_urls()]

    @admin.display(description=gettext_lazy("console"))
    def console(self, league: League) -> str:
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:leagues_league_console", args=[league.pk]), _("Console")
        )

    @admin.display(description=gettext_lazy("invite link"))
    def invite_link(self, league: League) -> str:
        return services.invite_url(league) if league.pk else "—"

    @admin.display(description=gettext_lazy("public page"))
    def public_page(self, league: League) -> str:
        return format_html('<a href="/leagues/{}/">/leagues/{}/</a>', league.slug, league.slug) if league.pk else "—"

    def tell(self, request: HttpRequest, said: list[Said]) -> None:
        report(self, request, said)

    def save_model(self, request: HttpRequest, obj: League, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if change and "points" in form.changed_data:
            # Results already earned keep their points: each round scores with the points it was drawn with.
            self.message_user(
                request,
                _(
                    "Points per place are now %(points)s: they apply from the next round drawn. Rounds drawn "
                    "already keep the points they were drawn with."
                )
                % {"points": obj.points},
                messages.WARNING,
            )

    @admin.action(description=gettext_lazy("Open sign-ups"), permissions=["change"])
    def open_signups(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        done = [league for league in queryset if not league.signups_open]
        queryset.update(signups_open=True)
        left = [(league, _("open already")) for league in queryset if league not in done]
        self.tell(request, outcome(SIGNUPS_OPENED, done, left))

    @admin.action(description=gettext_lazy("Close sign-ups"), permissions=["change"])
    def close_signups(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        done = [league for league in queryset if league.signups_open]
        for league in done:
            services.close_signups(league)
        left = [(league, _("closed already")) for league in queryset if league not in done]
        self.tell(request, outcome(SIGNUPS_CLOSED, done, left))

    @admin.action(
        description=gettext_lazy("Draw the next round of the current season, starting now"), permissions=["change"]
    )
    def draw_round_now(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        for league in queryset:
            self.tell(request, jobs.draw_round(league, season=named_season(request)))

    @admin.action(
        description=gettext_lazy("Draw the next round, starting in 24 hours (change the time on the round's page)"),
        permissions=["change"],
    )
    def draw_round_tomorrow(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        for league in queryset:
            self.tell(request, jobs.draw_round(league, timezone.now() + timedelta(days=1), named_season(request)))

    @admin.action(
        description=gettext_lazy("Start a new season (once the current round is closed)"), permissions=["change"]
    )
    def new_season(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        for league in queryset:
            self.tell(request, jobs.new_season(league, named_season(request)))


def named_season(request: HttpRequest) -> int | None:
    """The season the console's button named (its hidden `season`), so that a season started meanwhile refuses
    the action; None from the list's bulk actions, which name none."""
    return posted_id(request.POST.get("season", ""))


@admin.register(Season)
class SeasonAdmin(OrganisersOwn):
    list_display = ["__str__", "league", "number", "started_at"]
    list_filter = ["league"]


class TableInline(admin.TabularInline):
    model = Table
    fields = readonly_fields = ("number", "seated", "game", "grace_used", "vacation")
    template = "admin/readonly_tabular.html"  # headers on every column (axe)
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("players"))
    def seated(self, table: Table) -> str:
        """Who sits at the table, by seat and name (the draw's, until the game exists)."""
        if table.game_id is None:
            people = Player.objects.in_bulk(table.players)
            names = [people[p].display_name if p in people else "?" for p in table.players]
        else:
            seats = Seat.objects.filter(game_id=table.game_id).select_related("player").order_by("number")
            names = [_("bot") if s.is_bot else s.player.display_name if s.player else _("open seat") for s in seats]
        return ", ".join(f"{n}. {name}" for n, name in enumerate(names, start=1))

    @admin.display(description=gettext_lazy("vacation added"))
    def vacation(self, table: Table) -> str:
        return in_words(table.vacation_added)


@admin.register(Round)
class RoundAdmin(OrganisersOwn):
    league_path = "season__league"
    list_display = ["__str__", "status", "starts_at", "finished_at", "console"]
    list_select_related = ["season"]
    list_filter = ["season__league", "status"]
    readonly_fields = ["season", "number", "status", "finished_at", "console"]
    fields = ["season", "number", "status", "starts_at", "finished_at", "console"]
    inlines = [TableInline]
    actions = ["extend_24h", "extend_72h", "pause", "resume", "start_now", "close"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # rounds are drawn from the league's actions

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        started = obj is not None and obj.status != Round.Status.SCHEDULED
        return [*self.readonly_fields, "starts_at"] if started else self.readonly_fields

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "starts_at":  # one labelled field, not Django's date and time boxes (axe: label)
            kwargs["form_class"] = forms.DateTimeField
            kwargs["help_text"] = _("In %(zone)s, as every time on these pages.") % {
                "zone": timezone.get_current_timezone_name()
            }
            kwargs["widget"] = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description=gettext_lazy("console"))
    def console(self, round_: Round) -> str:
        url = reverse("admin:leagues_league_console", args=[round_.season.league_id])
        return format_html('<a href="{}?round={}">{}</a>', url, round_.pk, _("Tables, deadlines and who owes an order"))

    def _each(self, request: HttpRequest, queryset: QuerySet[Round], job: Callable[[Round], list[Said]]) -> None:
        for round_ in queryset.order_by("pk"):
            report(self, request, job(round_))

    @admin.action(
        description=gettext_lazy("Extend every deadline of the round by 24 hours (asks first)"), permissions=["change"]
    )
    def extend_24h(self, request: HttpRequest, queryset: QuerySet[Round]) -> HttpResponse | None:
        return self.extend(request, queryset, "extend_24h", 24)

    @admin.action(
        description=gettext_lazy("Extend every deadline of the round by 72 hours (asks first)"), permissions=["change"]
    )
    def extend_72h(self, request: HttpRequest, queryset: QuerySet[Round]) -> HttpResponse | None:
        return self.extend(request, queryset, "extend_72h", 72)

    def extend(self, request: HttpRequest, queryset: QuerySet[Round], action: str, hours: int) -> HttpResponse | None:
        """As the game list's Extend: first a page naming each of the rounds' games with its open phase, its
        deadline and the new one; Yes moves exactly those (a game that moved since is left, with why)."""
        rounds = list(queryset.order_by("pk"))
        if request.POST.get("confirmed") != "yes":
            games = [game for round_ in rounds for game in services.round_games(round_).order_by("pk")]
            return extend_page(self, request, action, timedelta(hours=hours), [r.pk for r in rounds], games)
        shown = shown_phases(request)
        self._each(request, queryset, lambda r: jobs.extend_round(r, hours, shown))
        return None

    @admin.action(description=gettext_lazy("Pause every game of the round"), permissions=["change"])
    def pause(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        self._each(request, queryset, jobs.pause_round)

    @admin.action(description=gettext_lazy("Resume every game of the round"), permissions=["change"])
    def resume(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        self._each(request, queryset, jobs.resume_round)

    @admin.action(
        description=gettext_lazy("Start now (create the games and send the first emails)"), permissions=["change"]
    )
    def start_now(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        self._each(request, queryset, jobs.start_round)

    @admin.action(
        description=gettext_lazy("Close the round (once its games are over): standings go out"), permissions=["change"]
    )
    def close(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        self._each(request, queryset, jobs.close_round)


@admin.register(Membership)
class MembershipAdmin(OrganisersOwn):
    autocomplete_fields = ["player"]  # never a drop-down of every address on the server
    list_display = ["player", "league", "status", "away_now", "vacation_days_used"]  # fits 1280 px
    list_filter = ["league", "status"]
    search_fields = ["player__email", "player__name"]
    readonly_fields = ["calendar_feed"]
    exclude = ["calendar_key"]  # made with the membership; the feed's link above is what a member is given
    actions = ["drop", "to_standby", "activate"]

    @admin.display(description=gettext_lazy("away now"), boolean=True)
    def away_now(self, membership: Membership) -> bool:
        today = timezone.now().astimezone(zone_of(membership.league.time_zone)).date()
        return away_on(membership, today)

    @admin.display(description=gettext_lazy("vacation days used"))
    def vacation_days_used(self, membership: Membership) -> int:
        return vacations.days_used(membership)

    @admin.display(description=gettext_lazy("calendar feed"))
    def calendar_feed(self, membership: Membership) -> str:
        return ical.feed_url(membership) if membership.pk else "—"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Membership]:
        return super().get_queryset(request).select_related("player", "league").prefetch_related("vacations")

    def save_model(self, request: HttpRequest, obj: Membership, form: Any, change: bool) -> None:
        """A status changed in the form takes the same path as the actions (dropping offers the seats)."""
        if change and "status" in form.changed_data:
            report(self, request, jobs.set_status(obj, obj.status))
        super().save_model(request, obj, form, change)

    def _each(self, request: HttpRequest, queryset: QuerySet[Membership], status: str) -> None:
        for membership in queryset:
            report(self, request, jobs.set_status(membership, status))

    @admin.action(
        description=gettext_lazy("Drop from the league (their seats go to substitutes)"), permissions=["change"]
    )
    def drop(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._each(request, queryset, Membership.Status.DROPPED)

    @admin.action(description=gettext_lazy("Move to the standby list"), permissions=["change"])
    def to_standby(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._each(request, queryset, Membership.Status.STANDBY)

    @admin.action(description=gettext_lazy("Make active players"), permissions=["change"])
    def activate(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        self._each(request, queryset, Membership.Status.ACTIVE)


class ReadOnly(OrganisersOwn):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RecordVacationForm(forms.ModelForm):
    """An organiser records a member's vacation, starting today (the league's calendar), as the member's own
    settings page declares one: within the member's allowance, with the same effect on their games."""

    class Meta:
        model = Vacation
        fields = ["membership", "days"]
        labels = {"membership": gettext_lazy("Member")}
        help_texts = {
            "days": gettext_lazy("Days away, starting today. Their running games' deadlines move by as much.")
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("membership") and data.get("days") is not None:
            try:
                vacations.check_allowance(data["membership"], data["days"])
            except services.LeagueError as error:
                raise forms.ValidationError(str(error)) from None
        return data


@admin.register(Vacation)
class VacationAdmin(OrganisersOwn):
    league_path = "membership__league"
    form = RecordVacationForm
    list_display = ["membership", "starts_on", "days", "season", "created_at"]
    list_filter = ["season__league"]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return ["membership", "days"] if obj is None else ["membership", "starts_on", "days", "season", "created_at"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a vacation stands once recorded: the deadlines it moved have been told to the players

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "membership":
            members = Membership.objects.exclude(status=Membership.Status.DROPPED).select_related("player", "league")
            if not request.user.is_superuser:
                members = members.filter(league__in=League.objects.filter(organisers__pk=request.user.pk or 0))
            league = request.GET.get("league", "")  # the console's link: that league's members only
            if league.isdigit():
                members = members.filter(league_id=league)
            kwargs["queryset"] = members.order_by("league__name", "player__name", "player__email")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request: HttpRequest, obj: Vacation, form: Any, change: bool) -> None:
        vacation, extended = vacations.declare(obj.membership, obj.days, by_organiser=True)
        obj.pk, obj.season, obj.starts_on = vacation.pk, vacation.season, vacation.starts_on
        league = obj.membership.league
        games = "; ".join(
            _("%(game)s to %(when)s") % {"game": e.table.game, "when": jobs.when(e.deadline, league)} for e in extended
        )
        moved = (
            ngettext(
                "%(count)d game deadline moved: %(games)s.", "%(count)d game deadlines moved: %(games)s.", len(extended)
            )
            % {"count": len(extended), "games": games}
            if extended
            else _("No running game's deadline moved.")
        )
        away = ngettext(
            "%(name)s is away %(days)d day from today.", "%(name)s is away %(days)d days from today.", obj.days
        ) % {"name": obj.membership.player.display_name, "days": obj.days}
        self.message_user(request, f"{away} {moved}")


@admin.register(Substitution)
class SubstitutionAdmin(ReadOnly):
    league_path = "table__round__season__league"
    list_display = ["__str__", "standby", "status", "expires_at"]
    list_filter = ["status"]
    fields = ["table", "seat", "standby", "status", "created_at", "expires_at"]
    readonly_fields = ["seat"]

    @admin.display(description=gettext_lazy("seat"))
    def seat(self, substitution: Substitution) -> int:
        return substitution.seat_number + 1  # as players see seats, from 1


@admin.register(LeagueEmail)
class LeagueEmailAdmin(ReadOnly):
    list_display = ["to", "kind", "status", "sent_at"]
    list_filter = ["kind", "status", "digest"]
    search_fields = ["to", "subject"]
    exclude = ["text", "html"]  # a claim email carries a claim link: organisers need not see it
