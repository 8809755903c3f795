"""anymail's inbound webhooks, each under a small wrapper: a payload that anymail's checks, its parsing or our
reading of the message cannot read is answered 400 (a 500 makes the provider retry for days), or 406 to Mailgun,
which retries every other refusal for 8 hours and stops only at a 406; with a log line that names the provider
and the error type only. anymail parses a payload partly in its views and partly lazily, when a header or body
is first read. Both are pure and deterministic, so a payload that fails to parse will fail again.

What a payload that was read says is games/incoming/mail/inbound.py's (orders) and games/talk/inbound.py's (table talk):
they answer through the receipts' outbox (games/outgoing/receipts.py), so nothing after the reading depends on outgoing
mail.

A message that comes without a provider (the mail server's pipe, `manage.py readmail`; a mailbox read over IMAP,
`manage.py mailbox`) is handed to the same receivers by take_raw, as the event anymail's raw-MIME webhooks build:
one path from the raw message on.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from anymail import urls as anymail_urls
from anymail.inbound import AnymailInboundMessage
from anymail.signals import AnymailInboundEvent, EventType, inbound
from anymail.webhooks.base import AnymailCoreWebhookView
from django.core.exceptions import BadRequest, SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.urls import URLPattern, re_path

log = logging.getLogger(__name__)


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


def take_raw(raw: bytes, via: str, envelope_recipient: str | None = None) -> bool:
    """Hand one RFC 5322 message, as the mail server delivered it, to the inbound receivers, as anymail's raw-MIME
    webhooks do (Python's email package parses it: AnymailInboundMessage is its EmailMessage). `via` names the
    way in for the log lines ("pipe", "imap"). True once the receivers took it (stored, answered or ignored, in
    their own transactions); False if it cannot be read, which a retry would not change. Errors of the database
    or the code propagate: the caller keeps the message for another try."""
    message = AnymailInboundMessage.parse_raw_mime_bytes(raw)
    message.envelope_recipient = envelope_recipient
    event = AnymailInboundEvent(event_type=EventType.INBOUND, esp_event=raw, message=message)
    try:
        inbound.send(sender=take_raw, event=event, esp_name=via)
    except UnreadablePayload:
        return False
    return True
