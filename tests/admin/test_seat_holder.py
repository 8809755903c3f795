"""Every email, link and seat action is bound to the seat's holder now (issue 38): after a replacement the old
holder's failed email is not sent again to them (it would carry the seat's hand and a live link), their
emailed link and their open browser session can do nothing at the table, and the read-only Organiser role
has no admin action that writes as a player."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from games.models import Order, OutboundEmail, Seat
from games.outgoing import outbox
from games.play import organise
from tests.support.accounts import link, sign_in_by_email
from tests.support.leagues import first_game, make_league, organiser_of, started_round
from tests.support.organisers import act, said
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def failed_reminder(seat: Seat) -> OutboundEmail:
    """The seat's reminder, which the provider refused: it carries the seat's hand and its link."""
    assert seat.player is not None
    phase = open_phase(seat.game)
    return OutboundEmail.objects.create(
        game=seat.game,
        phase=phase,
        seat=seat,
        kind=OutboundEmail.Kind.REMINDER,
        to=seat.player.email,
        status=OutboundEmail.Status.FAILED,
        attempts=1,
        error="451 try later",
    )


def test_a_replaced_players_email_link_and_session_can_do_nothing_and_send_again_refuses_them(make_game):
    game = make_game(humans=3)
    seat = game.seats.select_related("player").get(number=0)
    old = seat.player
    emailed = link(game, 0)  # the link of the turn email the old holder got
    row = failed_reminder(seat)
    by_link, by_account = Client(), Client()
    assert by_link.get(emailed).status_code == 302  # their browser opened it: a seat grant
    sign_in_by_email(by_account, old.email)  # and another is signed in to their account
    for browser in (by_link, by_account):
        assert browser.get(reverse("games-game", args=[game.pk])).context["seat"] is not None

    organise.replace_player(seat, "newcomer@example.com", "Newcomer")
    mail.outbox.clear()
    superuser = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    staff = Client()
    staff.force_login(superuser)
    page = act(staff, "outboundemail", "send_again", row, app="games")
    assert said(page)[0] == "0 emails sent."
    assert said(page)[1] == (
        "Not sent, as the seat is no longer theirs (its holder now gets their own emails): "
        f"reminder to {old.email} (seat 1: Newcomer, in {game})."
    )
    outbox.retry_failed()  # nor does the sweep's retry send it
    assert all(old.email not in message.to for message in mail.outbox)

    assert Client().get(emailed).status_code == 403
    phase = open_phase(game)
    for browser in (by_link, by_account):
        assert browser.get(reverse("games-game", args=[game.pk])).context["seat"] is None  # a spectator's page
        posted = browser.post(reverse("games-order", args=[game.pk]), {"phase": phase.number, "role": "buyer"})
        assert posted.status_code == 403
    assert not Order.objects.filter(seat=seat).exists()


def test_send_again_sends_the_holders_own_failed_email_rendered_for_them(make_game):
    game = make_game(humans=3)
    seat = game.seats.select_related("player").get(number=1)
    row = failed_reminder(seat)
    mail.outbox.clear()
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "pw"))
    assert said(act(staff, "outboundemail", "send_again", row, app="games")) == ["1 email sent."]
    assert [message.to for message in mail.outbox] == [[seat.player.email]]


# What the Organiser role may press in the admin, list by list: the organiser's own jobs on their games and
# leagues, none of which orders, votes, talks or changes a player's account or seat choice for them.
ORGANISER_ACTIONS = {
    "games.game": {"extend_24h", "extend_72h", "resolve_now", "pause", "resume"},
    "games.player": {"address_works"},  # clears a bounce mark (docs/operators.md), not the player's own settings
    "leagues.league": {"open_signups", "close_signups", "draw_round_now", "draw_round_tomorrow", "new_season"},
    "leagues.round": {"extend_24h", "extend_72h", "pause", "resume", "start_now", "close"},
    "leagues.membership": {"drop", "to_standby", "activate"},
    "api.bot": {"new_token"},  # their own bots only
    "hooks.hook": {"turn_on", "turn_off", "send_test"},  # their games' and leagues' news hooks only
}


def test_the_organiser_role_is_offered_only_the_organisers_own_actions(client):
    league = make_league(players=4)
    first_game(started_round(league))
    user = organiser_of(league)
    client.force_login(user)
    offered = {}
    for model, model_admin in admin.site._registry.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        if client.get(url).status_code != 200:
            continue
        request = client.get(url).wsgi_request
        names = set(model_admin.get_actions(request)) - {"delete_selected"}
        if names:
            offered[model._meta.label_lower] = names
    assert offered == ORGANISER_ACTIONS
    # Posted anyway, the outbox's "send again" does nothing for them.
    row = failed_reminder(Seat.objects.filter(player__isnull=False).first())
    mail.outbox.clear()
    act(client, "outboundemail", "send_again", row, app="games")
    assert OutboundEmail.objects.get(pk=row.pk).status == OutboundEmail.Status.FAILED and not mail.outbox
