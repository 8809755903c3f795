"""Who sees what in the admin: each list takes only the lookups it lists (ListedLookupsOnly), and staff who
are not superusers see only the rows of the games and leagues they are responsible for (StaffScoped,
OrganisersGames). games/admin.py and the apps' admins build on these."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import get_fields_from_path
from django.db import models
from django.db.models import Field, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme

from games import extensions
from games.admin.zones import ZonedTimes
from games.models import Game
from games.outgoing.durations import DurationInWordsField
from games.play.organise import Said


def games_of(user: Any) -> QuerySet[Game]:
    """The games a staff user is responsible for: those they started with the Add game form, and those an
    app makes theirs (games.extensions: a league's organisers, its games)."""
    responsible = Q(started_by=user)
    for theirs in extensions.games_of(user):
        responsible |= theirs
    return Game.objects.filter(responsible)


class ListedLookupsOnly(ZonedTimes):
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
    keeps. Lists, change pages and bulk actions start from get_queryset; a form's choices of another model
    (a membership's player, a vacation's member) and a list's filter by a related row ("By league") are
    scoped as that model's own admin list is, so nothing else can reach another organiser's rows. Lengths
    of time read "2 days", not Django's "2 00:00:00"."""

    formfield_overrides = {models.DurationField: {"form_class": DurationInWordsField}}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else self.scope(queryset, request.user)

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        raise NotImplementedError

    def get_field_queryset(self, db: Any, db_field: Any, request: HttpRequest) -> QuerySet[Any] | None:
        """A form's choices of a related model: the rows its own admin lists to this user. Django would offer
        every row of the table (a picker's POST takes any id it is given: another league's player)."""
        related = self.admin_site._registry.get(db_field.remote_field.model)
        if isinstance(related, StaffScoped) and not request.user.is_superuser:
            return related.get_queryset(request).using(db)
        return super().get_field_queryset(db, db_field, request)

    def get_list_filter(self, request: HttpRequest) -> Any:
        """A filter by a related row offers only the rows of this list (Django's lists every league)."""
        return [self.scoped_filter(item) for item in super().get_list_filter(request)]

    def scoped_filter(self, item: Any) -> Any:
        if isinstance(item, str) and get_fields_from_path(self.model, item)[-1].is_relation:
            return (item, admin.RelatedOnlyFieldListFilter)
        return item

    def response_action(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        """A bulk action run from another page (the organiser's console posts to the lists' own actions, so a
        job has one path) goes back there: to the form's `next`, a path on this site."""
        response = super().response_action(request, queryset)
        back = request.POST.get("next", "")
        if isinstance(response, HttpResponseRedirect) and back_to_this_site(request, back):
            return HttpResponseRedirect(back)
        return response


def back_to_this_site(request: HttpRequest, url: str) -> bool:
    return url.startswith("/") and url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()})


class OrganisersGames(StaffScoped):
    """Rows of the games a staff user is responsible for. `game_path` leads from the model to Game."""

    game_path = "game"

    def scope(self, queryset: QuerySet[Any], user: Any) -> QuerySet[Any]:
        return queryset.filter(**{f"{self.game_path}__in": games_of(user)})

    def row_zones(self, rows: Sequence[Any]) -> dict[Any, str]:
        """Each row's times in its game's zone (a league game's league's: games.extensions.game_time_zones)."""
        rows_games = self.model._default_manager.filter(pk__in=[row.pk for row in rows]).values_list(
            "pk", self.game_path
        )
        games = {pk: game_id for pk, game_id in rows_games if game_id is not None}
        zones = extensions.game_time_zones(set(games.values()))
        return {pk: zones[game_id] for pk, game_id in games.items() if game_id in zones}


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def report(model_admin: admin.ModelAdmin[Any], request: HttpRequest, said: Sequence[Said]) -> None:
    """Show what an action did (games.play.organise.outcome's lines) as the page's messages."""
    for line in said:
        model_admin.message_user(request, line.text, line.level)
