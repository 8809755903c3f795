"""The organisers' admin. It never shows what the rules keep hidden: the engine state (hands, decks), the
seed (future shuffles), prompts (they list a seat's hand), sealed orders before their phase resolves, and
private log lines before the game ends, nor lets a list be filtered on them (ListedLookupsOnly). Every change
goes through games.turns. Staff who are not superusers see and act on only the games they are responsible for
(OrganisersGames)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import get_fields_from_path
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import Field, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.html import format_html_join

from games import bounces, emails, extensions, organise, turns
from games.durations import DurationInWordsField
from games.engines import all_engines, engine_choices
from games.models import Event, Game, Order, OutboundEmail, Phase, Player, Seat
from games.newgame import read_options, read_player, start_game
from games.talk.options import CORE_OPTIONS


def games_of(user: Any) -> QuerySet[Game]:
    """The games a staff user is responsible for: those they started with the Add game form, and those an
    app makes theirs (games.extensions: a league's organisers, its games)."""
    responsible = Q(started_by=user)
    for theirs in extensions.games_of(user):
        responsible |= theirs
    return Game.objects.filter(responsible)


class ListedLookupsOnly(admin.ModelAdmin):
    """Django's admin filters a list by any lookup on the model's own fields named in its query string
    (`?data__icontains=...`, `?seed__gt=...`): tried value by value, that reads what the pages hide (a sealed
    order, a hand, the seed, a link key). Here a list takes only the parameters of its own `list_filter` and
    `date_hierarchy`, and the row id; anything else is refused with a 400 (DisallowedModelAdminLookup), for
    superusers too. Search reaches only `search_fields`, and these name public fields only."""

    ROW_ID = frozenset({"id", "id__exact", "id__in", "pk", "pk__exact", "pk__in"})

    def lookup_allowed(self, lookup: str, value: str, request: Any = None) -> bool:
        return lookup in self.listed_lookups(request)

    def listed_lookups(self, request: HttpRequest) -> set[str]:
        lookups = set(self.ROW_ID)
        for item in self.get_list_filter(request):
            if isinstance(item, type) and issubclass(item, admin.SimpleListFilter):
                lookups.add(str(item.parameter_name))
            else:
                path = item[0] if isinstance(item, list | tuple) else item  # (path, filter class) or a path
                lookups |= self.filter_parameters(path.name if isinstance(path, Field) else str(path))
        if self.date_hierarchy:
            lookups |= {f"{self.date_hierarchy}__{part}" for part in ("year", "month", "day")}
        return lookups

    def filter_parameters(self, path: str) -> set[str]:
        """The parameters Django's list filters for the field at `path` put in the list's links: by related
        row, by value or choice, by date range, empty or not."""
        field: Any = get_fields_from_path(self.model, path)[-1]
        if field.is_relation:
            return {f"{path}__{field.target_field.name}__exact", f"{path}__isnull", f"{path}__isempty"}
        return {path, f"{path}__exact", f"{path}__isnull", f"{path}__isempty", f"{path}__gte", f"{path}__lt"}


class StaffScoped(ListedLookupsOnly):
    """On a server shared by several organisers, staff who are not superusers see only the rows `scope`
    keeps. Lists, change pages, pickers and bulk actions all start from get_queryset, so nothing else can
    reach another organiser's rows. Lengths of time read "2 days", not Django's "2 00:00:00"."""

    formfield_overrides = {models.DurationField: {"form_class": DurationInWordsField}}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else self.scope(queryset, request.user)

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        raise NotImplementedError


class OrganisersGames(StaffScoped):
    """Rows of the games a staff user is responsible for. `game_path` leads from the model to Game."""

    game_path = "game"

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        return queryset.filter(**{f"{self.game_path}__in": games_of(user)})


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Player)
class PlayerAdmin(StaffScoped):
    # A bounce or a complaint the provider reported (games/bounces.py) shows, and filters, here.
    list_display = ["email", "name", "time_zone", "notify", "mail_problem", "mail_problem_at", "created_at"]
    list_filter = ["mail_problem"]
    # Never the session and sign-in columns: they are the player's keys.
    fields = ["email", "name", "time_zone", "notify", "mail_problem", "mail_problem_at", "mail_problem_detail"]
    readonly_fields = ["mail_problem", "mail_problem_at", "mail_problem_detail"]
    search_fields = ["email", "name"]
    ordering = ["email"]
    actions = ["address_works"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Only a superuser changes a player: their address is where their sign-in links go, so whoever could
        change it could sign in as them, in every game they play (the player changes it themselves, on My
        games, confirming it from the new address: games/addresses.py)."""
        return bool(request.user.is_superuser) and super().has_change_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        if change and "email" in form.changed_data:
            # Whoever held the old address's sessions and sign-in link is not the new address's holder.
            obj.session_epoch += 1
            obj.sign_in_sent_at = obj.new_email_sent_at = None
            obj.new_email = ""
            self.message_user(request, f"{obj.email}: the player's sessions and sign-in links were ended.")
        super().save_model(request, obj, form, change)

    @admin.action(description="The address works again: send it mail (clears a bounce or complaint)")
    def address_works(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        for player in queryset.exclude(mail_problem=""):
            bounces.address_fixed(player)

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        """Only the people of the user's own games, and those an app makes theirs (games.extensions: a
        league's members): an address is not theirs to browse otherwise (this also scopes the player pickers
        that autocomplete from here)."""
        theirs = Q(seats__game__in=games_of(user))
        for more in extensions.players_of(user):
            theirs |= more
        return queryset.filter(pk__in=Player.objects.filter(theirs).values("pk"))


class SeatPosition:
    @admin.display(description="seat", ordering="number")
    def position(self, seat: Seat) -> int:
        """Seats as the players see them, from 1 (they are stored from 0, as the engines number them)."""
        return seat.number + 1


class SeatInline(SeatPosition, ReadOnlyMixin, admin.TabularInline):
    model = Seat
    fields = readonly_fields = ("position", "player", "is_bot")
    extra = 0
    can_delete = False
    show_change_link = True


class SeedInput(forms.NumberInput):
    """Never echoes a typed seed back to the page: it decides every future shuffle."""

    def format_value(self, value: Any) -> None:
        return None


def options_help() -> str:
    lines = format_html_join(
        "",
        "<li>{}: <code>{}</code> (default {}): {}</li>",
        (
            (title, spec.name, "none" if spec.default is None else repr(spec.default), spec.label)
            for title, specs in [("Every game", CORE_OPTIONS), *((e.title, e.options) for e in all_engines())]
            for spec in specs
        ),
    )
    return f'A JSON object such as {{"name": "value"}}; {{}} keeps every default. The options:<ul>{lines}</ul>'


class NewGameForm(forms.Form):
    """A one-off game, as `manage.py creategame` starts it."""

    engine = forms.ChoiceField(label="Game", choices=engine_choices)
    title = forms.CharField(required=False, max_length=120, help_text="Blank: the game's name.")
    players = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="One email address a line, in seat order; a display name may follow a comma: "
        "<code>ann@example.org, Ann</code>.",
    )
    bots = forms.IntegerField(label="Bot seats", min_value=0, initial=0, help_text="Seated after the players.")
    phase_hours = forms.IntegerField(label="Phase length (hours)", min_value=1)
    options = forms.CharField(required=False, initial="{}", widget=forms.Textarea(attrs={"rows": 3}))
    seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=2**62,
        widget=SeedInput,
        help_text="Blank: random. Only to replay a known deal; it is never shown again.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["phase_hours"].initial = settings.PBEM_DEFAULT_DEADLINE_HOURS
        self.fields["options"].help_text = options_help()

    def clean_players(self) -> list[tuple[str, str]]:
        try:
            return [read_player(line) for line in self.cleaned_data["players"].splitlines() if line.strip()]
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def clean_options(self) -> dict[str, Any]:
        try:
            return read_options(self.cleaned_data["options"])
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None

    def start(self, started_by: Any) -> Game:
        """The new game, its first emails queued. ValueError (stores nothing) if create_game refuses."""
        data = self.cleaned_data
        return start_game(
            data["engine"],
            data["players"],
            bots=data["bots"],
            options=data["options"],
            phase_length=timedelta(hours=data["phase_hours"]),
            seed=data["seed"],
            title=data["title"],
            started_by=started_by,
        )


# An organiser edits a game's title and timings; the rest is the game's own record.
GAME_FIELDS = (
    "title",
    "engine",
    "status",
    "options",
    "phase_length",
    "reminder_before",
    "phase_number",
    "current_phase",
    "deadline",
    "result",
    "created_at",
    "finished_at",
    "started_by",
)


@admin.register(Game)
class GameAdmin(OrganisersGames):
    game_path = "pk"
    list_display = ["id", "title", "engine", "status", "phase_number", "current_phase", "deadline", "created_at"]
    list_filter = ["engine", "status"]
    search_fields = ["title", "seats__player__email"]
    fields = GAME_FIELDS
    readonly_fields = [name for name in GAME_FIELDS if name not in ("title", "phase_length", "reminder_before")]
    inlines = [SeatInline]
    actions = ["extend_24h", "extend_72h", "resolve_now", "pause", "resume"]

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        """Not a model form: a game is started by games.turns, like `manage.py creategame` does."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = NewGameForm(request.POST if request.method == "POST" else None)
        if form.is_valid():
            try:
                game = form.start(request.user)
            except ValueError as error:
                form.add_error(None, str(error))
            else:
                started = f"Started {game.title} with {game.seats.count()} seats; the first emails are on their way."
                self.message_user(request, started, messages.SUCCESS)
                return redirect("admin:games_game_change", game.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Start a game",
            "form": form,
            # The admin's fieldset rendering works for any form; its stubs only name ModelForm.
            "adminform": helpers.AdminForm(form, [(None, {"fields": list(form.fields)})], {}),  # type: ignore[arg-type]
        }
        return TemplateResponse(request, "admin/games/game/new_game.html", context)

    @admin.display(description="current phase")
    def current_phase(self, game: Game) -> str:
        phase = turns.current_phase(game)
        return phase.name if phase else "—"

    @admin.display(description="deadline")
    def deadline(self, game: Game) -> Any:
        phase = turns.current_phase(game)
        return phase.deadline if phase else None

    def _each(self, request: HttpRequest, queryset: QuerySet[Game], action: Any, done: str) -> None:
        for game in queryset:
            action(game)
        self.message_user(request, f"{done}: {queryset.count()} game(s).", messages.SUCCESS)

    @admin.action(description="Extend the current deadline by 24 hours")
    def extend_24h(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, lambda g: organise.extend_deadline(g, timedelta(hours=24)), "Extended")

    @admin.action(description="Extend the current deadline by 72 hours")
    def extend_72h(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, lambda g: organise.extend_deadline(g, timedelta(hours=72)), "Extended")

    @admin.action(description="Resolve the current phase now, with default orders for missing ones")
    def resolve_now(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, organise.resolve_now, "Resolved")

    @admin.action(description="Pause (deadlines stop)")
    def pause(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, organise.pause_game, "Paused")

    @admin.action(description="Resume (the open phase gets back the paused time)")
    def resume(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, organise.resume_game, "Resumed")


class ReplaceSeatForm(forms.ModelForm):
    new_email = forms.EmailField(
        required=False, help_text="Give this seat to another person. Links already sent stop working."
    )
    new_name = forms.CharField(required=False, max_length=80)

    class Meta:
        model = Seat
        fields: list[str] = []


@admin.register(Seat)
class SeatAdmin(SeatPosition, OrganisersGames):
    form = ReplaceSeatForm
    list_display = ["game", "position", "player", "is_bot"]
    list_filter = ["is_bot"]
    search_fields = ["player__email", "game__title"]
    readonly_fields = ["game", "position", "player", "is_bot"]
    fields = ["game", "position", "player", "is_bot", "new_email", "new_name"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Seat, form: Any, change: bool) -> None:
        email = form.cleaned_data.get("new_email")
        if email:
            try:
                organise.replace_player(obj, email, form.cleaned_data.get("new_name", ""))
            except ValueError as error:
                self.message_user(request, str(error), messages.ERROR)


class OrderInline(ReadOnlyMixin, admin.TabularInline):
    model = Order
    fields = readonly_fields = ("seat", "submitted_at", "revision", "is_default", "content")
    extra = 0
    can_delete = False

    @admin.display(description="order")
    def content(self, order: Order) -> str:
        return sealed_content(order)


def sealed_content(order: Order) -> str:
    if order.phase.status != Phase.Status.RESOLVED:
        return "sealed until the phase resolves"
    return str(order.data)


@admin.register(Phase)
class PhaseAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["game", "number", "name", "status", "deadline", "resolved_at", "used_defaults"]
    list_filter = ["status"]
    fields = readonly_fields = (
        "game",
        "number",
        "name",
        "owed",
        "status",
        "opened_at",
        "deadline",
        "resolved_at",
        "used_defaults",
    )
    inlines = [OrderInline]

    @admin.display(description="owed by seats")
    def owed(self, phase: Phase) -> str:
        return ", ".join(str(n + 1) for n in phase.owed_seats) or "—"


@admin.register(Order)
class OrderAdmin(ReadOnlyMixin, OrganisersGames):
    game_path = "phase__game"
    list_display = fields = readonly_fields = ("phase", "seat", "submitted_at", "revision", "is_default", "content")

    @admin.display(description="order")
    def content(self, order: Order) -> str:
        return sealed_content(order)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Order]:
        return super().get_queryset(request).select_related("phase", "seat")


@admin.register(Event)
class EventAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["game", "phase_number", "seq", "audience", "line"]
    list_filter = [("game", admin.RelatedOnlyFieldListFilter)]  # names only the games this user sees
    fields = readonly_fields = ("game", "phase_number", "seq", "audience", "line")

    @admin.display(description="seen by")
    def audience(self, event: Event) -> str:
        return "everyone" if event.seat is None else f"seat {event.seat + 1}"

    @admin.display(description="text")
    def line(self, event: Event) -> str:
        # A private line may show a hand: organisers read it once the game is over.
        if event.seat is not None and event.game.status != Game.Status.FINISHED:
            return "(private to that seat until the game ends)"
        return event.text

    def get_queryset(self, request: HttpRequest) -> QuerySet[Event]:
        return super().get_queryset(request).select_related("game")


@admin.register(OutboundEmail)
class OutboundEmailAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["id", "game", "kind", "to", "status", "attempts", "subject", "created_at", "sent_at"]
    list_filter = ["kind", "status"]
    search_fields = ["to", "subject"]
    fields = readonly_fields = (
        "game",
        "phase",
        "seat",
        "kind",
        "to",
        "status",
        "attempts",
        "subject",
        "error",
        "created_at",
        "sent_at",
    )
    actions = ["send_again"]

    @admin.action(description="Send again (failed or skipped emails)")
    def send_again(self, request: HttpRequest, queryset: QuerySet[OutboundEmail]) -> None:
        games = set(queryset.values_list("game_id", flat=True))
        queryset.exclude(status=OutboundEmail.Status.SENT).update(status=OutboundEmail.Status.PENDING)
        sent = sum(emails.send_pending(game_id) for game_id in games)
        self.message_user(request, f"{sent} email(s) sent.", messages.SUCCESS)
