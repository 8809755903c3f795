"""The development outbox: the file email backend's messages, readable in a browser.

pbem/urls.py registers these URLs only while DEBUG is on, so a production server has no /outbox/ at all.
"""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import Message
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.http import require_GET


def _parse(path: Path) -> list[Message]:
    # The file backend appends messages to one file per connection, separated by a line of dashes.
    chunks = path.read_bytes().split(b"\n" + b"-" * 79 + b"\n")
    # The default policy decodes headers: a subject reads "Dein Zug" and "Zoë", not "=?utf-8?q?...".
    return [message_from_bytes(chunk.strip(b"\n"), policy=policy.default) for chunk in chunks if chunk.strip()]


def _part(message: Message, content_type: str) -> str:
    for part in message.walk():
        if part.get_content_type() == content_type:
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                return payload.decode(part.get_content_charset() or "utf-8", "replace")
    return ""


def _links_open_a_tab(html: str) -> str:
    """The email's HTML with every link opening a new tab, as a mail client opens it: inside the frame, a link to
    a page of the site would open in the frame, which the site's pages refuse (X-Frame-Options: DENY)."""
    base = '<base target="_blank">'
    head = re.search(r"<head[^>]*>", html, re.IGNORECASE)
    return html[: head.end()] + base + html[head.end() :] if head else base + html


def _first_line(message: Message) -> str:
    """What an email says in a line: a game's emails share their thread's subject, and differ in their first line."""
    return next((line.strip() for line in _part(message, "text/plain").splitlines() if line.strip()), "")


@require_GET
def outbox(request: HttpRequest) -> HttpResponse:
    folder = Path(settings.EMAIL_OUTBOX_DIR)
    files = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.exists() else []
    mails = [
        {"file": path.name, "index": i, "to": m["To"], "subject": m["Subject"], "date": m["Date"]}
        | {"first": _first_line(m)}
        for path in files[:100]
        for i, m in enumerate(_parse(path))
    ]
    return render(request, "games/outbox.html", {"mails": mails, "folder": folder})


@require_GET
def outbox_message(request: HttpRequest, name: str, index: int) -> HttpResponse:
    folder = Path(settings.EMAIL_OUTBOX_DIR)
    path = folder / name
    if path.parent != folder or not path.exists():
        raise Http404("No such message.")
    found = _parse(path)
    if index >= len(found):
        raise Http404("No such message.")
    message = found[index]
    context = {
        "message": message,
        "text": _part(message, "text/plain"),
        "html": _links_open_a_tab(html) if (html := _part(message, "text/html")) else "",
    }
    return render(request, "games/outbox_message.html", context)


urlpatterns = [
    path("", outbox, name="games-outbox"),
    path("<str:name>/<int:index>/", outbox_message, name="games-outbox-message"),
]
