"""Pages and signed links: sign in by link, the order form, refusals that change nothing."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.core import signing
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils import timezone

from games.incoming.sessions import SESSION_ACCOUNT, SESSION_SEATS
from games.models import Order, Phase
from games.outgoing.links import SALT, make_token, read_token
from games.play import orders, organise, turns
from tests.support.accounts import link, sign_in_by_email, signed_in
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_signed_link_signs_the_player_in_and_opens_their_game(client, make_game):
    game = make_game(humans=3)
    response = client.get(link(game, 0), follow=True)
    assert response.status_code == 200
    assert response.context["seat"].number == 0
    assert response.context["prompt"] is not None
    assert b"<svg" in response.content  # the board is a picture
    assert b"Submit sealed order" in response.content


def test_opening_a_link_changes_nothing_in_the_game(client, make_game):
    game = make_game(humans=3)
    client.get(link(game, 0), follow=True)
    assert not Order.objects.exists()
    assert open_phase(game).number == 1


def test_a_forged_link_is_refused_and_signs_nobody_in(client, make_game):
    game = make_game(humans=3)
    seat = game.seats.get(number=0)
    forged = signing.dumps({"g": game.pk, "s": 0, "p": 1, "k": seat.link_key}, key="not-our-key", salt=SALT)
    response = client.get(reverse("games-link", args=[forged]))
    assert response.status_code == 403
    assert b"not valid" in response.content
    assert SESSION_SEATS not in client.session and SESSION_ACCOUNT not in client.session


def test_a_tampered_link_is_refused(client, make_game):
    game = make_game(humans=3)
    response = client.get(link(game, 0)[:-3] + "abc/")
    assert response.status_code == 403


def test_an_old_link_stops_working_when_the_seat_changes_hands(client, make_game):
    game = make_game(humans=3)
    old = link(game, 1)
    organise.replace_player(game.seats.get(number=1), "newcomer@example.com")
    response = client.get(old)
    assert response.status_code == 403
    assert b"changed hands" in response.content


def test_a_link_expires_after_its_phase_deadline(client, make_game):
    game = make_game(humans=3)
    url = link(game, 0)
    phase = open_phase(game)
    organise.resolve_now(game)
    Phase.objects.filter(pk=phase.pk).update(deadline=timezone.now() - timedelta(days=3))
    response = client.get(url)
    assert response.status_code == 403
    assert b"expired" in response.content


def test_the_player_submits_and_revises_an_order_through_the_form(client, make_game):
    game = make_game(humans=3)
    signed_in(client, game, 0)
    url = reverse("games-order", args=[game.pk])
    response = client.post(url, {"phase": 1, "role": "seller"}, follow=True)
    assert b"sealed" in response.content
    response = client.post(url, {"phase": 1, "role": "buyer"}, follow=True)
    assert b"Order changed" in response.content
    order = Order.objects.get()
    assert order.data == {"role": "buyer"} and order.revision == 2


def test_an_illegal_order_through_the_form_shows_why_and_stores_nothing(client, make_game):
    game = make_game(humans=3)
    signed_in(client, game, 0)
    response = client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "pirate"}, follow=True)
    assert response.redirect_chain == [(reverse("games-game", args=[game.pk]) + "#order", 302)]
    assert b"That choice is not available now" in response.content and b"pirate" not in response.content
    assert not Order.objects.exists()


def test_an_order_for_a_past_phase_through_the_form_is_refused(client, make_game):
    game = make_game(humans=3)
    signed_in(client, game, 0)
    organise.resolve_now(game)
    response = client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "buyer"}, follow=True)
    assert b"no longer open" in response.content
    assert not Order.objects.filter(is_default=False).exists()


def test_posting_an_order_without_signing_in_is_refused(client, make_game):
    game = make_game(humans=3)
    response = client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "buyer"})
    assert response.status_code == 403
    assert not Order.objects.exists()


def test_other_players_see_who_submitted_but_never_what(client, make_game):
    game = make_game(humans=3)
    signed_in(client, game, 0)
    client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "seller"})
    other = client.__class__()
    signed_in(other, game, 1)
    response = other.get(reverse("games-game", args=[game.pk]))
    rows = {row.number: row for row in response.context["table"]}
    assert rows[0].submitted and not rows[1].submitted
    assert response.context["own_order"] is None
    assert b"order in" in response.content
    # The only "seller" on seat 1's page is its own form's choice, never seat 0's order.
    assert response.content.count(b'value="seller"') == 1


def test_my_games_lists_every_table_and_where_an_order_is_owed(client, make_game):
    first = make_game(humans=3)
    second = make_game(humans=3, seed=99)
    signed_in(client, first, 0)
    signed_in(client, second, 0)
    response = client.get(reverse("games-mine"))
    rows = response.context["rows"]
    assert {r.seat.game_id for r in rows} == {first.pk, second.pk}
    assert all(r.owes for r in rows)
    assert b"your order is owed" in response.content


def test_my_games_explains_how_to_sign_in(client, db):
    response = client.get(reverse("games-mine"))
    assert b"open the link" in response.content


def test_a_finished_game_shows_the_final_scores(client, make_game):
    game = make_game(humans=1, bots=2)
    while open_phase_or_none(game):
        organise.resolve_now(game)
    signed_in_finished = client.get(reverse("games-game", args=[game.pk]))
    assert b"Final scores" in signed_in_finished.content
    assert len(signed_in_finished.context["game"].result) == 3


def open_phase_or_none(game):
    game.refresh_from_db()
    return turns.current_phase(game)


def test_the_link_reader_names_the_seat_and_phase(make_game):
    game = make_game(humans=3)
    seat = game.seats.get(number=2)
    target = read_token(make_token(seat, open_phase(game)))
    assert target.seat == seat and target.phase.number == 1


def test_the_outbox_page_lists_emails_in_development(client, make_game, file_outbox, urls_loaded_with):
    urls_loaded_with(debug=True)
    make_game(humans=3)
    response = client.get(reverse("games-outbox"))
    assert response.status_code == 200 and len(response.context["mails"]) == 3
    first = response.context["mails"][0]
    detail = client.get(reverse("games-outbox-message", args=[first["file"], first["index"]]))
    assert detail.status_code == 200 and b"Submit" in detail.content
    # A game's emails share one subject: the list tells them apart by their first line, and the frame that shows
    # the HTML part has a title for a screen reader.
    listing = response.content.decode()
    for mail in response.context["mails"]:
        assert mail["first"].startswith("It is your turn") or "Day 1" in mail["first"], mail["first"]
        assert mail["first"] != mail["subject"] and html.escape(mail["first"], quote=False) in listing
    assert "<iframe title=\"The email's HTML part: " in detail.content.decode()


def test_every_page_has_an_icon(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/x-icon"
    body = icon.content
    assert body[:6] == b"\x00\x00\x01\x00\x01\x00" and body[22:30] == b"\x89PNG\r\n\x1a\n"  # one PNG in an ICO
    assert b"\x00\x00\x00\x20\x00\x00\x00\x20" in body[22:60]  # 32 x 32
    assert '<link rel="icon" href="/favicon.ico" sizes="32x32">' in client.get(reverse("games-home")).content.decode()


def test_the_outbox_shows_subjects_and_names_decoded(client, make_game, file_outbox, urls_loaded_with):
    urls_loaded_with(debug=True)
    make_game(humans=3, title="Zoë’s Piraeus")
    raw = next(file_outbox.glob("*.log")).read_text()
    assert "=?utf-8?" in raw  # what the file holds: the subject as MIME encodes it
    listing = client.get(reverse("games-outbox"))
    assert all("Zoë’s Piraeus" in mail["subject"] for mail in listing.context["mails"])
    assert "=?utf-8?" not in listing.content.decode()
    first = listing.context["mails"][0]
    detail = client.get(reverse("games-outbox-message", args=[first["file"], first["index"]])).content.decode()
    assert "Zoë’s Piraeus" in detail and "=?utf-8?" not in detail


def test_without_debug_the_outbox_does_not_exist(client, make_game, file_outbox, urls_loaded_with):
    make_game(humans=3)
    name = next(file_outbox.glob("*.log")).name
    urls_loaded_with(debug=False)
    for url in ["/outbox/", f"/outbox/{name}/0/"]:
        with pytest.raises(Resolver404):
            resolve(url)
        assert client.get(url).status_code == 404
    with pytest.raises(NoReverseMatch):
        reverse("games-outbox")


def test_player_settings_change_the_time_zone_used_on_pages(client, make_game):
    game = make_game(humans=3)
    sign_in_by_email(client)  # settings need the account, not a turn link (test_sessions.py)
    response = client.post(reverse("games-mine"), {"name": "Ann", "time_zone": "Asia/Tokyo", "notify": "owed"})
    assert response.status_code == 302
    page = client.get(reverse("games-game", args=[game.pk]))
    assert b"JST" in page.content or b"Asia/Tokyo" in page.content


def test_the_last_link_opened_decides_whose_seat_a_shared_browser_shows(client, make_game):
    game = make_game(humans=3)
    signed_in(client, game, 0)
    signed_in(client, game, 2)
    assert client.get(reverse("games-game", args=[game.pk])).context["seat"].number == 2
    signed_in(client, game, 0)
    assert client.get(reverse("games-game", args=[game.pk])).context["seat"].number == 0


def test_posting_to_a_game_that_does_not_exist_is_not_found(client, db):
    assert client.post(reverse("games-order", args=[999]), {"phase": 1, "role": "buyer"}).status_code == 404


def test_an_order_post_for_a_turn_the_seat_is_not_asked_in_changes_nothing(client, make_game):
    game = make_game(humans=3)
    signed_in(client, game, 1)
    phase = open_phase(game)
    for seat in game.seats.all():
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    sale = open_phase(game)  # asks seat 0 only
    response = client.post(
        reverse("games-order", args=[game.pk]), {"phase": sale.number, "cards__0": "Furs"}, follow=True
    )
    assert b"no longer open" in response.content
    assert not Order.objects.filter(phase=sale).exists()
