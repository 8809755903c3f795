"""The admin's game list filtered by who started a game (games.extensions.game_filters): players, from the
lobby, or an organiser or a league. A value that is not one of its choices shows every game."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy


class StartedByPlayers(admin.SimpleListFilter):
    title = gettext_lazy("started by")
    parameter_name = "started_by"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("players", gettext("players, from the lobby")), ("organisers", gettext("an organiser or a league"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "players":
            return queryset.filter(lobby_table__isnull=False)
        if self.value() == "organisers":
            return queryset.filter(lobby_table__isnull=True)
        return queryset
