"""The player's guide and the earlier-turns page in a real browser (tests/support/browser.py): for every game, at 390 px
and at 1280 px, neither scrolls sideways nor has an axe-core violation of any impact, as a player who opened
their seat's link and as a spectator, with a log long enough to scroll in its frame (which the keyboard must
reach). Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

import pytest
from django.db.models import Count
from django.urls import reverse

from games import engines
from games.models import Event
from games.outgoing.links import make_token
from games.play import organise
from tests.support.browser import DESKTOP, EVERY_IMPACT, PHONE, WIDTH_NAMES, Findings, check, new_context, watch_console
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("width", [PHONE, DESKTOP], ids=WIDTH_NAMES.get)
def test_the_rules_and_earlier_turns_fit_and_pass_axe(chromium, live_server, make_game, width):
    findings = Findings()
    looking_at = [""]
    context = new_context(chromium, width)
    page = context.new_page()
    watch_console(page, looking_at, findings)
    try:
        for engine in engines.all_engines():
            game = make_game(humans=3, engine=engine.slug, seed=5)
            for _ in range(8):  # earlier turns to look back at
                game.refresh_from_db()
                organise.resolve_now(game)
            # The turn that logged most: its log scrolls in its frame (Manila's end of a voyage).
            longest = Event.objects.filter(game=game, seat=None).values("phase_number").annotate(lines=Count("id"))
            busiest = max(longest, key=lambda row: row["lines"])["phase_number"]
            for what, url in [
                ("rules", reverse("games-rules", args=[engine.slug])),
                ("earlier turn as a spectator", reverse("games-history", args=[game.pk]) + f"?phase={busiest}"),
                ("seat link", reverse("games-link", args=[make_token(game.seats.get(number=0), open_phase(game))])),
                ("earlier turn as its seat", reverse("games-history", args=[game.pk]) + "?phase=1"),
            ]:
                page.goto(live_server.url + url)
                if what != "seat link":
                    looking_at[0] = f"{engine.slug}: {what}"
                    check(page, looking_at[0], findings, impacts=EVERY_IMPACT)
            assert "as you saw it" in page.content()  # the seat's own view, not a spectator's
    finally:
        context.close()
    findings.assert_none()
