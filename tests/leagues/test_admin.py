"""The organisers' league admin: every list and change page opens, and none shows a sealed order, a hand or
a claim link while a round is being played."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from games.leagues import services, substitutes, vacations
from games.leagues.models import League, LeagueEmail, Membership, Round, Season, Substitution, Vacation
from games.play import orders, turns
from tests.support.leagues import first_game, make_league, open_phase_of, started_round

pytestmark = pytest.mark.django_db(transaction=True)


def league_form(**changes: object) -> dict[str, object]:
    """The admin's Add league form, filled in."""
    return {
        "name": "Winter Cup",
        "slug": "winter",
        "engine": "piraeus",
        "options": "{}",
        "time_zone": "UTC",
        "deadline_mode": "length",
        "phase_length": "2 00:00:00",
        "grace": "1 00:00:00",
        "substitute_after": 2,
        "claim_window": "2 00:00:00",
        "substitute_bot": "strong",
        "vacation_days": 14,
        "vacation_cap_days": 7,
        "points": "[10, 6, 3, 1]",
        "early_endings": "none",
        "invite_key": "k",
        "daily_time": "20:00",
        **changes,
    }


def test_every_league_admin_page_opens_and_hides_orders_hands_and_claim_links(admin_client):
    league = make_league(players=4, standby=1)
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    orders.submit_order(game.seats.get(number=1), phase.number, {"role": "seller"})
    vacations.declare(Membership.objects.get(league=league, player=game.seats.get(number=2).player), 2)
    substitutes.drop_member(Membership.objects.get(league=league, player=game.seats.get(number=3).player))
    offer = LeagueEmail.objects.get(kind="substitute-offer")
    claim_link = next(word for word in offer.text.split() if "/leagues/claim/" in word)
    hands = {card for hand in game.state["hands"] for card in hand}

    pages = []
    for model, objects in [
        ("league", League.objects.all()),
        ("season", Season.objects.all()),
        ("round", Round.objects.all()),
        ("membership", Membership.objects.all()),
        ("vacation", Vacation.objects.all()),
        ("substitution", Substitution.objects.all()),
        ("leagueemail", LeagueEmail.objects.all()),
    ]:
        pages.append(admin_client.get(reverse(f"admin:leagues_{model}_changelist")))
        assert objects.exists(), model
        for obj in objects:
            pages.append(admin_client.get(reverse(f"admin:leagues_{model}_change", args=[obj.pk])))
    for page in pages:
        assert page.status_code == 200, page.request["PATH_INFO"]
        body = page.content.decode()
        assert "seller" not in body, page.request["PATH_INFO"]
        assert not any(card in body for card in hands), page.request["PATH_INFO"]
        assert claim_link not in body and claim_link.rsplit("/", 2)[-2] not in body


def test_a_round_drawn_for_tomorrow_waits_and_the_sweep_starts_it_on_time(admin_client):
    league = make_league(players=8)
    admin_client.post(
        reverse("admin:leagues_league_changelist"), {"action": "draw_round_tomorrow", "_selected_action": [league.pk]}
    )
    round_ = Round.objects.get()
    assert round_.status == Round.Status.SCHEDULED and round_.tables.count() == 2
    assert not services.round_games(round_).exists()
    assert services.start_due_rounds(now=round_.starts_at - timedelta(minutes=1)) == 0
    assert services.start_due_rounds(now=round_.starts_at) == 1
    assert services.round_games(round_).count() == 2


def test_an_organiser_who_is_not_a_superuser_sees_and_changes_only_their_own_leagues(client):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    ours = make_league(players=4)
    theirs = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    stranger = Membership.objects.create(league=theirs, player=turns.player_for("x@example.com", "Stranger"))
    user = get_user_model().objects.create_user("org", "org@example.com", "pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label__in=["leagues", "games"]))
    ours.organisers.add(user)
    client.force_login(user)

    leagues_page = client.get(reverse("admin:leagues_league_changelist")).content.decode()
    members_page = client.get(reverse("admin:leagues_membership_changelist")).content.decode()
    assert "Spring Cup" in leagues_page and "Autumn Cup" not in leagues_page
    assert "P1" in members_page and "Stranger" not in members_page
    # Addresses of people outside their leagues and games stay out of every list and pick list.
    players_page = client.get(reverse("admin:games_player_changelist"))
    assert "p1@example.com" in players_page.content.decode() and "x@example.com" not in players_page.content.decode()
    picker = client.get(
        reverse("admin:autocomplete"),
        {"app_label": "leagues", "model_name": "membership", "field_name": "player", "term": "example.com"},
    ).json()
    assert picker["results"] and all("x@example.com" not in r["text"] for r in picker["results"])
    add_member = client.get(reverse("admin:leagues_membership_add")).content.decode()
    assert "Spring Cup" in add_member and "Autumn Cup" not in add_member
    other = client.get(reverse("admin:leagues_membership_change", args=[stranger.pk]))
    assert other.status_code == 302  # the admin's "does not exist" redirect, telling nothing about it
    # A bulk action on someone else's league reaches nothing.
    client.post(
        reverse("admin:leagues_membership_changelist"),
        {"action": "to_standby", "_selected_action": [stranger.pk]},
    )
    stranger.refresh_from_db()
    assert stranger.status == Membership.Status.ACTIVE

    # A league the organiser adds is theirs, so they can keep running it.
    added = client.post(reverse("admin:leagues_league_add"), league_form())
    assert added.status_code == 302, added.content.decode()[:2000]
    assert League.objects.get(slug="winter").organisers.filter(pk=user.pk).exists()


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"engine": "chess"}, "engine", "Select a valid choice"),
        ({"engine": "Piraeus "}, "engine", "Select a valid choice"),
        ({"options": '{"colour": "red"}'}, "options", "Port of Piraeus has no option called &#x27;colour&#x27;"),
        ({"options": "[1, 2]"}, "options", "Options must be a mapping"),
        # The league's tables may seat 3 to 6: four countries fit only tables of four.
        ({"options": '{"countries": ["Egypt", "Crete", "Phoenicia", "Persia"]}'}, "options", "At a table of 3"),
        ({"engine": "manila", "options": '{"countries": []}'}, "options", "Manila has no option called"),
    ],
)
def test_a_league_of_an_unknown_game_or_with_bad_options_is_refused_with_the_reason(
    admin_client, changes, field, message
):
    page = admin_client.post(reverse("admin:leagues_league_add"), league_form(**changes))
    assert page.status_code == 200 and not League.objects.exists()
    errors = page.context["adminform"].form.errors
    assert list(errors) == [field], errors
    assert message in page.content.decode()


@pytest.mark.parametrize(
    ("language", "changes", "message"),
    [
        ("de", {"engine": "genoa", "options": '{"colour": "red"}'}, "Die Händler von Genua hat keine Option namens"),
        ("fr", {"options": '{"countries": ["Egypt", "Crete", "Phoenicia", "Persia"]}'}, "À une table de 3 joueurs"),
    ],
)
def test_a_leagues_refused_options_read_in_the_organisers_language(admin_client, language, changes, message):
    page = admin_client.post(reverse("admin:leagues_league_add"), league_form(**changes), HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200 and not League.objects.exists()
    assert message in page.content.decode()


def test_a_league_saved_with_a_choice_of_game_and_its_options_draws_and_shows_its_page(admin_client, client):
    choices = admin_client.get(reverse("admin:leagues_league_add")).context["adminform"].form.fields["engine"].choices
    assert {slug for slug, _ in choices} >= {"piraeus", "manila", "genoa", "ports-of-call", "phoenician"}
    form = league_form(engine="manila", options='{"displacing_pirates": "yes"}')
    assert admin_client.post(reverse("admin:leagues_league_add"), form).status_code == 302
    league = League.objects.get(slug="winter")
    assert league.engine == "manila" and league.options == {"displacing_pirates": "yes"}
    emptied = admin_client.post(reverse("admin:leagues_league_change", args=[league.pk]), league_form(options=""))
    assert emptied.status_code == 302
    league.refresh_from_db()
    assert league.engine == "piraeus" and league.options == {}
    for i in range(3):
        Membership.objects.create(league=league, player=turns.player_for(f"w{i}@example.com"))
    round_ = started_round(league)
    assert first_game(round_).engine == "piraeus"
    assert client.get(reverse("leagues-league", args=[league.slug])).status_code == 200


def test_the_league_admin_numbers_seats_from_one_and_says_lengths_in_words(admin_client):
    league = make_league(players=4, standby=1)
    round_ = started_round(league)
    game = first_game(round_)
    substitutes.drop_member(Membership.objects.get(league=league, player=game.seats.get(number=3).player))
    offer = Substitution.objects.get()
    page = admin_client.get(reverse("admin:leagues_substitution_change", args=[offer.pk])).content.decode()
    assert re.search(r'field-seat">.*?<div class="readonly">4</div>', page, re.S)
    page = admin_client.get(reverse("admin:leagues_round_change", args=[round_.pk])).content.decode()
    assert re.search(r'field-vacation">\s*<p>0 minutes</p>', page) and "0:00:00" not in page
    page = admin_client.get(reverse("admin:leagues_league_change", args=[league.pk])).content.decode()
    assert 'value="2 days"' in page and 'value="1 day"' in page and "00:00:00" not in page
