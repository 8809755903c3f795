"""Orders by email reply, through anymail's inbound webhook (any provider anymail supports;
games/incoming/mail/webhooks.py wraps its views).

When PBEM_REPLY_ADDRESS is set (e.g. turns@in.example.org, routed by the provider to
/anymail/<provider>/inbound/), each turn email and reminder carries a Reply-To of the form
turns+<outbox id>-<signature>@in.example.org. The signature binds the address to the seat's link key, so
replacing the player makes old addresses stop working.

The credential is that address together with the sender: a reply counts only if it was sent to the address
exactly as we generated it (at our domain) and from the seat's player's own address, and no spam verdict is on
it. A refused reply stores nothing and gets no receipt (the sender may be forged); the seat's owner is told
once, at their own address. The README ("Replies by email") gives the reasons.

A reply holds lines like "role: seller" above the quoted email (games/incoming/mail/replies.py reads them as mail
clients write them). They become an order through the same service call as the web form; the player gets a receipt
(what was read, stored or why not, and what stands) at their own address. A message marked as sent by a program
(an out-of-office reply) is dropped unanswered. Receipts and notices go through their outbox
(games/outgoing/receipts.py), written in the transaction that took the reply, which also records the message as read:
a provider's redelivery is taken once, and the webhook's answer does not wait on outgoing mail.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import datetime
from email.utils import parseaddr, parsedate_to_datetime
from typing import Any

from anymail.inbound import AnymailInboundMessage
from anymail.signals import AnymailInboundEvent, inbound
from anymail.utils import EmailAddress
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import receiver
from django.utils import timezone, translation
from django.utils.crypto import constant_time_compare
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext, ngettext

from games.engines.base import ReadBack
from games.incoming import review
from games.incoming.mail.quotes import Ours
from games.incoming.mail.replies import (
    Reading,
    Texts,
    automatic_marker,
    read_order,
    spam_verdict,
    texts,
    thread_headers,
)
from games.incoming.mail.webhooks import unreadable_is_bad_request
from games.models import Game, Order, OutboundEmail, Phase, unique_row
from games.outgoing import mailpolicy, messages, receipts
from games.outgoing.emails import GAME_SUBJECT, first_sent, game_link, reply_address
from games.outgoing.links import mailto_player
from games.outgoing.order_text import order_lines
from games.play import orders

log = logging.getLogger(__name__)
# The outbox id in a reply address's local part (bounded: a longer number is no row of ours).
ROW_ID = re.compile(r"\+([0-9]{1,18})-")
NOTICE_EVERY = 24 * 3600  # seconds: a seat's owner hears of refused replies to one email at most this often


@dataclass(frozen=True)
class Reply:
    """What we use of an inbound email, read once: reading is where a malformed message fails."""

    sender: str  # the From address; empty unless there is exactly one
    recipients: list[str]  # To, Cc and the envelope recipient
    text: str  # the text part, or the HTML read as text if that is empty (table talk reads it)
    texts: Texts  # the text part and the HTML, whole (games/incoming/mail/replies.py): the cuts are read_order's
    subject: str
    spam: str | None  # why it counts as spam (games/incoming/mail/replies.py, spam_verdict), or None
    automatic: str | None  # the header that marks it as sent by a program
    message_id: str
    references: str
    written_at: datetime  # its Date, or when it arrived if it has none (or one in the future)
    key: str  # games/outgoing/receipts.py reply_key: the same for a redelivery of it
    sender_name: str = ""  # the From's display name: alone on a line, it signs the reply (quotes.py)


def read_reply(message: AnymailInboundMessage) -> Reply:
    sender = message.from_email
    recipients = [address.addr_spec for address in message.to + message.cc]
    if message.envelope_recipient is not None:
        recipients.append(message.envelope_recipient)
    # The whole text, not the provider's stripped_text: each provider strips quotes its own undocumented way,
    # and a raw MIME payload has none; one cut (games/incoming/mail/quotes.py) reads every provider's replies alike.
    found = texts(message)
    text = found.plain if found.plain.strip() else found.html
    if not all(isinstance(value, str) for value in [*recipients, found.plain, found.html]):
        raise TypeError("a recipient or the text is not a string")
    message_id = str(message.get("Message-ID") or "")
    from_address = sender.addr_spec if isinstance(sender, EmailAddress) else ""
    subject = str(message.subject or "")
    name = sender.display_name if isinstance(sender, EmailAddress) else ""
    references, date = str(message.get("References") or ""), str(message.get("Date"))
    if any(
        "\x00" in value
        for value in [*recipients, found.plain, found.html, message_id, from_address, subject, name, references, date]
    ):
        # No mail client writes a NUL (RFC 5322 forbids it, and PostgreSQL's text cannot hold it): refused unread.
        raise ValueError("a NUL character in the message")
    return Reply(
        sender=from_address,
        recipients=recipients,
        text=text,
        texts=found,
        subject=subject,
        spam=spam_verdict(message, settings.PBEM_SPAM_SCORE),
        automatic=automatic_marker(message),
        message_id=message_id,
        references=references,
        written_at=written_at(date),
        key=receipts.reply_key(message_id, from_address, *recipients, date, subject, text),
        sender_name=name,
    )


def written_at(date: str) -> datetime:
    """When the reply was written, as its Date says; its arrival (now) for a missing or unreadable Date, or one
    later than now (a clock running fast must not make a reply newer than what the player sends next)."""
    now = timezone.now()
    with suppress(TypeError, ValueError, IndexError, OverflowError):
        when = parsedate_to_datetime(date)
        if when.tzinfo is not None:
            return min(when, now)
    return now


def domain_of(address: str) -> str:
    return address.rpartition("@")[2].lower()[:100]


def find_row(recipients: list[str]) -> OutboundEmail | None:
    """The turn email whose reply address is one of these, exactly as generated (the domain in any case).

    A relay that lowercases local parts is common, so the generated address lowercased is accepted too (the
    signature is lowercase hex already); any other change, an upper-cased signature say, is not ours."""
    for address in recipients:
        local, _, domain = address.rpartition("@")
        match = ROW_ID.search(local)
        if not match or domain.lower() != domain_of(settings.PBEM_REPLY_ADDRESS):
            continue
        row = OutboundEmail.objects.select_related("seat__player", "phase__game").filter(pk=match.group(1)).first()
        expected = (reply_address(row) or "").rpartition("@")[0] if row else ""
        if expected and any(constant_time_compare(local, ours) for ours in {expected, expected.lower()}):
            return row
    return None


@dataclass(frozen=True)
class ReplyOutcome:
    stored: bool
    message: str


def ours(row: OutboundEmail) -> Ours:
    """What the turn email shows of itself when quoted: its sender's address and name, its reply address, its
    subject."""
    name, sender = parseaddr(settings.DEFAULT_FROM_EMAIL)
    addresses = tuple(filter(None, [sender, reply_address(row)]))
    return Ours(addresses, thread_subject(row.phase.game), tuple(filter(None, [name])))


def refusal(prompt: dict[str, Any], reading: Reading, one_seat: bool, example: list[str]) -> str:
    """Why a reply's order is not taken, or "" if it is, before the engine checks it: no order found, or
    `unclear`. `example`: a legal order now, written as the turn email teaches."""
    if not reading.order and not reading.broken and not reading.unread:
        # Field lines in the quoted part that are not the turn email's own example: an order written into the quote.
        written_below = [line for line in reading.in_quote if line not in example]
        if written_below:
            return gettext(
                "No order found above the quoted email. These lines are in the quoted part, under where your reply "
                "ends, so they were not read:\n%(lines)s\nWrite your order above the quoted email, like:\n%(example)s"
            ) % {"lines": indented(written_below), "example": indented(example)}
        return gettext("No order found in your reply. Write it above the quoted email, like:\n%(example)s") % {
            "example": indented(example)
        }
    return unclear(prompt, reading, one_seat, example)


def unclear(prompt: dict[str, Any], reading: Reading, one_seat: bool, example: list[str]) -> str:
    """Why a reply's order cannot be taken as meant, or "" if it can. A line of the order the client may have
    broken is never taken, nor an order with lines under it that may belong to it but were not read (it would
    be stored shortened). In a turn that is the seat's alone the order is played as it is stored, with no
    confirm step: every field must be there, and none given twice differently."""
    if reading.broken:
        line, after = reading.broken
        return gettext(
            'Your reply was not used: its line "%(line)s" goes on in the next line ("%(after)s"), as when mail '
            "programs break long lines, so we cannot be sure where your order ends. Send it again with each field "
            "on a line of its own, shorter, or as HTML, or use the game page."
        ) % {"line": line, "after": after}
    if reading.unread:
        return gettext(
            "Your reply was not used: we read these lines as your order:\n%(read)s\nbut under them are lines we "
            "did not read, which may be part of it:\n%(unread)s\nSo that your order is never stored shorter than "
            "you wrote it, send it again: a value of several steps goes on the lines right under its field line, "
            "one step a line, with no blank line between (a blank line ends it); anything else goes above the "
            "order. Like:\n%(example)s"
        ) % {"read": indented(reading.read), "unread": indented(reading.unread), "example": indented(example)}
    lines = indented(example)
    # An optional field may be left out: the turn email's example leaves it out when blank.
    missing = [f["name"] for f in prompt["fields"] if f["name"] not in reading.order and not f.get("optional")]
    if one_seat and missing:
        return ngettext(
            "Your reply was not used: this turn is yours alone and is played the moment your order is stored, "
            "so your reply must give every line of it, and %(missing)s is missing. Write them all above "
            "the quoted email, like:\n%(example)s",
            "Your reply was not used: this turn is yours alone and is played the moment your order is stored, "
            "so your reply must give every line of it, and %(missing)s are missing. Write them all above "
            "the quoted email, like:\n%(example)s",
            len(missing),
        ) % {"missing": ", ".join(missing), "example": lines}
    if one_seat and reading.twice:
        return gettext(
            "Your reply was not used: it gives %(fields)s more than once, differently, and this "
            "turn is yours alone (played the moment your order is stored), so we cannot tell which you meant."
        ) % {"fields": ", ".join(reading.twice)}
    return ""


def indented(lines: Iterable[str]) -> str:
    return "\n".join(f"  {line}" for line in lines)


def take_reply(row: OutboundEmail, reply: Reply) -> ReplyOutcome:
    """Read the reply against the turn it answers and submit its order through games.play.orders, which checks
    the turn and the order again under its lock. The receipt reads a stored order back in the engine's words,
    as the game page does, and a refusal says what stands instead."""
    phase = row.phase
    try:
        # The prompt and an example of a legal order now, read in one snapshot of the turn.
        turn = orders.open_turn(row.seat, phase.number, with_example=True, written_at=reply.written_at)
    except orders.TurnClosed:
        return ReplyOutcome(False, turn_over(row))
    except orders.Superseded as error:
        return ReplyOutcome(False, f"{error}{what_stands(row)}")
    reading = read_order(turn.prompt, reply.texts, replace(ours(row), signers=(reply.sender_name,)))
    refused = refusal(turn.prompt, reading, turn.alone, order_lines(turn.prompt, turn.example or {}))
    if refused:
        return ReplyOutcome(False, f"{refused}{what_stands(row)}")
    try:
        result = orders.submit_order(row.seat, phase.number, reading.order, written_at=reply.written_at, read_back=True)
    except orders.TurnClosed:
        return ReplyOutcome(False, turn_over(row))
    except orders.Superseded as error:
        return ReplyOutcome(False, f"{error}{what_stands(row)}")
    except orders.OrderRejected as error:
        return ReplyOutcome(False, gettext("Your order was not stored: %(why)s") % {"why": error} + what_stands(row))
    verdict = gettext("%(turn)s: %(outcome)s") % {
        "turn": phase.label,
        "outcome": review.outcome_words(result, phase.game_id, phase.number),
    }
    return ReplyOutcome(True, receipt_text(result.read_back, verdict))


def turn_over(row: OutboundEmail) -> str:
    """Why a reply to a turn no longer open was not used, and the turn open now: whether it asks this seat for
    an order, and the link to it (the receipt's own link opens the game page too)."""
    told = gettext("That turn (%(turn)s) is over, so your reply was not used.") % {"turn": row.phase.label}
    now = unique_row(Phase.objects.filter(game_id=row.game_id, status=Phase.Status.OPEN))
    if now is None:
        return told
    link = game_link(row.seat, row.phase.game)
    if str(row.seat.number) in (now.prompts or {}):
        more = gettext(
            "The turn open now is %(turn)s, and it asks you for an order: reply to its own email, or order at %(link)s"
        )
    else:
        more = gettext("The turn open now is %(turn)s; it asks nothing of you. The game page: %(link)s")
    return f"{told} {more % {'turn': now.label, 'link': link}}"


def what_stands(row: OutboundEmail) -> str:
    """After a refusal, what counts for the seat instead: its stored order read back, or that none is stored and
    the default order is played at the deadline (nothing while the turn is no longer open)."""
    phase = unique_row(Phase.objects.select_related("game").filter(pk=row.phase_id, status=Phase.Status.OPEN))
    if phase is None:
        return ""
    stored = unique_row(Order.objects.filter(phase=phase, seat=row.seat))
    if stored is None:
        zone = messages.zone_of(row.seat.player.time_zone if row.seat.player else None)
        deadline = date_format(timezone.localtime(phase.deadline, zone), gettext("D j M H:i T"))
        return "\n\n" + gettext(
            "No order of yours is stored for %(turn)s: unless one is in by %(deadline)s, the default order is played."
        ) % {"turn": phase.label, "deadline": deadline}
    lines = indented(review.read_back(phase.game, row.seat.number, stored.data).lines)
    return "\n\n" + gettext("Your order stored before stands:\n%(lines)s") % {"lines": lines}


def receipt_text(read: ReadBack | None, verdict: str) -> str:
    """What the receipt says: the stored order read back in words (with what may not be meant), then what
    became of it."""
    if read is None:
        return verdict
    lines = indented(read.lines)
    warnings = "".join("\n  " + gettext("Note: %(warning)s") % {"warning": warning} for warning in read.warnings)
    return gettext("We read your reply as:\n%(lines)s") % {"lines": lines} + f"{warnings}\n\n{verdict}"


def thread_subject(game: Game) -> str:
    """The subject every email of the game has, `<title> #<id>`."""
    return messages.render_line(GAME_SUBJECT, {"game": {"title": game.name, "id": game.pk}}, messages.zone_of(None))


def receipt_subject(game: Game) -> str:
    """`Re: ` and the game's thread subject, whatever the reply's subject had become: clients that thread by
    subject keep receipts with the game."""
    return f"Re: {thread_subject(game)}"


def answer(row: OutboundEmail, text: str, reply: Reply | None = None) -> None:
    """Queue a message to the seat's player at their own address (never the reply's sender): an answer to
    `reply`, in its thread, or (reply None) a notice in the game's thread (games/outgoing/receipts.py sends it)."""
    assert row.seat.player is not None
    to = row.seat.player.email
    # The reader's thread of the game: its first email sent to them.
    root = first_sent(row.game_id, [to]).get(to) or row.message_id
    thread = thread_headers(reply.message_id if reply else "", reply.references if reply else "", root)
    body = f"{text}\n\n" + gettext("The game page: %(link)s") % {"link": game_link(row.seat, row.phase.game)} + "\n"
    # Written in the reader's language (handle_inbound's override): the header says which.
    headers = {**thread, "Content-Language": translation.get_language() or settings.LANGUAGE_CODE}
    receipts.write(row.game_id, to, receipt_subject(row.phase.game), body, headers)


def tell_owner(row: OutboundEmail, why: str) -> None:
    """A refused reply is not answered to its sender, who may be forged (that would be backscatter): the seat's
    owner is told instead, at most once a day per email, and nothing the reply said is repeated."""
    if cache.add(f"pbem:refused-reply:{row.pk}", True, NOTICE_EVERY):
        assert row.seat.player is not None
        said = gettext("A reply to your turn email for %(turn)s was not used, and nothing was stored: %(why)s.")
        answer(row, said % {"turn": row.phase.label, "why": why})


def other_sender_notice(row: OutboundEmail, sender: str) -> str:
    """Why a reply from another address was refused, and what to do, told to the seat's own address."""
    assert row.seat.player is not None
    origin = (
        gettext("an address at %(domain)s") % {"domain": domain_of(sender)}
        if sender
        else gettext("no single sender address")
    )
    return gettext(
        "it came from %(origin)s, and only replies from %(own)s (the address this email was sent to) count for this "
        "seat. If that was you, send your reply again from %(own)s, or use the game page. If it was not, someone "
        "else has this turn email: the game page link in it opens your seat, so do not forward it"
    ) % {"origin": origin, "own": row.seat.player.email}


@receiver(inbound, dispatch_uid="pbem-inbound-orders")
def handle_inbound(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    with unreadable_is_bad_request(esp_name):
        reply = read_reply(event.message)
    unsubscribing = mailto_player(reply.recipients)
    if unsubscribing is not None:
        # A List-Unsubscribe mailto: (games/outgoing/mailpolicy.py). The signed address is the key, as the one-click
        # URL is: whatever the message says and whoever sent it, it can only lower that player's mail.
        changed = mailpolicy.decline_news(unsubscribing)
        log.info("inbound unsubscribe via %s for player %s: changed=%s", esp_name, unsubscribing.pk, changed)
        return
    if reply.automatic:
        # An out-of-office or other program's message: stored nowhere, answered never (not even the owner).
        log.info("inbound email via %s ignored: marked automatic (%s)", esp_name, reply.automatic)
        return
    row = find_row(reply.recipients)
    if row is None or row.seat.player is None:
        # Unknown, forged or foreign address: nobody to answer, nothing to change.
        domains = sorted({domain_of(address) for address in reply.recipients})[:5]
        log.info("inbound email via %s ignored: no reply address of ours (recipients at %s)", esp_name, domains)
        return
    with translation.override(messages.language_of(row.seat.player)):  # what the player is told, in their language
        _answer_reply(row, reply, esp_name)


def _answer_reply(row: OutboundEmail, reply: Reply, esp_name: str) -> None:
    assert row.seat.player is not None
    where = f"game {row.game_id} seat {row.seat.number}"
    if reply.spam:
        log.warning("inbound reply for %s refused: %s took it for spam (%s)", where, esp_name, reply.spam)
        with transaction.atomic():
            tell_owner(row, gettext("our mail provider took it for spam. Reply again, or use the game page"))
        return
    if reply.sender.lower() != row.seat.player.email.lower():
        # The operator learns the sender's domain (a player writing from another account?), not the address.
        domain = domain_of(reply.sender)
        log.warning("inbound reply for %s refused: the sender, at %r, is not the seat's player", where, domain)
        with transaction.atomic():
            tell_owner(row, other_sender_notice(row, reply.sender))
        return
    with transaction.atomic():
        if not receipts.first_reading(reply.key):
            log.info("inbound reply for %s: delivered again, taken already", where)
            return
        outcome = take_reply(row, reply)
        answer(row, outcome.message, reply)
    log.info("inbound reply for %s: stored=%s", where, outcome.stored)
