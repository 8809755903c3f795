"""Every admin list fits a 1280 px window (issue 38): signed in as the Organiser role (not a superuser), each list
the role may read is opened with rows in it, and its table must fit its box beside the filters, with no
column cut off behind a sideways scroll. Skips without Chromium unless PBEM_REQUIRE_SERVICES=1."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.urls import reverse

from games.api import bots
from games.hooks.models import Delivery, Hook
from games.leagues import substitutes, vacations
from games.leagues.models import League, Membership
from games.models import OutboundEmail, Seat
from games.talk import services as talk
from games.votes import services as votes
from tests.support.browser import DESKTOP, new_context
from tests.support.leagues import first_game, make_league, organiser_of, play_phase, started_round

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = """() => {
  const table = document.querySelector('#result_list');
  const box = document.querySelector('#changelist .results') || table.parentElement;
  return [table.getBoundingClientRect().width, box.clientWidth, document.documentElement.scrollWidth];
}"""


def busy_league() -> Any:
    """A league in its second turn, with a vacation, a dropped member offered to the standby list, a failed email
    and a reported message of table talk."""
    league = make_league(players=4, standby=1, time_zone="Europe/Paris", early_endings=League.EarlyEndings.DRAWS)
    game = first_game(started_round(league))
    play_phase(game)
    first, second = Seat.objects.select_related("game", "player").filter(game=game).order_by("number")[:2]
    talk.report(second, talk.post(first, first.player, "a private word", to=[1]).pk, "rude and off topic")
    assert first.player is not None
    votes.propose(first.pk, first.player.pk, "draw")
    hook = Hook.objects.create(
        name="Spring Cup news", kind=Hook.Kind.DISCORD, url="https://discord.example/api/webhooks/1/x", league=league
    )
    Delivery.objects.create(hook=hook, notice={"event": "phase-resolved"}, status_code=429, error="429 slow down")
    members = Membership.objects.filter(league=league).order_by("pk")
    vacations.declare(members[1], 2)
    substitutes.drop_member(members[3])
    OutboundEmail.objects.filter(pk=OutboundEmail.objects.order_by("pk").values("pk")[:1]).update(
        status=OutboundEmail.Status.FAILED, error="451 4.7.1 greylisted, try again later"
    )
    return league


def test_every_admin_list_fits_1280_px_as_the_organiser_role(chromium, live_server, client):
    league = busy_league()
    bots.make_bot("Random Rita", organiser_of(league))
    context = new_context(chromium, DESKTOP)
    page = context.new_page()
    too_wide: list[str] = []
    measured = 0
    try:
        page.goto(live_server.url + reverse("admin:login"))
        page.get_by_label("Username").fill("organiser")
        page.get_by_label("Password").fill("pw")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"**{reverse('admin:index')}")
        for model in admin.site._registry:
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
            response = page.goto(live_server.url + url)
            if response is None or response.status != 200 or page.locator("#result_list").count() == 0:
                continue  # not the role's to read, or no rows
            table, box, scroll = page.evaluate(WIDTHS)
            measured += 1
            if table > box + 1 or scroll > DESKTOP:
                too_wide.append(f"{url}: table {table:.0f} px in a {box} px box, page {scroll} px")
    finally:
        context.close()
    print(f"\nadmin lists measured at {DESKTOP} px as the Organiser role: {measured}")
    assert measured >= 19
    assert not too_wide, "\n".join(too_wide)
