"""Bot accounts: an external program an organiser seats at tables, playing through the API alone.

A bot is a player record at the reserved domain bot.invalid (games/api/extension.py: no email is ever written
to it) with a Bot row naming the organiser who made it, and a play token. It is seated as anyone is, by its
address: in the Add game form, by giving it a seat (an organiser's Replace player), or as a league member. It
owes orders and misses deadlines like anyone; its seat is not a built-in bot's (Seat.is_bot stays false)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from games.api import tokens
from games.api.extension import BOT_DOMAIN
from games.api.models import Bot, Token
from games.models import Player
from games.talk.models import Delivery, TalkSettings


@dataclass(frozen=True)
class NewBot:
    bot: Bot
    secret: str


def make_bot(name: str, owner: Any) -> NewBot:
    """A bot named `name` made by the staff user `owner`, with its first play token."""
    name = " ".join(name.split())
    if not name:
        raise ValueError(_("A bot needs a name: the table sees it."))
    address = f"{slugify(name)[:30] or 'bot'}-{secrets.token_hex(4)}@{BOT_DOMAIN}"
    with transaction.atomic():
        player = Player.objects.create(email=address, name=name[:80])
        # Table talk reaches a player by email at once unless they chose otherwise: a bot reads it by the API.
        TalkSettings.objects.create(player=player, delivery=Delivery.TURN)
        bot = Bot.objects.create(player=player, owner=owner)
        made = tokens.make(player, "bot", Token.Scope.PLAY)
    return NewBot(bot=bot, secret=made.secret)


def new_token(bot: Bot) -> str:
    """A new play token for `bot`; its earlier tokens stop working."""
    with transaction.atomic():
        Token.objects.filter(player=bot.player, revoked_at__isnull=True).update(revoked_at=timezone.now())
        return tokens.make(bot.player, "bot", Token.Scope.PLAY).secret
