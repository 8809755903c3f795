"""Bounces and complaints, heard through anymail's tracking webhooks (/anymail/<provider>/tracking/, any
provider anymail supports, behind ANYMAIL_WEBHOOK_SECRET as the inbound webhook is).

A hard bounce (or a provider refusing to send to an address it knows is dead) and a complaint (the reader
marked our mail as spam) mark the player's address (`Player.mail_problem`, with when and the provider's
words). games/outgoing/mailpolicy.py reads the mark: a bounced address is sent nothing and its seats play their
default orders at once, as a missed deadline would have them (in a league that counts as a miss, so the
substitute rules apply); a complained one gets only the emails asking for an owed order. The organiser sees
the mark in the admin; the player is asked to fix it on their next page (games/incoming/views.py), and confirming or
changing the address on the settings page, or using a sign-in link, clears it.

Soft bounces are not marks: the provider retries them, and a full mailbox is not a dead one. anymail reports
Mailgun's and SparkPost's temporary failures as "deferred", but Postmark's SoftBounce and SendGrid's
"blocked" bounces as "bounced"; those, and any bounce whose SMTP reply is a 4xx, count as soft here.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from anymail.signals import AnymailTrackingEvent, EventType, RejectReason, tracking
from django.dispatch import receiver

from games.models import Player, unique_row
from games.play import addresses

log = logging.getLogger(__name__)
DEAD_ADDRESS = {RejectReason.BOUNCED, RejectReason.INVALID}
TEMPORARY_REPLY = re.compile(r"^\s*(4\d\d\b|4\.\d+\.\d+)")
SOFT_TYPES = {"softbounce", "blocked"}  # Postmark's bounce Type, SendGrid's bounce type


def is_soft(event: AnymailTrackingEvent) -> bool:
    esp = event.esp_event if isinstance(event.esp_event, dict) else {}
    kind = str(esp.get("Type") or esp.get("type") or "").lower()
    return kind in SOFT_TYPES or bool(TEMPORARY_REPLY.match(event.mta_response or ""))


def verdict(event: AnymailTrackingEvent) -> str | None:
    """What the event says of the address: bounced (dead), complained, or nothing we act on."""
    if event.event_type == EventType.COMPLAINED:
        return Player.MailProblem.COMPLAINED
    if event.event_type == EventType.BOUNCED and not is_soft(event):
        return Player.MailProblem.BOUNCED
    if event.event_type == EventType.REJECTED and event.reject_reason in DEAD_ADDRESS:
        return Player.MailProblem.BOUNCED
    return None


@receiver(tracking, dispatch_uid="pbem-bounces")
def handle_tracking(sender: Any, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any) -> None:
    problem = verdict(event)
    if problem is None or not event.recipient:
        return
    player = unique_row(Player.objects.filter(email__iexact=event.recipient.strip()))
    if player is None:
        log.info("%s %s for an address that is no player's: ignored", esp_name, event.event_type)
        return
    why = event.description or event.mta_response or str(event.reject_reason or "")
    changed = addresses.mark(player, problem, f"{esp_name} {event.event_type}: {why}".strip())
    # The player's id, never the address or the provider's text (it may quote the message).
    log.warning("%s %s: player %s marked %s (changed=%s)", esp_name, event.event_type, player.pk, problem, changed)
