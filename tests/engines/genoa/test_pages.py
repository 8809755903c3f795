"""What Genoa players see on the game page and in their emails: the board as a picture, their own
ducats but nobody else's, only counts of other players' cards, tiles and commodities, and sealed offers
that only the merchant reads, once the offers phase has closed."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from games.engines.genoa.data import card_text
from games.models import Game, Player
from games.play import orders
from tests.support.accounts import signed_in
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def make_game(make_game: Any) -> Any:
    """These tests read what every seat's emails show after each phase: their players chose every phase."""

    def make(*args: Any, **kwargs: Any) -> Any:
        game = make_game(*args, **kwargs)
        Player.objects.update(notify=Player.Notify.ALL)
        return game

    return make


RED, BLUE, GREEN = 0, 1, 2
BLUE_OFFER = "Harbor: 13 ducats"
GREEN_OFFER = "Tavern: 19 ducats"


def page(game: Game, seat_number: int) -> str:
    client = signed_in(Client(), game, seat_number)
    response = client.get(reverse("games-game", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def parts(message: Any) -> tuple[str, str]:
    """An email's text and HTML bodies."""
    return str(message.body), str(message.alternatives[0][0])


def mails_to(seat_number: int) -> list[tuple[str, str]]:
    """(text, html) of every email sent to the seat's player so far."""
    address = f"player{seat_number + 1}@example.com"
    return [parts(m) for m in mail.outbox if m.to == [address]]


def offers_phase(make_game) -> Game:
    game = make_game(humans=3, engine="genoa", seed=5)
    assert game.state["step"] == "offers" and game.state["asked"] == [BLUE, GREEN]
    return game


def test_the_board_is_a_picture_on_the_page_and_in_the_turn_email(make_game):
    game = offers_phase(make_game)
    html = page(game, BLUE)
    assert "<svg" in html and 'aria-label="The city of Genoa.' in html
    assert "Coach House, owned by" not in html  # nobody owns a building yet
    text, email_html = mails_to(BLUE)[0]
    assert "THE CITY MAP (columns x = blue die, rows y = red die" in text and "Coach House" in text
    assert "Blue die: column, red die: row" in email_html and email_html.count('<td height="40"') == 64


def test_a_player_sees_own_ducats_and_only_counts_of_other_players_holdings(make_game):
    game = offers_phase(make_game)
    game.state["ducats"] = [7771, 7772, 7773]
    game.state["goods"][RED] = ["silk", "silk", "wine"]
    game.save(update_fields=["state"])
    red_cards = [card_text(card) for card in game.state["hands"][RED]]
    blue_cards = [card_text(card) for card in game.state["hands"][BLUE]]
    html = page(game, BLUE)
    assert "7772 ducats" in html
    assert "7771" not in html and "7773" not in html
    assert all(card in html for card in blue_cards) and not any(card in html for card in red_cards)
    assert '<td data-label="Goods" style="padding:.25rem .4rem;">3</td>' in html  # Red's 3 commodities, as a count
    # The next emails (Green makes offers, the phase resolves) carry the same rule.
    orders.submit_order(game.seats.get(number=BLUE), open_phase(game).number, {"offers": "", "tiles": ""})
    orders.submit_order(game.seats.get(number=GREEN), open_phase(game).number, {"offers": "", "tiles": ""})
    for seat, own in ((RED, "7771"), (BLUE, "7772"), (GREEN, "7773")):
        text, email_html = mails_to(seat)[-1]
        for other in {"7771", "7772", "7773"} - {own}:
            assert other not in text and other not in email_html
        assert f"{own} ducats" in text and f"{own} ducats" in email_html
    text, email_html = mails_to(GREEN)[-1]
    assert not any(card in text or card in email_html for card in red_cards)


def test_offers_are_sealed_until_the_offers_phase_closes_and_then_only_the_merchant_sees_them(make_game):
    game = offers_phase(make_game)
    blue = signed_in(Client(), game, BLUE)
    phase = open_phase(game).number
    response = blue.post(reverse("games-order", args=[game.pk]), {"phase": phase, "offers": BLUE_OFFER, "tiles": ""})
    assert response.status_code == 302
    assert "Harbor: 13" in page(game, BLUE)  # the offerer sees his own offer in his form
    for seat in (RED, GREEN):
        assert "Harbor: 13" not in page(game, seat)
    sent_before = len(mail.outbox)
    orders.submit_order(game.seats.get(number=GREEN), phase, {"offers": GREEN_OFFER, "tiles": ""})
    game.refresh_from_db()
    assert game.state["step"] == "route" and game.state["asked"] == [RED]
    merchant_page = page(game, RED)
    assert "Blue — Harbor: 13 ducats" in merchant_page and "Green — Tavern: 19 ducats" in merchant_page
    assert "Tavern: 19" not in page(game, BLUE) and "Harbor: 13" not in page(game, GREEN)
    new_mails = mail.outbox[sent_before:]
    for message in new_mails:
        body = "".join(parts(message))
        if message.to == ["player1@example.com"]:
            assert "Harbor: 13 ducats" in body and "Tavern: 19 ducats" in body
        else:
            assert ("Tavern: 19" in body) == (message.to == ["player3@example.com"])
            assert ("Harbor: 13" in body) == (message.to == ["player2@example.com"])
    assert {message.to[0] for message in new_mails} == {f"player{n}@example.com" for n in (1, 2, 3)}


def test_the_plain_text_email_draws_the_city_as_a_grid_of_squares(make_game) -> None:
    make_game(humans=1, bots=2, engine="genoa")
    body = str(mail.outbox[-1].body)
    assert "THE CITY MAP" in body
    assert "  1   Spices   Spices   Coach    Coach    Palace   Palace   Metals   Metals" in body
    assert len(re.findall(r"^  \d  [ >]", body, flags=re.MULTILINE)) == 8
    assert body.count(">") - body.count("->") >= 1, "the tower's start is marked"
