"""The Organiser role at work in the admin: two leagues with an organiser each, an action, what it said."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from django.test import Client
from django.urls import reverse

from games.leagues.models import League, Membership
from games.play import turns
from tests.support.leagues import make_league


def act(client: Client, model: str, action: str, *rows: Any, app: str = "leagues", **more: str) -> Any:
    """Run a list's bulk action on `rows`, as the admin's form posts it (with `more` fields: an answer to
    its question); the page it lands on."""
    form = {"action": action, "_selected_action": [row.pk for row in rows], **more}
    return client.post(reverse(f"admin:{app}_{model}_changelist"), form, follow=True)


def answer(client: Client, asked: Any, url: str | None = None) -> Any:
    """Press Yes on an action's question (its page `asked`): post the form's hidden fields as a browser would, to
    the list it came from; the page it lands on."""
    html = asked.content.decode()
    form = next(f for f in re.findall(r"<form method=\"post\".*?</form>", html, re.S) if 'name="confirmed"' in f)
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form):
        fields.setdefault(name, []).append(unescape(value))
    return client.post(url or asked.wsgi_request.path, fields, follow=True)


def replace_seat(client: Client, seat: Any, follow: bool = False, **fields: str) -> Any:
    """The seat's page filled in and saved, as a browser does: its hidden fields as the page gave them (who holds
    the seat, to be refused if it changed hands since), then `fields` (new_email, new_name)."""
    url = reverse("admin:games_seat_change", args=[seat.pk])
    page = client.get(url).content.decode()
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
    return client.post(url, {**{k: unescape(v) for k, v in hidden.items()}, **fields}, follow=follow)


def said_on(page: Any) -> list[str]:
    """The messages as the page's HTML shows them. For requests made at once from several threads: the test
    client gathers `context` from every template rendered meanwhile, the other thread's too, so `said` may read
    the other request's messages there."""
    html = page.content.decode()
    listed = re.search(r'<ul class="messagelist">(.*?)</ul>', html, re.S)
    items = re.findall(r"<li[^>]*>(.*?)</li>", listed.group(1), re.S) if listed else []
    return [unescape(re.sub(r"<[^>]+>", "", item)).strip() for item in items]


def said(page: Any) -> list[str]:
    return [str(message) for message in page.context["messages"]]


def two_leagues() -> tuple[League, League]:
    """Ours (4 members), and another organiser's (4 others)."""
    ours = make_league(players=4)
    theirs = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    for i in range(4):
        Membership.objects.create(league=theirs, player=turns.player_for(f"a{i}@example.com", f"A{i}"))
    return ours, theirs
