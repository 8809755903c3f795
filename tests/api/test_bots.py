"""Bring your own bot: an organiser (the Organiser role, in the admin) makes a bot account, sees its token once and
seats it by its address; the bot plays through the API alone, is never emailed, and misses deadlines like anyone.
The reference client (games/api/client.py) plays a whole game of every engine over HTTP against a live server."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.core import mail
from django.urls import reverse

from games.api import bots, client
from games.api.extension import BOT_DOMAIN
from games.api.models import Bot, Token
from games.engines import all_engines
from games.leagues.models import Membership
from games.models import Game, Order, OutboundEmail, Phase, Seat
from games.play import orders, turns
from tests.support.api import Api
from tests.support.leagues import first_game, organiser_of, started_round
from tests.support.organisers import act, replace_seat, said, two_leagues
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_organiser_makes_a_bot_and_gives_it_a_seat_in_their_league(client: Any) -> None:
    ours, _ = two_leagues()
    organiser = organiser_of(ours)
    client.force_login(organiser)
    made = client.post(reverse("admin:api_bot_add"), {"name": "Random Rita"})
    page = made.content.decode()
    assert made.status_code == 200 and "no-store" in made["Cache-Control"]
    secret = re.search(r'value="(pbem_[^"]+)"', page)
    address = re.search(rf"<code>([^<]+@{BOT_DOMAIN})</code>", page)
    assert secret and address
    bot = Bot.objects.get()
    assert bot.owner == organiser and bot.player.email == address.group(1)
    assert secret.group(1) not in str(list(Token.objects.values())), "only the token's digest is stored"
    game = first_game(started_round(ours))
    seat = Seat.objects.get(game=game, number=0)
    given = replace_seat(client, seat, new_email=address.group(1))
    assert given.status_code == 302
    api = Api(secret.group(1))
    assert api.get("/me").json()["bot"] is True
    assert [row["game"]["id"] for row in api.get("/games").json()] == [game.pk]
    assert not OutboundEmail.objects.filter(to=address.group(1)).exists(), "a bot is never emailed"
    listed = client.get(reverse("admin:api_bot_changelist")).content.decode()
    assert "Random Rita" in listed and address.group(1) in listed
    renewed = client.post(
        reverse("admin:api_bot_changelist"), {"action": "new_token", "_selected_action": [bot.pk]}
    ).content.decode()
    fresh = re.search(r'value="(pbem_[^"]+)"', renewed)
    assert fresh and fresh.group(1) != secret.group(1)
    assert api.get("/me").status_code == 401 and Api(fresh.group(1)).get("/me").status_code == 200


def test_an_organiser_sees_only_their_own_bots(client: Any) -> None:
    ours, theirs = two_leagues()
    mine = bots.make_bot("Mine", organiser_of(ours))
    bots.make_bot("Theirs", organiser_of(theirs, username="other"))
    client.force_login(mine.bot.owner)
    listed = client.get(reverse("admin:api_bot_changelist")).content.decode()
    assert "Mine" in listed and "Theirs" not in listed
    assert client.get(reverse("admin:api_token_changelist")).status_code == 403, "players' tokens: superusers only"


def test_a_bot_owes_orders_and_misses_deadlines_like_anyone(make_game: Any) -> None:
    made = bots.make_bot("Sleepy", None)
    game = turns.create_game("piraeus", [made.bot.player, *(turns.player_for(f"p{i}@example.com") for i in range(2))])
    phase = open_phase(game)
    assert 0 in phase.owed_seats and not Seat.objects.get(game=game, number=0).is_bot
    for number in (1, 2):
        orders.submit_order(Seat.objects.get(game=game, number=number), phase.number, {"role": "buyer"})
    assert turns.resolve_phase(phase.pk, use_defaults=True)
    missed = Order.objects.get(phase=phase, seat__number=0)
    assert missed.is_default and not missed.excused
    assert all(not message.to[0].endswith(BOT_DOMAIN) for message in mail.outbox)
    assert not OutboundEmail.objects.filter(to__endswith=BOT_DOMAIN).exists()


# The longest games made shorter by their own options (each still ends by its rules, with standings): what is
# tested is the client over HTTP, whose calls are the same every turn.
SHORTER: dict[str, dict[str, Any]] = {
    "phoenician": {"round_limit": 8},
    "genoa": {"rounds": 4},
    "ports-of-call": {"years": "3"},
}


@pytest.mark.parametrize("engine", all_engines(), ids=lambda e: e.slug)
def test_the_reference_client_plays_a_whole_game_over_http(live_server: Any, engine: Any, settings: Any) -> None:
    """Every seat a bot of its own with a play token; the client plays them all through the API until the end."""
    settings.PBEM_API_RATE = settings.PBEM_API_BURST = 100_000  # the client keeps to a 429's Retry-After: slow
    players = [bots.make_bot(f"Bot {n + 1}", None) for n in range(engine.min_players)]
    options = SHORTER.get(engine.slug)
    game = turns.create_game(engine.slug, [made.bot.player for made in players], options=options, seed=11)
    player = client.Player([client.Seat(live_server.url, made.secret) for made in players], random.Random(3))
    player.play(max_turns=2000)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and len(game.result) == engine.min_players
    resolved = Phase.objects.filter(game=game, status=Phase.Status.RESOLVED).count()
    orders = Order.objects.filter(phase__game=game)
    assert orders.count() == player.turns and not orders.filter(is_default=True).exists()
    assert resolved >= 2 and player.examples <= player.turns // 4, "random orders from the schema, mostly"
    assert not OutboundEmail.objects.filter(game=game).exists() and not mail.outbox
    calls = sum(seat.calls for seat in player.seats)
    print(
        f"{engine.slug}: {player.turns} orders in {calls} calls, {player.refused} refused, {player.examples} examples"
    )


def test_an_organiser_adds_their_bot_to_their_league_and_the_draw_seats_it(client: Any) -> None:
    ours, theirs = two_leagues()
    Membership.objects.filter(league=ours, player__email="p4@example.com").delete()  # a table of 4 with the bot
    organiser = organiser_of(ours)
    bots.make_bot("Their bot", organiser_of(theirs, username="other"))
    client.force_login(organiser)
    page = client.post(reverse("admin:api_bot_add"), {"name": "League Larry"}).content.decode()
    secret = re.search(r'value="(pbem_[^"]+)"', page)
    assert secret
    # The member form's player picker finds their bot, never another organiser's.
    picked = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "leagues", "model_name": "membership", "field_name": "player", "term": BOT_DOMAIN},
    ).json()["results"]
    bot = Bot.objects.get(owner=organiser)
    assert [row["id"] for row in picked] == [str(bot.player_id)]
    blank = client.get(reverse("admin:leagues_membership_add")).content.decode()
    shown = dict(re.findall(r'<input type="text" name="([^"]+)" value="([^"]*)"', blank))  # as a browser posts them
    form = {**shown, "league": ours.pk, "player": bot.player_id, "status": "active", "notify": "owed"}
    added = client.post(reverse("admin:leagues_membership_add"), form)
    assert added.status_code == 302, re.findall(r"errorlist[^>]*>(.*?)</ul>", added.content.decode(), re.S)
    refused = client.post(reverse("admin:leagues_membership_add"), {**form, "league": theirs.pk})
    assert refused.status_code == 200 and not Membership.objects.filter(league=theirs, player=bot.player).exists()
    drawn = act(client, "league", "draw_round_now", ours)
    assert said(drawn) == ["Spring Cup season 1 round 1 drawn: 1 table started."]
    game = Game.objects.get(league_table__round__season__league=ours)
    assert Seat.objects.filter(game=game, player=bot.player, is_bot=False).exists()
    assert [row["game"]["id"] for row in Api(secret.group(1)).get("/games").json()] == [game.pk]
    assert not OutboundEmail.objects.filter(to=bot.player.email).exists(), "a bot is never emailed"


def test_an_organiser_gives_their_bot_a_seat_in_a_one_off_game_of_theirs_only(client: Any, make_game: Any) -> None:
    organiser = organiser_of()
    ours, theirs = make_game(humans=3), make_game(humans=3, seed=9)
    Game.objects.filter(pk=ours.pk).update(started_by=organiser)  # theirs: started with Add game
    client.force_login(organiser)
    page = client.post(reverse("admin:api_bot_add"), {"name": "Table Tom"}).content.decode()
    secret, address = re.search(r'value="(pbem_[^"]+)"', page), re.search(rf"<code>([^<]+@{BOT_DOMAIN})</code>", page)
    assert secret and address
    seat, other = Seat.objects.get(game=ours, number=2), Seat.objects.get(game=theirs, number=2)
    assert replace_seat(client, seat, new_email=address.group(1)).status_code == 302
    client.post(reverse("admin:games_seat_change", args=[other.pk]), {"new_email": address.group(1)})
    bot = Bot.objects.get()
    assert list(Seat.objects.filter(player=bot.player).values_list("game_id", flat=True)) == [ours.pk]
    api = Api(secret.group(1))
    assert [row["game"]["id"] for row in api.get("/games").json()] == [ours.pk]
    phase = open_phase(ours)
    assert api.put(f"/games/{ours.pk}/order", {"phase": phase.number, "order": {"role": "buyer"}}).status_code == 200
