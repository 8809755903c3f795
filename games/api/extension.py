"""What the API app adds to the core (games/extensions.py, registered in games/api/apps.py): bots are never
emailed, and an organiser's bots are theirs in the admin (My games' tokens card is games/api/pages.py)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Q

from games.extensions import EmailAsk

# A bot's player record has an address at this reserved domain (RFC 2606: .invalid is never delivered), so
# it is known as a bot without a query on the path of every email.
BOT_DOMAIN = "bot.invalid"


def is_bot_address(address: str) -> bool:
    return address.lower().endswith("@" + BOT_DOMAIN)


def declines(ask: EmailAsk) -> Collection[int]:
    """Every email to a bot: it plays by the API alone."""
    return [player.pk for player in ask.players if is_bot_address(player.email)]


def owned_bots(user: Any) -> Q:
    """An organiser's bots are players they may seat (the admin's player lookups)."""
    return Q(api_bot__owner=user)
