"""Replies to a message email (games/talk/mail.py): the reply address names the seat and the conversation,
signed with the seat's link key and player, and a reply counts only if it comes from that seat's player's own
address, is not flagged as spam and was not sent by a program (the same rules as replies with orders,
games/incoming/mail/inbound.py, which ignores these addresses). What the player wrote above the quoted email (cut as for
orders, games/incoming/mail/replies.py) is posted in that conversation through the service, with every check of a
message written on the page; a refusal is told to the player at their own address, never to the sender."""

from __future__ import annotations

import logging
import re
from typing import Any

from anymail.signals import AnymailInboundEvent, inbound
from django.conf import settings
from django.db import transaction
from django.dispatch import receiver
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext

from games.incoming.mail.inbound import domain_of, read_reply, receipt_subject
from games.incoming.mail.quotes import reply_lines
from games.incoming.mail.replies import thread_headers
from games.incoming.mail.webhooks import unreadable_is_bad_request
from games.models import Seat
from games.outgoing import messages, receipts
from games.outgoing.emails import first_sent
from games.talk import services
from games.talk.mail import mask_thread, reply_address
from games.talk.models import thread_seats

log = logging.getLogger(__name__)
TALK_ADDRESS = re.compile(r"\+t([0-9]{1,18})x([0-9a-f]{1,8})-")


def find_conversation(recipients: list[str]) -> tuple[Seat, str] | None:
    """The seat and conversation whose reply address is one of these, exactly as generated (a relay may
    lowercase the local part; the signature is lowercase already)."""
    for address in recipients:
        local, _, domain = address.rpartition("@")
        match = TALK_ADDRESS.search(local)
        if not match or not settings.PBEM_REPLY_ADDRESS or domain.lower() != domain_of(settings.PBEM_REPLY_ADDRESS):
            continue
        seat = Seat.objects.select_related("game", "player").filter(pk=match.group(1)).first()
        thread = mask_thread(int(match.group(2), 16))
        expected = (reply_address(seat, thread) or "").rpartition("@")[0] if seat else ""
        if seat and expected and any(constant_time_compare(local, ours) for ours in {expected, expected.lower()}):
            return seat, thread
    return None


@receiver(inbound, dispatch_uid="pbem-inbound-talk")
def handle_talk_reply(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    with unreadable_is_bad_request(esp_name):
        reply = read_reply(event.message)
    if reply.automatic:
        return
    found = find_conversation(reply.recipients)
    if found is None:
        return  # not a message email's reply address: games.incoming.mail.inbound's
    seat, thread = found
    where = f"game {seat.game_id} seat {seat.number + 1}"
    if seat.player is None or reply.spam or reply.sender.lower() != seat.player.email.lower():
        # Nothing stored and nobody answered: the sender may be forged.
        log.warning("table talk reply for %s refused: spam, or not from the seat's player", where)
        return
    text = "\n".join(reply_lines(reply.text))
    with transaction.atomic():  # the message, or the refusal's notice, with the record that the reply was read
        if not receipts.first_reading(reply.key):
            log.info("table talk reply for %s: delivered again, taken already", where)
            return
        try:
            message = services.post(seat, seat.player, text, to=[n for n in thread_seats(thread) if n != seat.number])
        except services.Refused as refusal:
            log.info("table talk reply for %s refused: %s", where, refusal.field or "not allowed")
            to = seat.player.email
            root = first_sent(seat.game_id, [to]).get(to) or messages.message_id()
            body = gettext(
                "Your message was not sent: %(refusal)s\n\nNothing was stored. You can write on the game page too.\n"
            ) % {"refusal": refusal}
            headers = thread_headers(reply.message_id, reply.references, root)
            receipts.write(seat.game_id, to, receipt_subject(seat.game), body, headers)
            return
    log.info("table talk reply for %s: message %s", where, message.pk)
