"""The organisers' admin. It never shows what the rules keep hidden: the engine state (hands, decks), the
seed (future shuffles), prompts (they list a seat's hand), sealed orders before their phase resolves, and
private log lines before the game ends, nor lets a list be filtered on them (ListedLookupsOnly). Every change
goes through games.play.turns. Staff who are not superusers see and act on only the games they are responsible for
(OrganisersGames)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from games import extensions, words
from games.admin.newgame import NewGameForm
from games.admin.scope import (
    ListedLookupsOnly,
    OrganisersGames,
    ReadOnlyMixin,
    StaffScoped,
    back_to_this_site,
    games_of,
    report,
)
from games.admin.zones import ROW_ZONE, shown_time
from games.engines import all_engines
from games.models import Event, Game, Order, OutboundEmail, Phase, Player, Seat, posted_id
from games.outgoing import emails
from games.play import addresses, organise, turns

# What the apps' admins build on (games/leagues/admin.py, games/talk/admin.py).
__all__ = ["ListedLookupsOnly", "OrganisersGames", "ReadOnlyMixin", "StaffScoped", "games_of"]


@admin.register(Player)
class PlayerAdmin(StaffScoped):
    # A bounce or a complaint the provider reported (games/incoming/mail/bounces.py) shows, and filters, here.
    # Columns chosen to fit a 1280 px window beside the filters (tests/admin/test_browser_lists.py); the rest is
    # on each player's page.
    list_display = ["email", "name", "mail_problem", "mail_problem_at"]
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
        games, confirming it from the new address: games/play/addresses.py)."""
        return bool(request.user.is_superuser) and super().has_change_permission(request, obj)

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        if change and "email" in form.changed_data:
            # Whoever held the old address's sessions and sign-in link is not the new address's holder.
            obj.session_epoch += 1
            obj.sign_in_sent_at = obj.new_email_sent_at = None
            obj.new_email = ""
            self.message_user(
                request, _("%(email)s: the player's sessions and sign-in links were ended.") % {"email": obj.email}
            )
        super().save_model(request, obj, form, change)

    @admin.action(description=gettext_lazy("The address works again: send it mail (clears a bounce or complaint)"))
    def address_works(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        for player in queryset.exclude(mail_problem=""):
            addresses.address_fixed(player)

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        """Only the people of the user's own games, and those an app makes theirs (games.extensions: a
        league's members): an address is not theirs to browse otherwise (this also scopes the player pickers
        that autocomplete from here)."""
        theirs = Q(seats__game__in=games_of(user))
        for more in extensions.players_of(user):
            theirs |= more
        return queryset.filter(pk__in=Player.objects.filter(theirs).values("pk"))


class SeatPosition:
    @admin.display(description=gettext_lazy("seat"), ordering="number")
    def position(self, seat: Seat) -> int:
        """Seats as the players see them, from 1 (they are stored from 0, as the engines number them)."""
        return seat.number + 1


class SeatInline(SeatPosition, ReadOnlyMixin, admin.TabularInline):
    model = Seat
    fields = readonly_fields = ("position", "player", "is_bot", "seat_page")
    template = "admin/readonly_tabular.html"  # headers on every column (axe)
    extra = 0
    can_delete = False

    @admin.display(description=gettext_lazy("seat's page"))
    def seat_page(self, seat: Seat) -> str:
        url = reverse("admin:games_seat_change", args=[seat.pk])
        return format_html(
            '<a href="{}">{}</a>', url, _("Seat %(number)s (replace its player)") % {"number": seat.number + 1}
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
    list_display = ["__str__", "engine", "status", "current_phase", "deadline"]
    list_filter = ["engine", "status"]
    search_fields = ["title", "seats__player__email"]
    fields = GAME_FIELDS
    readonly_fields = [name for name in GAME_FIELDS if name not in ("title", "phase_length", "reminder_before")]
    inlines = [SeatInline]
    actions = ["extend_24h", "extend_72h", "resolve_now", "pause", "resume"]

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Game], search_term: str) -> Any:
        """An untitled game is called by its game's name (Game.name), which is not stored: a search for `Genua`
        (or `Genoa`) finds the untitled games of Genoa too."""
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip().casefold()
        slugs = [
            e.slug
            for e in all_engines()
            if term and (term in words.game_title(e.title).casefold() or term in e.title.casefold())
        ]
        if slugs:
            found = found | queryset.filter(title="", engine__in=slugs)
        return found, may_have_duplicates

    def get_list_filter(self, request: HttpRequest) -> Any:
        return [*self.list_filter, *extensions.game_filters()]  # the apps' (a league's games, a round's)

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context: Any = None) -> HttpResponse:
        """Not a model form: a game is started by games.play.turns, like `manage.py creategame` does."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = NewGameForm(request.POST if request.method == "POST" else None)
        if form.is_valid():
            try:
                game = form.start(request.user)
            except ValueError as error:
                form.add_error(None, words.refusal(error))
            else:
                seats = game.seats.count()
                started = ngettext(
                    "Started %(title)s with %(count)d seat; the first emails are on their way.",
                    "Started %(title)s with %(count)d seats; the first emails are on their way.",
                    seats,
                ) % {"title": game.name, "count": seats}
                self.message_user(request, started, messages.SUCCESS)
                return redirect("admin:games_game_change", game.pk)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Start a game"),
            "form": form,
            # The admin's fieldset rendering works for any form; its stubs only name ModelForm.
            "adminform": helpers.AdminForm(form, [(None, {"fields": list(form.fields)})], {}),  # type: ignore[arg-type]
        }
        return TemplateResponse(request, "admin/games/game/new_game.html", context)

    @admin.display(description=gettext_lazy("current phase"))
    def current_phase(self, game: Game) -> str:
        phase = turns.current_phase(game)
        return phase.label if phase else "—"

    @admin.display(description=gettext_lazy("deadline"))
    def deadline(self, game: Game) -> str:
        """In the game's league's zone on the list (each row its own), in the page's on the game's page."""
        phase = turns.current_phase(game)
        return shown_deadline(phase.deadline if phase else None, getattr(game, ROW_ZONE, None))

    def _each(
        self, request: HttpRequest, queryset: QuerySet[Game], action: Callable[[Game], Any], verb: organise.Verb
    ) -> None:
        report(self, request, organise.outcome(verb, *organise.each(queryset, action)))

    @admin.action(
        description=gettext_lazy("Extend the current deadline by 24 hours (asks first)"), permissions=["change"]
    )
    def extend_24h(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        return self.extend(request, queryset, "extend_24h", timedelta(hours=24))

    @admin.action(
        description=gettext_lazy("Extend the current deadline by 72 hours (asks first)"), permissions=["change"]
    )
    def extend_72h(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        return self.extend(request, queryset, "extend_72h", timedelta(hours=72))

    def extend(self, request: HttpRequest, queryset: QuerySet[Game], action: str, by: timedelta) -> HttpResponse | None:
        """First a page naming each game's open phase, its deadline and the new one; Yes moves exactly those
        deadlines (games.play.organise.extend_as_shown): pressed twice, or after the phase resolved, it changes
        nothing more."""
        games = sorted(queryset, key=lambda g: g.pk)
        if request.POST.get("confirmed") != "yes":
            return extend_page(self, request, action, by, [game.pk for game in games], games)
        report(
            self,
            request,
            organise.outcome(organise.EXTENDED, *organise.extend_as_shown(games, by, shown_phases(request))),
        )
        return None

    @admin.action(
        description=gettext_lazy("Resolve the current phase now, with default orders for missing ones (asks first)"),
        permissions=["change"],
    )
    def resolve_now(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        """First a page naming, game by game, who has not ordered (their default orders will be played); the
        games resolve when its button is pressed."""
        if request.POST.get("confirmed") != "yes":
            return TemplateResponse(
                request, "admin/games/game/resolve_now.html", self.resolve_context(request, queryset)
            )
        # Each game's phase as the page confirmed it: one that resolved meanwhile is not followed by the next.
        done: list[Game] = []
        left: list[tuple[Game, str]] = []
        for game in sorted(queryset, key=lambda g: g.pk):
            number = posted_id(request.POST.get(f"phase_{game.pk}", ""))
            if organise.resolve_now(game, number):
                done.append(game)
            elif number is not None and game.status != Game.Status.FINISHED:
                left.append((game, organise.moved_on(game, number)))
            else:
                game.refresh_from_db(fields=["status"])
                left.append((game, organise.state_of(game)))
        report(self, request, organise.outcome(organise.RESOLVED, done, left))
        return None

    def resolve_context(self, request: HttpRequest, queryset: QuerySet[Game]) -> dict[str, Any]:
        now = timezone.now()
        rows = []
        zones = extensions.game_time_zones([game.pk for game in queryset])
        for game in queryset:
            phase = turns.current_phase(game)
            seats = organise.owing(game, phase)
            rows.append(
                {
                    "game": str(game),
                    "pk": game.pk,
                    "number": phase.number if phase else "",
                    "phase": phase.label if phase else "",
                    "deadline": shown_deadline(phase.deadline, zones.get(game.pk)) if phase else "",
                    "early": phase is not None and (phase.deadline > now or game.status == Game.Status.PAUSED),
                    "owing": [seat_name(seat) for seat in seats],
                    "over": game.status == Game.Status.FINISHED or phase is None,
                }
            )
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Resolve now?"),
            "rows": rows,
            "selected": [game.pk for game in queryset],
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "next": request.POST.get("next", ""),  # back to the organiser's console, if it asked
        }

    @admin.action(description=gettext_lazy("Pause (deadlines stop)"), permissions=["change"])
    def pause(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, organise.pause_game, organise.PAUSED)

    @admin.action(description=gettext_lazy("Resume (the open phase gets back the paused time)"), permissions=["change"])
    def resume(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        self._each(request, queryset, organise.resume_game, organise.RESUMED)


def seat_name(seat: Seat) -> str:
    """A seat as an organiser reads it: its number as players count, and who holds it."""
    who = seat.player.display_name if seat.player else _("nobody")
    return _("seat %(number)s: %(who)s") % {"number": seat.number + 1, "who": who}


def seat_in_game(seat: Seat) -> str:
    """A seat and its game by name, as an organiser reads them ("seat 2: Ann, in #14 Spring Cup ...")."""
    return _("%(seat)s, in %(game)s") % {"seat": seat_name(seat), "game": seat.game}


def shown_phases(request: HttpRequest) -> dict[int, organise.Shown]:
    """Each game's phase and deadline as a confirmation page showed them (its hidden `phase_<game>` and
    `deadline_<game>`), by game id; a game without both, or with a value that is not one, is left out."""
    shown = {}
    for key in request.POST:
        game_id, number = posted_id(key.removeprefix("phase_")), posted_id(request.POST.get(key, ""))
        if not key.startswith("phase_") or game_id is None or number is None:
            continue
        try:
            deadline = parse_datetime(request.POST.get(f"deadline_{game_id}", ""))
        except ValueError:
            continue
        if deadline is not None and timezone.is_aware(deadline):
            shown[game_id] = organise.Shown(number, deadline)
    return shown


def extend_page(
    model_admin: admin.ModelAdmin[Any],
    request: HttpRequest,
    action: str,
    by: timedelta,
    selected: list[int],
    games: list[Game],
) -> TemplateResponse:
    """The question an Extend asks first (the game list's, and a round's in games/leagues/admin.py): each game's
    open phase with its deadline now and the new one. The form carries each phase's number and exact deadline,
    which Yes extends from, and `selected`, the rows of `model_admin`'s list the action was asked for."""
    rows = []
    zones = extensions.game_time_zones([game.pk for game in games])  # each game's in its league's zone
    for game in games:
        phase = turns.current_phase(game)
        zone = zones.get(game.pk)
        rows.append(
            {
                "game": str(game),
                "pk": game.pk,
                "over": phase is None,
                "number": phase.number if phase else "",
                "phase": phase.label if phase else "",
                "deadline": shown_deadline(phase.deadline, zone) if phase else "",
                "new": shown_deadline(phase.deadline + by, zone) if phase else "",
                "stamp": phase.deadline.isoformat() if phase else "",
                "paused": game.status == Game.Status.PAUSED,
            }
        )
    hours = int(by.total_seconds() // 3600)
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": ngettext("Extend by %(hours)d hour?", "Extend by %(hours)d hours?", hours) % {"hours": hours},
        "hours": hours,
        "rows": rows,
        "action": action,
        "selected": selected,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "next": back if back_to_this_site(request, back := request.POST.get("next", "")) else "",  # the console's
    }
    return TemplateResponse(request, "admin/games/game/extend.html", context)


def shown_deadline(moment: datetime | None, zone_name: str | None = None) -> str:
    """A deadline as an organiser reads it: in `zone_name` (the page's zone if None), which it names."""
    return shown_time(moment, zone_name)


class ReplaceSeatForm(forms.ModelForm):
    new_email = forms.EmailField(
        required=False,
        label=gettext_lazy("New email"),
        help_text=gettext_lazy("Give this seat to another person. Links already sent stop working."),
    )
    new_name = forms.CharField(required=False, max_length=80, label=gettext_lazy("New name"))
    # Who held the seat when the page was shown: a replacement is refused if it changed hands since.
    holder = forms.CharField(widget=forms.HiddenInput, max_length=20)

    class Meta:
        model = Seat
        fields: list[str] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["holder"].initial = organise.holder_of(self.instance)


@admin.register(Seat)
class SeatAdmin(SeatPosition, OrganisersGames):
    form = ReplaceSeatForm
    list_display = ["game", "position", "player", "is_bot"]
    list_select_related = ["game", "player"]
    list_filter = ["is_bot"]
    search_fields = ["player__email", "game__title"]
    readonly_fields = ["game", "position", "player", "is_bot"]
    fields = ["game", "position", "player", "is_bot", "new_email", "new_name", "holder"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def response_change(self, request: HttpRequest, obj: Seat) -> HttpResponse:
        """A refused replacement goes back to the seat's page, with why and without the admin's "changed
        successfully"."""
        if getattr(request, "seat_refused", False):
            return redirect(request.path)
        return super().response_change(request, obj)

    def save_model(self, request: HttpRequest, obj: Seat, form: Any, change: bool) -> None:
        email = form.cleaned_data.get("new_email")
        if email:
            before = obj.player.display_name if obj.player else _("nobody")
            try:
                seat = organise.replace_player(
                    obj, email, form.cleaned_data.get("new_name", ""), form.cleaned_data["holder"]
                )
            except ValueError as error:
                self.message_user(request, str(error), messages.ERROR)
                request.seat_refused = True  # type: ignore[attr-defined]  # read by response_change
            else:
                assert seat.player is not None
                said = _(
                    "Seat %(number)s of %(game)s: %(before)s → %(name)s (%(email)s). The links sent before stop "
                    "working; the newcomer gets the turn email."
                ) % {
                    "number": seat.number + 1,
                    "game": seat.game,
                    "before": before,
                    "name": seat.player.display_name,
                    "email": seat.player.email,
                }
                self.message_user(request, said)


class OrderInline(ReadOnlyMixin, admin.TabularInline):
    model = Order
    fields = readonly_fields = ("seat", "submitted_at", "revision", "is_default", "content")
    template = "admin/readonly_tabular.html"  # headers on every column (axe)
    extra = 0
    can_delete = False

    @admin.display(description=gettext_lazy("order"))
    def content(self, order: Order) -> str:
        return sealed_content(order)


def sealed_content(order: Order) -> str:
    if order.phase.status != Phase.Status.RESOLVED:
        return _("sealed until the phase resolves")
    return str(order.data)


@admin.register(Phase)
class PhaseAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["shown_name", "game", "status", "deadline"]
    list_select_related = ["game"]
    list_filter = ["status"]
    fields = readonly_fields = (
        "game",
        "number",
        "shown_name",
        "owed",
        "status",
        "opened_at",
        "deadline",
        "resolved_at",
        "used_defaults",
    )
    inlines = [OrderInline]

    @admin.display(description=gettext_lazy("name"), ordering="number")
    def shown_name(self, phase: Phase) -> str:
        """In the organiser's language (a phase stored before the names were messages: its English)."""
        return phase.label

    @admin.display(description=gettext_lazy("owed by"))
    def owed(self, phase: Phase) -> str:
        seats = phase.game.seats.filter(number__in=phase.owed_seats).select_related("player").order_by("number")
        return "; ".join(seat_name(seat) for seat in seats) or "—"


@admin.register(Order)
class OrderAdmin(ReadOnlyMixin, OrganisersGames):
    game_path = "phase__game"
    fields = readonly_fields = ("phase", "seat", "submitted_at", "revision", "is_default", "content")
    list_display = ("holder", "turn", "game", "submitted_at", "is_default", "content")

    @admin.display(description=gettext_lazy("player"), ordering="seat__number")
    def holder(self, order: Order) -> str:
        return seat_name(order.seat)

    @admin.display(description=gettext_lazy("phase"), ordering="phase__number")
    def turn(self, order: Order) -> str:
        return order.phase.label

    @admin.display(description=gettext_lazy("game"))
    def game(self, order: Order) -> str:
        return str(order.phase.game)

    @admin.display(description=gettext_lazy("order"))
    def content(self, order: Order) -> str:
        return sealed_content(order)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Order]:
        return super().get_queryset(request).select_related("phase__game", "seat__player", "seat__game")


@admin.register(Event)
class EventAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["game", "phase_number", "seq", "audience", "line"]
    list_filter = [("game", admin.RelatedOnlyFieldListFilter)]  # names only the games this user sees
    fields = readonly_fields = ("game", "phase_number", "seq", "audience", "line")

    @admin.display(description=gettext_lazy("seen by"))
    def audience(self, event: Event) -> str:
        if event.seat is None:
            return pgettext("seen by", "everyone")
        seat = event.game.seats.select_related("player").filter(number=event.seat).first()
        return seat_name(seat) if seat else _("seat %(number)s") % {"number": event.seat + 1}

    @admin.display(description=gettext_lazy("text"))
    def line(self, event: Event) -> str:
        # A private line may show a hand: organisers read it once the game is over.
        if event.seat is not None and event.game.status != Game.Status.FINISHED:
            return _("(private to that seat until the game ends)")
        return event.words

    def get_queryset(self, request: HttpRequest) -> QuerySet[Event]:
        return super().get_queryset(request).select_related("game")


@admin.register(OutboundEmail)
class OutboundEmailAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["to", "kind", "game", "status", "sent_at"]
    list_select_related = ["game"]
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

    def has_send_permission(self, request: HttpRequest) -> bool:
        """Sending is changing the outbox: not the Organiser role's, which reads it (games/leagues/roles.py)."""
        return bool(request.user.has_perm("games.change_outboundemail"))

    @admin.action(description=gettext_lazy("Send again (failed or skipped emails)"), permissions=["send"])
    def send_again(self, request: HttpRequest, queryset: QuerySet[OutboundEmail]) -> None:
        """Only an email to the seat's holder now goes again: it is rendered when sent, with the seat's hand and
        live links, so one written for an earlier holder would hand them the seat (emails.for_holder)."""
        rows = list(queryset.exclude(status=OutboundEmail.Status.SENT).select_related("seat__player", "game"))
        again = [row for row in rows if emails.for_holder(row)]
        OutboundEmail.objects.filter(pk__in=[row.pk for row in again]).update(status=OutboundEmail.Status.PENDING)
        sent = sum(emails.send_pending(game_id) for game_id in {row.game_id for row in again})
        self.message_user(request, ngettext("%d email sent.", "%d emails sent.", sent) % sent, messages.SUCCESS)
        stale = [row for row in rows if not emails.for_holder(row)]
        if stale:
            names = "; ".join(
                _("%(kind)s to %(to)s (%(seat)s)") % {"kind": row.kind, "to": row.to, "seat": seat_in_game(row.seat)}
                for row in stale
            )
            refused = _("Not sent, as the seat is no longer theirs (its holder now gets their own emails): %s.")
            self.message_user(request, refused % names, messages.WARNING)
