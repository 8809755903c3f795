"""Sign-up for strangers: My games' sign-in form takes any address and answers every one the same way. A
player's address gets a sign-in link (games/incoming/sessions.py); an address that is nobody's gets a link that
makes its account when used (games/outgoing/links.py, sign_up_url), so no account exists for an address until
someone who reads its mail asks for it. Nothing is stored before: the link carries the address, signed, for
SIGN_IN_MINUTES.

So that the form is no way to flood an inbox or the server's mail, sign-up links are limited per address and
per client address (the one django-axes reads, pbem/settings.py's AXES_IPWARE_*). The counts live in the
cache, which is a table of the database (pbem/settings.py), shared by every web process: each use takes one
of a window's numbered slots with cache.add, an insert its primary key makes atomic (the database cache's
incr is a read then a write, which two requests at once would both pass; django-ratelimit says as much)."""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import translation
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy

from games.incoming import sessions
from games.incoming.middleware import browser_language
from games.models import Player
from games.outgoing.dispatch import SEND_SIGN_UP_LINK, after_commit
from games.outgoing.links import LinkError, read_sign_up_token

log = logging.getLogger(__name__)

PER_ADDRESS = timedelta(hours=12)
PER_CLIENT = timedelta(hours=1)


def take(kind: str, value: str, limit: int, window: timedelta) -> bool:
    """One of `limit` uses of `value` in the current window of `window`, if one is left. Keys are digests: the
    cache holds no address."""
    seconds = int(window.total_seconds())
    key = salted_hmac("pbem.sign-up-quota", f"{kind}:{value}").hexdigest()[:32]
    base = f"pbem:sign-up:{key}:{int(time.time()) // seconds}"
    return any(cache.add(f"{base}:{slot}", 1, seconds) for slot in range(limit))


def email_link(request: HttpRequest, address: str) -> None:
    """What My games' form does with an address: a player's gets a sign-in link, any other a sign-up link
    within its limits. Returns nothing: the page says the same whatever happened."""
    address = address.strip().lower()
    if Player.objects.filter(email=address).exists():
        sessions.email_sign_in_link(address, browser_language(request))
        return
    client = get_client_ip_address(request) or ""
    if not take("client", client, settings.PBEM_SIGN_UPS_PER_CLIENT, PER_CLIENT) or not take(
        "address", address, settings.PBEM_SIGN_UPS_PER_ADDRESS, PER_ADDRESS
    ):
        log.info("sign-up link not sent: over a limit")
        return
    after_commit(SEND_SIGN_UP_LINK, address, translation.get_language())  # the email in this page's language


USED = gettext_lazy(
    "This link has been used already: the account it makes exists. My games emails you a sign-in link for it."
)


def address_of(token: str) -> str:
    """The address a sign-up link is for, if it is genuine, fresh and nobody's yet. Changes nothing (GET)."""
    address = read_sign_up_token(token)
    if Player.objects.filter(email=address).exists():
        raise LinkError(USED)
    return address


def redeem(request: HttpRequest, token: str, name: str) -> Player:
    """Make the link's account and sign this browser in to it. Of two uses at once, one makes it; the other is
    refused as used (the address is unique)."""
    address = address_of(token)
    try:
        with transaction.atomic():
            player = Player.objects.create(email=address, name=name.strip())
    except IntegrityError:
        raise LinkError(USED) from None
    sessions.sign_in(request, player)
    log.info("player %s signed up by email link", player.pk)
    return player
