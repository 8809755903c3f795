"""Organisers see a table's votes (what was proposed, when, and how it closed) and nothing of them that is
secret: not who proposed, not a ballot (Ballot is not registered). They cannot act on them: no organiser can
act as a player. Staff see only their own games' votes (OrganisersGames)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.admin.scope import OrganisersGames, ReadOnlyMixin
from games.votes.models import Proposal


@admin.register(Proposal)
class ProposalAdmin(ReadOnlyMixin, OrganisersGames):
    list_display = ["game", "kind", "status", "closes_at", "closed_at"]  # fits 1280 px; the page has the rest
    list_filter = ["kind", "status"]
    fields = readonly_fields = ("game", "kind", "status", "reason", "opened_at", "closes_at", "closed_at")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
