"""An organiser's webhooks for their league's or game's public news, through the admin as the Organiser role
(not a superuser, nothing given by hand): added with the address checked, its secret shown once, scoped to
their own leagues and games (another organiser's and players' own hooks are out of reach), turned off and on,
and the league's news reaching a real receiver as its games resolve."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.hooks.models import Delivery, Hook
from games.leagues.models import League
from games.models import Event, Game, MailStatus, Seat
from games.play import turns
from tests.support import hooks_receiver
from tests.support.hooks_receiver import Receiver
from tests.support.leagues import first_game, make_league, organiser_of, play_phase, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings: Any, tmp_path: Path) -> Iterator[Receiver]:
    for found, ca_file in hooks_receiver.serve(tmp_path):
        hooks_receiver.point_hooks_at(settings, ca_file)
        yield found


def add(client: Client, **form: Any) -> Any:
    return client.post(reverse("admin:hooks_hook_add"), {"name": "League news", "kind": "discord", **form})


def test_an_organiser_adds_a_league_hook_whose_secret_shows_once_and_whose_news_reaches_the_receiver(receiver):
    ours = make_league(players=4)
    theirs = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    user = organiser_of(ours)
    assert not user.is_superuser and not user.user_permissions.exists()
    client = Client()
    client.force_login(user)
    form = client.get(reverse("admin:hooks_hook_add")).content.decode()
    assert "Spring Cup" in form and "Autumn Cup" not in form
    # Refused: a private address, no owner, two owners, another organiser's league. Nothing is stored.
    hooks_receiver.ANSWERS["chat.example.com"] = ["192.168.0.10"]
    refused = add(client, url="https://chat.example.com/hook", league=ours.pk)
    assert "private network" in refused.content.decode()
    assert "Choose a game or a league" in add(client, url=receiver.url()).content.decode()
    assert "Select a valid choice" in add(client, url=receiver.url(), league=theirs.pk).content.decode()
    assert not Hook.objects.exists()
    # Added: a signed JSON hook; its page shows the secret once, and never the URL's path.
    added = add(client, kind="json", url=receiver.url("/news/TOKEN-1"), league=ours.pk)
    hook = Hook.objects.get()
    assert added.status_code == 302 and added.url == reverse("admin:hooks_hook_change", args=[hook.pk])
    shown = client.get(added.url)
    assert "no-store" in shown["Cache-Control"]
    page = shown.content.decode()
    assert hook.secret in page and "TOKEN-1" not in page and "hooks.test" in page
    again = client.get(added.url).content.decode()
    assert hook.secret not in again and "whsec_" not in again
    listing = client.get(reverse("admin:hooks_hook_changelist")).content.decode()
    assert "League news" in listing and "TOKEN-1" not in listing and hook.secret not in listing
    assert hook.added_by == user and hook.league == ours
    # The league's first game starts and a turn resolves: the public news reaches the receiver, signed.
    game = first_game(started_round(ours))
    played = play_phase(game)
    news = [json.loads(item.body) for item in receiver.received]
    assert [item["type"] for item in news][:2] == ["pbem.started", "pbem.resolved"]
    assert all(
        item["game"]["title"] == game.name and item["game"]["url"].endswith(f"/games/{game.pk}/") for item in news
    )
    assert news[1]["headline"].startswith(f"{game.name}: {played.name} is resolved.")


def test_an_organiser_reaches_only_their_own_hooks_and_turns_them_off_and_on(receiver, make_game):
    ours = make_league(players=4)
    theirs = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    user = organiser_of(ours)
    mine = Hook.objects.create(name="ours", kind="slack", url=receiver.url(), league=ours)
    other = Hook.objects.create(name="theirs", kind="slack", url=receiver.url(), league=theirs)
    game = make_game(humans=3)
    player = game.seats.get(number=0).player
    private = Hook.objects.create(name="a player's", kind="ntfy", url=receiver.url("/topic"), player=player)
    client = Client()
    client.force_login(user)
    listing = client.get(reverse("admin:hooks_hook_changelist")).content.decode()
    assert "ours" in listing and "theirs" not in listing and "a player&#x27;s" not in listing
    for hook in (other, private):
        page = client.get(reverse("admin:hooks_hook_change", args=[hook.pk]), follow=True)
        assert hook.name not in page.content.decode().split("<title>")[1].split("</title>")[0]
    # Their bulk actions reach only theirs, whatever ids are posted.
    changelist = reverse("admin:hooks_hook_changelist")
    client.post(changelist, {"action": "turn_off", "_selected_action": [mine.pk, other.pk, private.pk]})
    assert list(Hook.objects.filter(enabled=False)) == [mine]
    mine.refresh_from_db()
    assert mine.disabled_reason == "turned off by an organiser"
    client.post(changelist, {"action": "turn_on", "_selected_action": [mine.pk]})
    client.post(changelist, {"action": "send_test", "_selected_action": [mine.pk, other.pk]})
    assert [d.hook for d in Delivery.objects.filter(status=MailStatus.SENT)] == [mine]
    assert len(receiver.received) == 1
    deliveries = client.get(reverse("admin:hooks_delivery_changelist")).content.decode()
    assert "ours" in deliveries and re.search(r"\bsent\b", deliveries)
    assert turns  # the service layer made the game above; nothing here bypasses it


def test_an_organisers_game_hook_added_in_its_first_turn_is_told_the_game_started(receiver, make_game):
    user = organiser_of()
    game = make_game(humans=3, title="Friday table")
    Game.objects.filter(pk=game.pk).update(started_by=user)  # one of theirs, as Add game records it
    client = Client()
    client.force_login(user)
    assert add(client, name="Table news", kind="json", url=receiver.url("/news"), game=game.pk).status_code == 302
    phase = open_phase(game)
    [started] = [json.loads(item.body) for item in receiver.received]
    assert started["type"] == "pbem.started" and started["lines"] == []
    assert started["game"] == {"id": game.pk, "title": "Friday table", "url": f"https://pbem.example/games/{game.pk}/"}
    deadline = phase.deadline.astimezone(UTC)
    assert (
        started["headline"] == f"Friday table has started: {phase.name}, orders by {deadline:%a %d %b %Y, %H:%M} UTC."
    )
    # Public news only: no player's address, no signed link, no seat's own log line.
    body = receiver.received[0].body.decode()
    seats = Seat.objects.filter(game=game).select_related("player")
    assert not [seat for seat in seats if seat.player and seat.player.email in body] and "/l/" not in body
    assert not [line for line in Event.objects.filter(game=game, seat__isnull=False) if line.text in body]
    # A hook added once the first turn is over hears no start: it gets the news from then on.
    play_phase(Game.objects.get(pk=game.pk))
    assert add(client, name="Late news", kind="discord", url=receiver.url("/late"), game=game.pk).status_code == 302
    late = Hook.objects.get(name="Late news")
    assert not Delivery.objects.filter(hook=late).exists()
    assert [json.loads(item.body)["type"] for item in receiver.received] == ["pbem.started", "pbem.resolved"]
