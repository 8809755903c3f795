"""Building a message: a kind's templates rendered in the reader's language and time zone, and the one place its
headers are set.

- `render`: a kind's subject, text and HTML templates, rendered once in the reader's language (`language_of`:
  their choice, else English) and time zone, dates and numbers formatted for the language; with a
  thread's subject, the kind's own subject becomes the headline: the body's first line (also the preview line
  mail clients show after the subject: there is no hidden preheader repeating it, which spam filters score);
- `compose`: the message, and the one place its headers are set (Message-ID at the site's domain,
  Auto-Submitted, the thread's References, Content-Language);
- `send_at_once`: what a person just asked for (a sign-in link), sent now rather than through an outbox.

Every outbox (games/outgoing/outbox.py) builds its messages here."""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.safestring import mark_safe

from games import words
from games.models import Player
from games.outgoing import mailpolicy

log = logging.getLogger(__name__)


def mail_domain() -> str:
    """The site's domain, which every Message-ID this server writes ends in (not the machine's name)."""
    return urlparse(settings.SITE_URL).hostname or "pbem.localhost"


def zone_of(name: str | None) -> ZoneInfo:
    """A reader's time zone by its name; UTC for none or one this machine does not know."""
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def language_of(player: Player | None) -> str:
    """The language a player's emails are written in: their choice (Player.language), else English."""
    code = player.language if player is not None else ""
    if code:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            pass
    return str(settings.LANGUAGE_CODE)


def message_id(local: str | None = None) -> str:
    """A Message-ID at the site's domain: `local` names it (a row's), or it is unique."""
    return f"<{local or 'pbem.' + uuid.uuid4().hex}@{mail_domain()}>"


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str
    headline: str = ""  # what this email says in a line, when its subject is its thread's
    language: str = ""  # what it is written in (Content-Language); "" for the language active when composed


HEADLINE_HTML = '<p style="margin:0 0 12px;font-weight:bold;">{}</p>'


def render(
    templates: str,
    context: dict[str, Any],
    zone: ZoneInfo,
    thread_subject: str | None = None,
    language: str | None = None,
) -> Rendered:
    """A kind's three templates, `<templates>-subject.txt`, `-body.txt` and `-body.html` (e.g.
    "emails/reminder"), in the reader's `language` (`language_of`; the active one if None), with datetimes shown
    in the reader's `zone`. The subject is one line.

    With `thread_subject` (a template), the message's subject is the thread's, the same for every email of
    the thread (mail clients that thread by subject keep them together), and the kind's own subject, what
    changes from one email to the next, becomes the headline (`headlined`)."""
    language = language or words.get_language() or str(settings.LANGUAGE_CODE)
    with timezone.override(zone), words.speaking(language):
        subject = " ".join(render_to_string(f"{templates}-subject.txt", context).split())
        text = render_to_string(f"{templates}-body.txt", context)
        html = spaced(render_to_string(f"{templates}-body.html", context))
    rendered = Rendered(subject=subject, text=text, html=html, language=language)
    return headlined(rendered, render_line(thread_subject, context, zone, language)) if thread_subject else rendered


# A closing cell, row, list item or block directly followed by the next tag: a newline between them changes
# nothing a reader sees, and keeps "abc</td><td>def" from reading as one word split by markup, which spam filters
# score (SpamAssassin's HTML_OBFUSCATE_*). Adjacent spans (a hand of cards) get a space, so their words stay apart
# for a filter as they do on the screen (TRACKER_ID read "SilkSilkGrainWine" as a tracking number).
BLOCK_ENDS = re.compile(r"(</(?:td|th|tr|li|p|div|table|h[1-6])>)(?=<)")


SPAN_ENDS = re.compile(r"</span>(?=<span)")


def spaced(html: str) -> str:
    return SPAN_ENDS.sub("</span> ", BLOCK_ENDS.sub("\\1\n", html))


def render_line(template: str, context: dict[str, Any], zone: ZoneInfo, language: str | None = None) -> str:
    """A one-line template (a subject), in the reader's zone and language (the active one if None)."""
    with timezone.override(zone), words.speaking(language or words.get_language() or str(settings.LANGUAGE_CODE)):
        return " ".join(render_to_string(template, context).split())


def headlined(rendered: Rendered, thread_subject: str) -> Rendered:
    """`rendered` under its thread's subject, its own subject as the headline: the first line of the text and of
    the HTML (which clients show as the preview line after the subject)."""
    headline = rendered.subject
    return Rendered(
        subject=thread_subject,
        text=f"{headline}\n\n{rendered.text}",
        html=with_headline(rendered.html, headline),
        headline=headline,
        language=rendered.language,
    )


def with_headline(html: str, headline: str) -> str:
    """The HTML with the headline first: just inside its <body>, or before a fragment."""
    first = HEADLINE_HTML.format(escape(headline))
    at = html.find(">", html.find("<body")) + 1 if "<body" in html else 0
    return html[:at] + first + html[at:]


@dataclass(frozen=True)
class Thread:
    """Where a message belongs: its own Message-ID and, unless it is the first of its thread for its reader,
    the Message-ID of that first email actually sent to them (References and In-Reply-To)."""

    message_id: str
    root: str | None = None


def compose(
    rendered: Rendered,
    to: str,
    *,
    kind: str,
    thread: Thread,
    reply_to: str | None = None,
    metadata: dict[str, str] | None = None,
    auto: str = "auto-generated",
    headers: dict[str, str] | None = None,
    declinable_by: Player | None = None,
) -> EmailMultiAlternatives:
    """The message for one reader: the text body with the HTML, if any, as its alternative. Every header a
    message carries is set here: its Message-ID at the site's domain, `Content-Language` (RFC 3282: the language
    it was rendered in), `Auto-Submitted` (RFC 3834:
    "auto-generated" for notifications, "auto-replied" for receipts), the thread's References, any `headers`
    a caller adds, and for news its reader may decline (`declinable_by`) the one-click unsubscribe
    (games/outgoing/mailpolicy.py)."""
    language = rendered.language or words.get_language() or str(settings.LANGUAGE_CODE)
    fixed = {"Message-ID": thread.message_id, "Auto-Submitted": auto, "Content-Language": language}
    if thread.root and thread.root != thread.message_id:
        fixed |= {"References": thread.root, "In-Reply-To": thread.root}
    headers = {**fixed, **(headers or {}), **mailpolicy.unsubscribe_headers(declinable_by)}
    message = EmailMultiAlternatives(
        subject=rendered.subject,
        body=rendered.text,
        to=[to],
        reply_to=[reply_to] if reply_to else None,
        headers=headers,
    )
    if rendered.html:
        with words.speaking(language):  # the frame's <html lang>
            message.attach_alternative(framed(rendered.html, rendered.subject), "text/html")
    # anymail extensions: providers that support them record the kind (and the row) for webhooks.
    message.tags = [kind]  # type: ignore[attr-defined]
    if metadata:
        message.metadata = metadata  # type: ignore[attr-defined]
    return message


def framed(html: str, title: str) -> str:
    """A whole email page: `html` itself if it is one, else the fragment in the sheet every email wears
    (templates/emails/_sheet.html: its colours, light and dark, set, as a client that darkens by itself needs)."""
    if "<html" in html[:200].lower():
        return html
    return spaced(render_to_string("emails/_sheet.html", {"title": title, "body": mark_safe(html)}))  # noqa: S308


def send_at_once(rendered: Rendered, to: str, *, kind: str, player_id: int) -> bool:
    """Send an email a person just asked for (a sign-in link, an address's confirmation) now, not through an
    outbox: it is worth something only for a while, and nothing retries it (they can ask again). Whether it
    went; a failure is logged with the player's id and the exception's name only."""
    try:
        compose(rendered, to, kind=kind, thread=Thread(message_id())).send()
    except Exception as error:  # noqa: BLE001  (the player can ask again; the log says why it failed)
        log.warning("%s email to player %s failed: %s", kind, player_id, type(error).__name__)
        return False
    return True
