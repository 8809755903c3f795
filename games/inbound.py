"""Orders by email reply, through anymail's inbound webhook (any provider anymail supports).

When PBEM_REPLY_ADDRESS is set (e.g. turns@in.example.org, routed by the provider to
/anymail/<provider>/inbound/), each turn email and reminder carries a Reply-To of the form
turns+<outbox id>-<signature>@in.example.org. The signature binds the address to the seat's link key, so
replacing the player makes old addresses stop working.

The credential is that address together with the sender: a reply counts only if it was sent to the address
exactly as we generated it (at our domain) and from the seat's player's own address, and the provider did not
flag it as spam. A refused reply stores nothing and gets no receipt (the sender may be forged); the seat's
owner is told once, at their own address. The README ("How a turn works") gives the reasons.

A reply holds lines like "role: seller" above the quoted email (games/replies.py reads them as mail clients
write them). They become an order through the same service call as the web form; the player gets a short
receipt (what was read, stored or why not) at their own address. A message marked as sent by a program (an
out-of-office reply) is dropped unanswered.

anymail parses a payload partly in its views and partly lazily, when a header or body is first read. Both
are pure and deterministic, so a payload that fails to parse will fail again: it is answered 400 (a 500
makes the provider retry for days), or 406 to Mailgun, which retries every other refusal for 8 hours and
stops only at a 406; with a log line that names the provider and the error type only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from anymail import urls as anymail_urls
from anymail.inbound import AnymailInboundMessage
from anymail.signals import AnymailInboundEvent, inbound
from anymail.utils import EmailAddress
from anymail.webhooks.base import AnymailCoreWebhookView
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, re_path
from django.utils.crypto import constant_time_compare

from games import mail, mailpolicy, review, turns
from games.emails import first_sent, game_link, reply_address
from games.engines import OrderError
from games.engines.base import ReadBack
from games.links import mailto_player
from games.models import OutboundEmail
from games.replies import automatic_marker, order_lines, parse_order, reply_subject, reply_text, thread_headers

log = logging.getLogger(__name__)
# The outbox id in a reply address's local part (bounded: a longer number is no row of ours).
ROW_ID = re.compile(r"\+([0-9]{1,18})-")
NOTICE_EVERY = 24 * 3600  # seconds: a seat's owner hears of refused replies to one email at most this often


@dataclass(frozen=True)
class Reply:
    """What we use of an inbound email, read once: reading is where a malformed message fails."""

    sender: str  # the From address; empty unless there is exactly one
    recipients: list[str]  # To, Cc and the envelope recipient
    text: str  # the whole text (games/replies.py): the cuts are parse_order's
    subject: str
    spam: bool  # the provider's own verdict, where it gives one
    spam_score: float | None
    automatic: str | None  # the header that marks it as sent by a program
    message_id: str
    references: str


def read_reply(message: AnymailInboundMessage) -> Reply:
    sender = message.from_email
    recipients = [address.addr_spec for address in message.to + message.cc]
    if message.envelope_recipient is not None:
        recipients.append(message.envelope_recipient)
    # The whole text, not the provider's stripped_text: each provider strips quotes its own undocumented way,
    # and a raw MIME payload has none; one cut (games/replies.py) reads every provider's replies alike.
    text = reply_text(message)
    if not all(isinstance(value, str) for value in [*recipients, text]):
        raise TypeError("a recipient or the text is not a string")
    return Reply(
        sender=sender.addr_spec if isinstance(sender, EmailAddress) else "",
        recipients=recipients,
        text=text,
        subject=str(message.subject or ""),
        spam=message.spam_detected is True,
        spam_score=message.spam_score,
        automatic=automatic_marker(message),
        message_id=str(message.get("Message-ID") or ""),
        references=str(message.get("References") or ""),
    )


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


class NoOrderFound(turns.OrderRejected):
    pass


def take_reply(row: OutboundEmail, text: str) -> ReplyOutcome:
    """Submit the reply through the service layer, which checks the turn under its lock. The receipt reads a
    stored order back in the engine's words, as the game page does."""
    read: list[ReadBack] = []
    phase = row.phase

    def order_from_reply(prompt: dict[str, Any]) -> dict[str, Any]:
        order = parse_order(prompt, text)
        if not order:
            # The turn email's example: a legal order now, under the turn's lock.
            example = turns.engine_of(phase.game).example_order(phase.game.state, row.seat.number)
            lines = "\n".join(f"  {line}" for line in order_lines(prompt, example))
            raise NoOrderFound(f"No order found in your reply. Write it above the quoted email, like:\n{lines}")
        # Under the turn's lock with the phase open, the game's state is this phase's, as submit_order reads it.
        with suppress(OrderError):  # refused: the verdict says why
            read.append(review.read_back(phase.game, row.seat.number, review.check(phase.game, row.seat.number, order)))
        return order

    stored = False
    try:
        result = turns.submit_order(row.seat, phase.number, order_from_reply)
    except turns.TurnClosed:
        verdict = f"That turn ({phase.name}) is over, so your reply was not used."
    except NoOrderFound as error:
        verdict = str(error)
    except turns.OrderRejected as error:
        verdict = f"Your order was not stored: {error}"
    else:
        stored = True
        verdict = f"{phase.name}: {review.outcome_words(result, phase.game_id, phase.number)}"
    return ReplyOutcome(stored, receipt_text(read[0] if stored and read else None, verdict))


def receipt_text(read: ReadBack | None, verdict: str) -> str:
    """What the receipt says: the stored order read back in words (with what may not be meant), then what
    became of it."""
    if read is None:
        return verdict
    lines = "\n".join(f"  {line}" for line in read.lines)
    warnings = "".join(f"\n  Note: {warning}" for warning in read.warnings)
    return f"We read your reply as:\n{lines}{warnings}\n\n{verdict}"


class UnreadablePayload(BadRequest):
    """A payload anymail or we cannot read. A BadRequest, so Django answers 400 wherever it is raised."""


@contextmanager
def unreadable_is_bad_request(esp_name: str) -> Iterator[None]:
    """Whatever reading a payload raises (KeyError, TypeError, ValueError, LookupError... from anymail's parsers
    and Python's email package) means it cannot be read, now or on a retry. Django's own 400s, among them
    anymail's refusal of a wrong webhook secret, pass through unchanged. The error's message is not logged:
    it may quote the payload."""
    try:
        yield
    except (SuspiciousOperation, BadRequest):
        raise
    except Exception as error:  # noqa: BLE001  (parsing is pure: any error is the payload's)
        log.warning("unreadable %s inbound payload (%s): answered 400", esp_name, type(error).__name__)
        raise UnreadablePayload(f"unreadable {esp_name} inbound payload") from None


# The answer that tells a provider not to send an unreadable payload again, where it is not 400.
UNREADABLE_STATUS = {"Mailgun": 406}


class ReadableInbound(AnymailCoreWebhookView):
    """Put before an anymail inbound view: a payload that its checks, its parsing or our reading of the message
    cannot read is answered 400, with one log line; the rest of the request is anymail's."""

    def run_validators(self, request: HttpRequest) -> None:
        with unreadable_is_bad_request(self.esp_name):
            super().run_validators(request)

    def parse_events(self, request: HttpRequest) -> list[AnymailInboundEvent]:
        with unreadable_is_bad_request(self.esp_name):
            return super().parse_events(request)

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return super().post(request, *args, **kwargs)
        except UnreadablePayload:
            return HttpResponse("unreadable payload", status=UNREADABLE_STATUS.get(self.esp_name, 400))


def inbound_urlpatterns() -> list[URLPattern]:
    """anymail's inbound routes (/anymail/<esp>/inbound/), each served by its own view under ReadableInbound.
    pbem/urls.py puts these before anymail's URLs, whose tracking routes stay as anymail has them."""
    patterns = []
    for route in anymail_urls.urlpatterns:
        if route.name.endswith("_inbound_webhook"):
            view = route.callback.view_class
            readable: Any = type(view.__name__, (ReadableInbound, view), {})
            patterns.append(re_path(route.pattern.regex.pattern, readable.as_view(), name=route.name))
    return patterns


def answer(row: OutboundEmail, subject: str, text: str, reply: Reply | None = None) -> None:
    """Mail the seat's player at their own address (never the reply's sender): an answer to `reply`, in its
    thread, or (reply None) a notice in the game's thread. Marked as an automatic reply (RFC 3834, and
    Exchange's own header), so that an auto-responder does not answer it and two cannot loop."""
    assert row.seat.player is not None
    to = row.seat.player.email
    # The reader's thread of the game: its first email sent to them.
    root = first_sent(row.game_id, [to]).get(to) or row.message_id
    thread = thread_headers(reply.message_id if reply else "", reply.references if reply else "", root)
    body = f"{text}\n\nThe game page: {game_link(row.seat, row.phase.game)}\n"
    mail.compose(
        mail.Rendered(subject=reply_subject(subject, row.phase.name), text=body, html=""),
        to,
        kind="receipt",
        thread=mail.Thread(mail.message_id()),
        auto="auto-replied",
        headers={**thread, "X-Auto-Response-Suppress": "All"},
    ).send()


def tell_owner(row: OutboundEmail, why: str) -> None:
    """A refused reply is not answered to its sender, who may be forged (that would be backscatter): the seat's
    owner is told instead, at most once a day per email, and nothing the reply said is repeated."""
    if cache.add(f"pbem:refused-reply:{row.pk}", True, NOTICE_EVERY):
        assert row.seat.player is not None
        answer(
            row,
            row.subject,
            f"A reply to your turn email for {row.phase.name} was not used: {why}. Nothing was stored.\n"
            f"To play this turn, reply from {row.seat.player.email} or use the game page.",
        )


@receiver(inbound, dispatch_uid="pbem-inbound-orders")
def handle_inbound(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    with unreadable_is_bad_request(esp_name):
        reply = read_reply(event.message)
    unsubscribing = mailto_player(reply.recipients)
    if unsubscribing is not None:
        # A List-Unsubscribe mailto: (games/mailpolicy.py). The signed address is the key, as the one-click
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
    where = f"game {row.game_id} seat {row.seat.number}"
    if reply.spam:
        log.warning("inbound reply for %s refused: %s flagged it as spam (score %s)", where, esp_name, reply.spam_score)
        tell_owner(row, "our mail provider took it for spam")
        return
    if reply.sender.lower() != row.seat.player.email.lower():
        # The operator learns the sender's domain (a player writing from another account?), not the address.
        domain = domain_of(reply.sender)
        log.warning("inbound reply for %s refused: the sender, at %r, is not the seat's player", where, domain)
        origin = f"an address at {domain}" if reply.sender else "no single sender address"
        tell_owner(row, f"it came from {origin}, not from the address this seat plays with")
        return
    outcome = take_reply(row, reply.text)
    log.info("inbound reply for %s: stored=%s", where, outcome.stored)
    answer(row, reply.subject, outcome.message, reply)
