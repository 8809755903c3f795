"""The organisers' admin: actions work, and nothing hidden shows before the rules reveal it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core import mail
from django.urls import reverse

from games.engines import all_engines
from games.models import Game, Order, OutboundEmail, Phase, Player
from games.play import orders, organise
from tests.support.leagues import first_game, make_league, organiser_of, started_round
from tests.support.organisers import answer, replace_seat
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def organiser(client):
    client.force_login(get_user_model().objects.create_superuser("org", "org@example.com", "pw"))
    return client


def test_every_admin_list_and_page_opens(organiser, make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    orders.submit_order(game.seats.get(number=0), phase.number, {"role": "seller"})
    for model in ["game", "seat", "phase", "order", "event", "outboundemail", "player"]:
        assert organiser.get(reverse(f"admin:games_{model}_changelist")).status_code == 200
    assert organiser.get(reverse("admin:games_game_change", args=[game.pk])).status_code == 200
    assert organiser.get(reverse("admin:games_phase_change", args=[phase.pk])).status_code == 200


def test_a_sealed_order_is_not_visible_in_the_admin_before_its_phase_resolves(organiser, make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    orders.submit_order(game.seats.get(number=0), phase.number, {"role": "seller"})
    for url in [reverse("admin:games_order_changelist"), reverse("admin:games_phase_change", args=[phase.pk])]:
        page = organiser.get(url).content
        assert b"sealed until the phase resolves" in page
        assert b"seller" not in page
    organise.resolve_now(game)
    assert b"seller" in organiser.get(reverse("admin:games_order_changelist")).content


def test_the_admin_never_shows_the_engine_state_or_seed(organiser, make_game):
    game = make_game(humans=3, seed=987654321)
    page = organiser.get(reverse("admin:games_game_change", args=[game.pk])).content
    assert b"987654321" not in page
    hand = game.state.get("hands", [[]])[0]
    assert all(card.encode() not in page for card in hand if isinstance(card, str))


def test_admin_actions_extend_pause_resume_and_resolve(organiser, make_game):
    game = make_game(humans=3)
    before = open_phase(game).deadline
    url = reverse("admin:games_game_changelist")
    answer(organiser, organiser.post(url, {"action": "extend_24h", "_selected_action": [game.pk]}))
    assert (open_phase(game).deadline - before).total_seconds() == 24 * 3600
    organiser.post(url, {"action": "pause", "_selected_action": [game.pk]})
    assert Game.objects.get(pk=game.pk).status == Game.Status.PAUSED
    organiser.post(url, {"action": "resume", "_selected_action": [game.pk]})
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    asked = organiser.post(url, {"action": "resolve_now", "_selected_action": [game.pk]})
    assert b"Yes, resolve now" in asked.content  # it asks first
    assert Phase.objects.get(game=game, number=1).status == Phase.Status.OPEN
    organiser.post(url, {"action": "resolve_now", "_selected_action": [game.pk], "confirmed": "yes"})
    assert Phase.objects.get(game=game, number=1).status == Phase.Status.RESOLVED
    assert Order.objects.filter(is_default=True).count() == 3


def test_resolve_now_resolves_the_phase_it_confirmed_and_never_the_next(organiser, make_game):
    """The page named phase 1; every player ordered meanwhile and phase 2 opened: Yes resolves nothing."""
    game = make_game(humans=3)
    url = reverse("admin:games_game_changelist")
    asked = organiser.post(url, {"action": "resolve_now", "_selected_action": [game.pk]}).content.decode()
    assert f'name="phase_{game.pk}" value="1"' in asked
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, 1, {"role": "seller" if seat.number == 0 else "buyer"})
    assert open_phase(game).number == 2
    yes = {"action": "resolve_now", "_selected_action": [game.pk], "confirmed": "yes", f"phase_{game.pk}": "1"}
    said = [str(m) for m in organiser.post(url, yes, follow=True).context["messages"]]
    assert Phase.objects.get(game=game, number=2).status == Phase.Status.OPEN
    assert not Order.objects.filter(phase__number=2).exists()
    assert any("phase 1 is no longer open" in line and "nothing was resolved" in line for line in said), said
    yes[f"phase_{game.pk}"] = "2"
    organiser.post(url, yes)
    assert Phase.objects.get(game=game, number=2).status == Phase.Status.RESOLVED


def test_the_admin_replaces_a_seats_player(organiser, make_game):
    game = make_game(humans=3)
    seat = game.seats.get(number=2)
    response = replace_seat(organiser, seat, new_email="sub@example.com", new_name="Sub")
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.player.email == "sub@example.com"


# --- Starting a one-off game --------------------------------------------------------------------------

NEW_GAME = {
    "engine": "manila",
    "title": "Friday Manila",
    "players": "ann@example.org, Ann\nbob@example.org\n\ncid@example.org,  Cid the Trader\n",
    "bots": "1",
    "bot_level": "easy",
    "phase_hours": "24",
    "options": '{"displacing_pirates": "yes"}',
    "seed": "987654321",
}


def test_the_add_game_form_lists_every_game_with_its_players_and_options(admin_client, settings):
    settings.PBEM_DEFAULT_DEADLINE_HOURS = 36
    changelist = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    assert reverse("admin:games_game_add") in changelist
    page = admin_client.get(reverse("admin:games_game_add")).content.decode()
    for engine in all_engines():
        assert f"{engine.title} ({engine.min_players}–{engine.max_players} players)" in page
        assert all(f"<code>{spec.name}</code>" in page for spec in engine.options)
    assert 'name="phase_hours" value="36"' in page
    assert 'name="bot_level" value="strong"' in page
    assert "one a bot seat in seat order" in page


def test_the_admin_starts_a_manila_game_with_seats_in_order_and_sends_the_first_emails(admin_client):
    response = admin_client.post(reverse("admin:games_game_add"), NEW_GAME)
    game = Game.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:games_game_change", args=[game.pk])
    assert (game.engine, game.title, game.options) == ("manila", "Friday Manila", {"displacing_pirates": "yes"})
    assert game.phase_length == timedelta(hours=24)
    assert game.seed == 987654321
    seats = list(game.seats.order_by("number").select_related("player"))
    assert [(s.player.email if s.player else None, s.is_bot) for s in seats] == [
        ("ann@example.org", False),
        ("bob@example.org", False),
        ("cid@example.org", False),
        (None, True),
    ]
    assert seats[3].bot_level == "easy"
    assert [s.player.name for s in seats[:3] if s.player] == ["Ann", "", "Cid the Trader"]
    phase = open_phase(game)
    queued = OutboundEmail.objects.filter(game=game, phase=phase, kind=OutboundEmail.Kind.TURN_STARTED)
    assert sorted(queued.values_list("to", flat=True)) == ["ann@example.org", "bob@example.org", "cid@example.org"]
    assert sorted(m.to[0] for m in mail.outbox) == ["ann@example.org", "bob@example.org", "cid@example.org"]
    page = admin_client.get(response["Location"]).content.decode()
    assert "Started Friday Manila with 4 seats" in page
    assert "987654321" not in page


@pytest.mark.parametrize(
    "change, message",
    [
        ({"players": "ann@example.org\nnot-an-address\ncid@example.org"}, "&#x27;not-an-address&#x27; is not an email"),
        ({"bots": "0", "players": "ann@example.org\nbob@example.org"}, "Manila takes 3 to 5 players, not 2."),
        ({"options": '{"displacing_pirates": '}, "Options are not valid JSON"),
        ({"options": '["yes"]'}, "Options must be a JSON object"),
        ({"options": '{"pirates": "yes"}'}, "Manila has no option called &#x27;pirates&#x27;"),
        ({"players": "ann@example.org\nbob@example.org\nAnn@Example.org"}, "A player can sit only once at a table."),
    ],
)
def test_a_refused_game_shows_why_and_stores_nothing(admin_client, change, message):
    response = admin_client.post(reverse("admin:games_game_add"), {**NEW_GAME, **change})
    assert response.status_code == 200
    page = response.content.decode()
    assert message in page
    assert "nothing was created" in page
    assert "987654321" not in page  # the typed seed is not echoed back
    assert not Game.objects.exists()
    assert not Player.objects.exists()
    assert not OutboundEmail.objects.exists()
    assert mail.outbox == []


@pytest.mark.parametrize(
    "language, change, message",
    [
        ("de", {"options": '{"pirates": "yes"}'}, "Manila hat keine Option namens &#x27;pirates&#x27;."),
        (
            "de",
            {"bots": "0", "players": "ann@example.org\nbob@example.org"},
            "Manila braucht 3 bis 5 Spieler, nicht 2.",
        ),
        (
            "fr",
            {"engine": "genoa", "options": '{"pirates": "yes"}'},
            "Les marchands de Gênes n&#x27;a pas d&#x27;option",
        ),
        ("fr", {"options": '["yes"]'}, "Les options doivent être un objet JSON"),
    ],
)
def test_a_refused_game_says_why_in_the_organisers_language(admin_client, language, change, message):
    response = admin_client.post(reverse("admin:games_game_add"), {**NEW_GAME, **change}, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200 and message in response.content.decode()
    assert not Game.objects.exists()


def test_only_staff_allowed_to_add_games_reach_the_form(client):
    url = reverse("admin:games_game_add")
    user = get_user_model().objects.create_user("player", "p@example.com", "pw")
    client.force_login(user)
    assert client.get(url).status_code == 302  # to the admin login
    client.post(url, NEW_GAME)
    user.is_staff = True
    user.save()
    assert client.get(url).status_code == 403  # staff, but without the "add game" permission
    client.post(url, NEW_GAME)
    assert not Game.objects.exists()
    user.user_permissions.add(Permission.objects.get(codename="add_game"))
    assert client.get(url).status_code == 200


def organiser_who_may_add_games(client):
    """An organiser in the project's Organiser group, not a superuser, given the "add game" permission by hand:
    the role alone starts no one-off games (games/leagues/roles.py)."""
    user = organiser_of(make_league(players=0), username="adder")
    user.user_permissions.add(Permission.objects.get(codename="add_game"))
    client.force_login(user)
    return user


BOTS_GAME = {**NEW_GAME, "players": "ann@example.org, Ann\nbob@example.org", "bots": "3"}


def test_an_organiser_starts_a_game_with_a_level_for_each_bot_seat(client):
    organiser_who_may_add_games(client)
    response = client.post(reverse("admin:games_game_add"), {**BOTS_GAME, "bot_level": "Strong, easy,random"})
    game = Game.objects.get()
    assert response.status_code == 302, response.content.decode()
    seats = game.seats.order_by("number")
    assert [(s.number, s.is_bot, s.bot_level) for s in seats if s.is_bot] == [
        (2, True, "strong"),
        (3, True, "easy"),
        (4, True, "random"),
    ]


def test_one_level_still_sets_every_bot_seat(client):
    organiser_who_may_add_games(client)
    client.post(reverse("admin:games_game_add"), {**BOTS_GAME, "bot_level": "random"})
    assert list(Game.objects.get().seats.filter(is_bot=True).values_list("bot_level", flat=True)) == ["random"] * 3


@pytest.mark.parametrize(
    "levels, message",
    [
        ("strong, genius, easy", "&#x27;genius&#x27; is not a bot level: say strong, easy or random."),
        ("strong,easy", "Bot levels given: 2, bot seats: 3; give one level for them all or one a seat."),
        ("strong,,easy", "&#x27;&#x27; is not a bot level"),
    ],
)
def test_bad_bot_levels_are_refused_on_the_field_and_store_nothing(client, levels, message):
    organiser_who_may_add_games(client)
    players = Player.objects.count()
    response = client.post(reverse("admin:games_game_add"), {**BOTS_GAME, "bot_level": levels})
    assert response.status_code == 200
    page = response.content.decode()
    assert message in page and "nothing was created" in page
    assert response.context["form"].errors["bot_level"]
    assert not Game.objects.exists()
    assert Player.objects.count() == players
    assert not OutboundEmail.objects.exists()


def test_a_bad_bot_level_is_refused_in_the_organisers_language(client):
    organiser_who_may_add_games(client)
    response = client.post(
        reverse("admin:games_game_add"), {**BOTS_GAME, "bot_level": "strong,easy"}, HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert response.status_code == 200 and not Game.objects.exists()
    assert "Niveaux de bot donnés : 2, places de bot : 3" in response.content.decode()


# --- Several organisers on one server -----------------------------------------------------------------


def staff_organiser(client, username):
    """A staff user who is not a superuser, allowed to view, change and add the core's games."""
    user = get_user_model().objects.create_user(username, f"{username}@example.com", "pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="games"))
    client.force_login(user)
    return user


def listed_games(client, model):
    """The ids of the games whose rows the changelist of `model` shows this user."""
    rows = client.get(reverse(f"admin:games_{model}_changelist")).context["cl"].queryset
    path = {"game": "pk", "order": "phase__game"}.get(model, "game")
    return set(rows.values_list(path, flat=True))


def test_an_organiser_who_is_not_a_superuser_sees_and_acts_on_only_their_games(client, admin_client, make_game):
    league = make_league(players=4)
    ours = first_game(started_round(league))
    theirs = make_game(humans=3, title="Rival Piraeus")
    rival = staff_organiser(client, "rival")
    Game.objects.filter(pk=theirs.pk).update(started_by=rival)
    # The rival organises no league: they see the game they started, and nothing else.
    assert listed_games(client, "game") == {theirs.pk}
    user = staff_organiser(client, "org")
    league.organisers.add(user)
    assert client.post(reverse("admin:games_game_add"), NEW_GAME).status_code == 302
    added = Game.objects.get(title="Friday Manila")
    assert added.started_by == user
    for game in (ours, theirs, added):
        organise.resolve_now(game)  # orders and log lines for every game
    mine = {ours.pk, added.pk}

    for model in ["game", "seat", "phase", "order", "event", "outboundemail"]:
        shown = listed_games(client, model)
        assert shown == mine, model
        assert listed_games(admin_client, model) == shown | {theirs.pk}, model  # a superuser sees all
    assert "Rival Piraeus" not in client.get(reverse("admin:games_event_changelist")).content.decode()

    # Another's game is "does not exist": its page, its seats, its actions.
    assert client.get(reverse("admin:games_game_change", args=[theirs.pk])).status_code == 302
    seat = theirs.seats.get(number=2)
    assert client.get(reverse("admin:games_seat_change", args=[seat.pk])).status_code == 302
    client.post(reverse("admin:games_seat_change", args=[seat.pk]), {"new_email": "sub@example.com"})
    assert Game.objects.get(pk=theirs.pk).seats.get(number=2).player.email == "player3@example.com"
    client.post(reverse("admin:games_game_changelist"), {"action": "pause", "_selected_action": [theirs.pk, ours.pk]})
    assert Game.objects.get(pk=theirs.pk).status == Game.Status.ACTIVE
    assert Game.objects.get(pk=ours.pk).status == Game.Status.PAUSED
    failed = OutboundEmail.objects.filter(game=theirs).first()
    OutboundEmail.objects.filter(pk=failed.pk).update(status=OutboundEmail.Status.FAILED)
    client.post(
        reverse("admin:games_outboundemail_changelist"), {"action": "send_again", "_selected_action": [failed.pk]}
    )
    assert OutboundEmail.objects.get(pk=failed.pk).status == OutboundEmail.Status.FAILED


def test_the_admin_numbers_seats_as_players_see_them_from_one(organiser, make_game):
    game = make_game(humans=3)
    listing = organiser.get(reverse("admin:games_seat_changelist")).content.decode()
    cells = re.findall(r'class="field-position">(\d+)<', listing)
    assert sorted(cells) == ["1", "2", "3"]
    page = organiser.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert sorted(re.findall(r'field-position">\s*<p>(\d+)</p>', page)) == ["1", "2", "3"]
    seat = game.seats.get(number=0)
    page = organiser.get(reverse("admin:games_seat_change", args=[seat.pk])).content.decode()
    assert re.search(r'field-position">.*?<div class="readonly">1</div>', page, re.S)
