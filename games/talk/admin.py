"""Organisers do not read table talk: the admin lists only messages a reader reported, with the report, and
nothing else of the app (participants, shares) is registered. A list is filtered on nothing hidden
(ListedLookupsOnly), and staff see only their own games' messages (OrganisersGames)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, gettext_lazy

from games.admin.scope import OrganisersGames, ReadOnlyMixin
from games.talk.models import TABLE, Message


@admin.register(Message)
class ReportedMessageAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["id", "game", "written_by", "to", "sent_at", "reported_by"]
    fields = readonly_fields = ("game", "written_by", "to", "sent_at", "text", "reported_by")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Message]:
        reported = super().get_queryset(request).filter(reports__isnull=False).distinct()
        return reported.select_related("game", "sender").prefetch_related("reports")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=gettext_lazy("written by"))
    def written_by(self, message: Message) -> str:
        return gettext("seat %(number)s (%(sender)s)") % {"number": message.sender_seat + 1, "sender": message.sender}

    @admin.display(description=gettext_lazy("to"))
    def to(self, message: Message) -> str:
        if message.thread == TABLE:
            return gettext("the table")
        return gettext("seats %(numbers)s") % {"numbers": ", ".join(str(int(n) + 1) for n in message.thread.split(","))}

    @admin.display(description=gettext_lazy("reported by"))
    def reported_by(self, message: Message) -> str:
        return "; ".join(
            gettext("seat %(number)s: %(reason)s")
            % {"number": r.by_seat + 1, "reason": r.reason or gettext("no reason given")}
            for r in message.reports.all()
        )
