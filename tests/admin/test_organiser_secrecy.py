"""Nothing hidden reaches an organiser (issue 28): no seed a game's hidden state could be rebuilt from is shown
or follows from what is shown, and only the player (confirming from the new address) or a superuser changes a
player's address, so no organiser can sign in as a player."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core import mail
from django.urls import reverse

from games.leagues import services
from games.leagues.models import League, Membership, Table
from games.models import Game, Player
from tests.support.accounts import sign_in_by_email
from tests.support.leagues import make_league

pytestmark = pytest.mark.django_db(transaction=True)

DRAW_SEED = 987_654_321_012


def staff_with_every_league_and_game_permission(league: League) -> object:
    """A staff organiser of `league` given every permission of the leagues and games apps: more than the
    Organiser group has, so what they are refused is refused to every organiser."""
    user = get_user_model().objects.create_user("org", "org@example.com", "pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label__in=["leagues", "games"]))
    league.organisers.add(user)
    return user


def test_the_same_draw_seed_draws_the_same_tables_but_every_game_gets_a_seed_of_its_own():
    spring = make_league(players=8)
    autumn = League.objects.create(name="Autumn", slug="autumn", engine="piraeus")
    for member in Membership.objects.filter(league=spring):
        Membership.objects.create(league=autumn, player=member.player)
    rounds = [services.generate_round(services.current_season(league), seed=DRAW_SEED) for league in (spring, autumn)]
    for round_ in rounds:
        services.start_round(round_.pk)
    drawn = [list(Table.objects.filter(round=r).order_by("number").values_list("players", flat=True)) for r in rounds]
    assert drawn[0] == drawn[1]  # the draw is reproducible from its seed (and its members, meetings, standings)
    seeds = list(Game.objects.values_list("seed", flat=True))
    assert len(seeds) == 4 and len(set(seeds)) == 4  # the same draw, yet no two games alike
    # Nor does any follow from the draw's seed and the table's number (as it once did).
    assert not {(DRAW_SEED * 1_000_003 + n) % (1 << 62) for n in (1, 2)} & set(seeds)


def test_no_admin_page_of_a_round_or_its_games_shows_a_seed(client):
    league = make_league(players=8)
    client.force_login(staff_with_every_league_and_game_permission(league))
    round_ = services.generate_round(services.current_season(league), seed=DRAW_SEED)
    services.start_round(round_.pk)
    pages = [reverse("admin:leagues_round_change", args=[round_.pk]), reverse("admin:leagues_round_changelist")]
    for game in Game.objects.all():
        pages += [reverse("admin:games_game_change", args=[game.pk]), reverse("admin:games_game_changelist")]
    secrets = {str(DRAW_SEED), *(str(seed) for seed in Game.objects.values_list("seed", flat=True))}
    for path in pages:
        page = client.get(path)
        assert page.status_code == 200, path
        shown = set(re.findall(r"\d{6,}", page.content.decode().replace(",", "")))
        assert not shown & secrets, path


def test_an_organiser_cannot_change_a_players_address_and_so_cannot_sign_in_as_them(client):
    league = make_league(players=4)
    player = Player.objects.get(email="p1@example.com")
    client.force_login(staff_with_every_league_and_game_permission(league))
    page = client.get(reverse("admin:games_player_change", args=[player.pk]))
    assert page.status_code == 200 and 'name="email"' not in page.content.decode()  # shown, not editable
    form = {"email": "org@example.com", "name": "P1", "time_zone": "UTC", "notify": "all"}
    refused = client.post(reverse("admin:games_player_change", args=[player.pk]), form)
    assert refused.status_code == 403
    player.refresh_from_db()
    assert player.email == "p1@example.com" and player.session_epoch == 0


def test_a_superuser_may_change_an_address_which_ends_the_players_sessions(client, admin_client):
    make_league(players=4)
    sign_in_by_email(client, "p1@example.com")
    assert client.get(reverse("games-mine")).context["player"] is not None
    player = Player.objects.get(email="p1@example.com")
    form = {"email": "p1@new.example", "name": "P1", "time_zone": "UTC", "notify": "all"}
    assert admin_client.post(reverse("admin:games_player_change", args=[player.pk]), form).status_code == 302
    player.refresh_from_db()
    assert player.email == "p1@new.example" and player.session_epoch == 1
    assert client.get(reverse("games-mine")).context["player"] is None  # that browser is signed out


def confirmation_link(address: str) -> str:
    message = mail.outbox[-1]
    assert message.to == [address], message.to
    found = re.search(r"https://pbem\.example(/me/address/\S+/)", str(message.body))
    assert found is not None, message.body
    return found.group(1)


def test_a_player_changes_their_address_only_by_the_link_sent_to_the_new_one(client):
    make_league(players=4)
    sign_in_by_email(client, "p1@example.com")
    player = Player.objects.get(email="p1@example.com")
    taken = client.post(reverse("games-mine"), {"address": "p2@example.com"}, follow=True)
    assert b"cannot be used here" in taken.content and len(mail.outbox) == 1  # the sign-in email only
    asked = client.post(reverse("games-mine"), {"address": "Ann@New.Example"}, follow=True)
    assert b"open it, within a day" in asked.content
    player.refresh_from_db()
    assert player.email == "p1@example.com"  # not yet
    link = confirmation_link("ann@new.example")
    shown = client.get(link)  # a mail scanner following the link changes nothing
    assert shown.status_code == 200 and b"ann@new.example" in shown.content
    player.refresh_from_db()
    assert player.email == "p1@example.com"
    assert client.post(link).status_code == 302
    player.refresh_from_db()
    assert (player.email, player.new_email) == ("ann@new.example", "")
    again = client.post(link)
    assert again.status_code == 403 and b"not valid any more" in again.content


def test_only_the_latest_address_link_works_and_a_forged_one_changes_nothing(client):
    make_league(players=4)
    sign_in_by_email(client, "p1@example.com")
    client.post(reverse("games-mine"), {"address": "first@new.example"})
    first = confirmation_link("first@new.example")
    client.post(reverse("games-mine"), {"address": "second@new.example"})
    second = confirmation_link("second@new.example")
    assert client.post(first).status_code == 403
    assert client.post(second[:-3] + "xx/").status_code == 403
    assert Player.objects.get(pk=Player.objects.get(name="P1").pk).email == "p1@example.com"
    assert client.post(second).status_code == 302
    assert Player.objects.get(name="P1").email == "second@new.example"


def test_someone_with_only_a_turn_link_cannot_ask_for_an_address_change(client):
    make_league(players=4)
    refused = client.post(reverse("games-mine"), {"address": "thief@example.org"})
    assert refused.status_code == 403 and len(mail.outbox) == 0
