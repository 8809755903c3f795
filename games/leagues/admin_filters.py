"""The admin's game list filtered by league and by round (games.extensions.game_filters): an organiser's own
leagues and their rounds only, by name, never an id. They take only their own parameters, and a value that is
not one of their choices shows every game the user may see."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy

from games.leagues.models import League, Round


def leagues_of(request: HttpRequest) -> QuerySet[League]:
    leagues = League.objects.all()
    return leagues if request.user.is_superuser else leagues.filter(organisers__pk=request.user.pk or 0)


class LeagueFilter(admin.SimpleListFilter):
    title = gettext_lazy("league")
    parameter_name = "league"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(league.pk), league.name) for league in leagues_of(request).order_by("name")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value or not value.isdigit():
            return queryset
        return queryset.filter(league_table__round__season__league__in=leagues_of(request).filter(pk=value))


class RoundFilter(admin.SimpleListFilter):
    title = gettext_lazy("round")
    parameter_name = "round"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        """The chosen league's rounds (every one of the user's leagues' before a league is chosen)."""
        rounds = Round.objects.filter(season__league__in=leagues_of(request)).select_related("season__league")
        league = request.GET.get("league", "")
        if league.isdigit():
            rounds = rounds.filter(season__league_id=league)
        ordered = rounds.order_by("season__league__name", "-season__number", "-number")
        return [(str(r.pk), f"{r.season.league.name} S{r.season.number} R{r.number}") for r in ordered]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value or not value.isdigit():
            return queryset
        rounds = Round.objects.filter(pk=value, season__league__in=leagues_of(request))
        return queryset.filter(league_table__round__in=rounds)
