"""The lobby in the admin: read-only, as nothing of it needs an organiser. A player-created game is a Game
like any other in the admin's game list (its "started by" filter tells them apart); the tables are listed
here with their seats and invitations. Staff who are not superusers see only tables whose game they are
responsible for (OrganisersGames), which a player's table never is."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.admin.scope import OrganisersGames, ReadOnlyMixin
from games.lobby.models import Invitation, Table, TableSeat


class SeatInline(admin.TabularInline):
    model = TableSeat
    fields = readonly_fields = ("number", "state", "player")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class InvitationInline(admin.TabularInline):
    model = Invitation
    fields = readonly_fields = ("inviter", "address", "answer", "sent_at", "answered_at")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["id", "engine", "title", "creator", "size", "status", "private", "start_by", "game"]
    list_filter = ["status", "engine", "private"]
    fields = readonly_fields = (
        "engine",
        "title",
        "creator",
        "size",
        "options",
        "phase_length",
        "daily_at",
        "time_zone",
        "bots_fill",
        "private",
        "start_by",
        "status",
        "created_at",
        "settled_at",
        "why_cancelled",
        "game",
        "rematch_of",
    )
    inlines = [SeatInline, InvitationInline]
    ordering = ["-id"]
