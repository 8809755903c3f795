"""What Phoenician Sea Trader shows on PostgreSQL, through the real service, pages, emails and admin.

Issue 7, "What players see": "The 8x8 map as a picture (land, centres with their goods, pirates, storms,
ships, compass), your hand, everyone's gold and hold (holds lie face up, so they are public), the deck and
discard counts, whose turn it is. Other players' hands are never shown, only their size." And: "Offers
are visible only to the two players."

The table is arranged once (a known map and known cards, written into the game before its first turn),
then played only through orders.submit_order and the eager Celery tasks.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.template import Context, Template
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.engines import board_templates, get_engine
from games.engines.phoenician.data import COLOURS, full_deck, parse_square
from games.models import Game, Order, Player
from games.outgoing.links import make_token
from games.play import orders
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


LAYOUT = {"Rome": "B2", "Egypt": "F2", "Greece": "B6", "Persia": "F6", "Carthage": "D4", "Crete": "H4"}
# Every Sail NW card is in the second ship's hand and every Sail SW card in the third's, so these names
# can only reach a page or an email by showing a hidden hand (no public line can name them).
SECOND_SECRET, THIRD_SECRET = "Sail NW", "Sail SW"
# The contents of the offer, which only the two ships may read.
OFFER_TEXT = "Silk from the hand and Wine from the hold for Spices from the hold"


def square(name: str) -> int:
    number = parse_square(name)
    assert number is not None
    return number


def arrange(game: Game) -> tuple[int, int, int]:
    """A known table before anyone starts: the seed's turn order, a fixed map, known hands and holds, and
    the first ship's three wind cards (Silk, Oil, Oil) on top of the deck. Returns the seats in turn order."""
    state = game.state
    first, second, third = state["order"]
    hands = {first: ["Row", "Wine"], second: [SECOND_SECRET] * 3 + ["Grain"], third: [THIRD_SECRET] * 3}
    holds = {first: [], second: ["Spices"], third: []}
    wind = ["Silk", "Oil", "Oil"]
    rest = Counter(full_deck()) - Counter([*wind, *(c for cards in [*hands.values(), *holds.values()] for c in cards)])
    state.update(
        land=[square("D6"), square("E6")],
        centres=[square(s) for s in LAYOUT.values()],
        pirates=[square("A8"), square("H8")],
        hands=[hands[seat] for seat in range(3)],
        holds=[holds[seat] for seat in range(3)],
        deck=sorted(rest.elements()) + wind[::-1],  # cards are drawn from the end
        discard=[],
    )
    Game.objects.filter(pk=game.pk).update(state=state)
    mail.outbox.clear()  # the first email showed the seed's deal, which this table replaces
    return first, second, third


def submit(game: Game, seat: int, data: dict[str, Any]) -> None:
    orders.submit_order(game.seats.get(number=seat), open_phase(game).number, data)


def signed_in(game: Game, seat: int | None) -> Client:
    """A browser that opened that seat's link (None: a visitor who is not signed in)."""
    client = Client()
    if seat is not None:
        token = make_token(game.seats.get(number=seat), open_phase(game))
        assert client.get(reverse("games-link", args=[token])).status_code == 302
    return client


def page(game: Game, seat: int | None) -> str:
    """The game page as that seat sees it."""
    response = signed_in(game, seat).get(reverse("games-game", args=[game.pk]))
    assert response.status_code == 200
    return response.content.decode()


def emails_to(seat: int) -> list[str]:
    """Every email body (text and HTML) sent to that seat's player so far."""
    address = f"player{seat + 1}@example.com"
    bodies: list[str] = []
    for message in mail.outbox:
        if message.to == [address]:
            assert isinstance(message, EmailMultiAlternatives)  # every turn email has an HTML part
            bodies += [str(message.subject), str(message.body), *(str(content) for content, _ in message.alternatives)]
    return bodies


def admin_pages(game: Game) -> str:
    """The organiser's pages of a game under way, the private log lines' own pages included."""
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("org", "org@example.com", "pw"))
    urls = [
        reverse("admin:games_game_change", args=[game.pk]),
        reverse("admin:games_event_changelist") + f"?game__id__exact={game.pk}",
        reverse("admin:games_phase_change", args=[open_phase(game).pk]),
        reverse("admin:games_phase_changelist"),
        reverse("admin:games_order_changelist"),
        reverse("admin:games_outboundemail_changelist"),
        reverse("admin:games_seat_changelist"),
        *(
            reverse("admin:games_event_change", args=[pk])
            for pk in game.events.filter(seat__isnull=False).values_list("pk", flat=True)
        ),
    ]
    pages = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        pages.append(response.content.decode())
    return "\n".join(pages)


def test_pages_emails_and_admin_show_the_public_table_and_each_ship_only_its_own_hand(postgres, make_game):
    game = make_game(humans=3, engine="phoenician", seed=21)
    first, second, third = arrange(game)
    names = {seat: COLOURS[seat] for seat in (first, second, third)}
    for seat, centre in ((first, "Rome"), (second, "Carthage"), (third, "Crete")):
        submit(game, seat, {"centre": centre})
    game.refresh_from_db()
    assert game.state["hands"][first] == ["Row", "Wine", "Silk", "Oil", "Oil"]  # the wind came before the prompt
    assert any("the wind brought you Silk, 2 Oil." in body for body in emails_to(first))

    # An illegal step sent through the order form rejects the whole order, naming the step and why;
    # nothing is stored or applied.
    before = game.state
    client = signed_in(game, first)
    response = client.post(
        reverse("games-order", args=[game.pk]),
        {"phase": open_phase(game).number, "steps": "buy; row SE; sail N 1"},
        follow=True,
    )
    assert response.redirect_chain[-1][0].endswith("#order")  # back to the form, a page to reload
    assert "Step 3 (&#x27;sail N 1&#x27;): you have no Sail North card in your hand." in response.content.decode()
    game.refresh_from_db()
    assert not Order.objects.filter(phase=open_phase(game)).exists() and game.state == before

    # Buy Wine at Rome, row to C3 beside the second ship in Carthage (D4), and offer it a trade.
    submit(game, first, {"steps": f"buy; row SE; offer {names[second]} give hold wine, hand silk for hold spices"})
    pages = {seat: page(game, seat) for seat in (first, second, third, None)}
    assert open_phase(game).owed_seats == [second]
    for seat in (first, second):
        assert "Trade offer (only" in pages[seat] and OFFER_TEXT in pages[seat]
    for seat in (third, None):
        assert "Trade offer" not in pages[seat] and OFFER_TEXT not in pages[seat]
        assert f"{names[first]} makes {names[second]} a trade offer." in pages[seat]  # the public line
    assert any(OFFER_TEXT in body for body in emails_to(second))  # the answer prompt's email

    submit(game, second, {"answer": "accept"})
    submit(game, first, {"steps": "pass"})
    game.refresh_from_db()
    state = game.state
    assert state["active"] == second and state["holds"][first] == ["Spices"] and state["holds"][second] == ["Wine"]

    # The map picture: an SVG of 64 named squares with the compass, centres with their goods, the ships.
    third_page = page(game, third)
    assert "<svg" in third_page
    assert len(re.findall(r"<title>[A-H][1-8]\b", third_page)) == 64
    assert all(f">{point}</text>" in third_page for point in "NSEW")
    assert "<title>B2: Rome, sells Wine, most desires Silk" in third_page and "<title>D6: land" in third_page
    assert "<title>A8: pirate 1" in third_page and f"<title>C3, {names[first]} ship" in third_page
    # Deck and discard counts, whose turn it is, your own hand.
    assert f"Deck: {len(state['deck'])} cards · discard: {len(state['discard'])}" in third_page
    assert f"Round 1 — {names[second]}&#x27;s turn" in third_page and "▶" in third_page
    assert third_page.count(f">{THIRD_SECRET}</span>") == 3  # the hand, card by card

    # The third ship's text email after the first ship's turn: every hold and the hand sizes, the counts.
    text = [m.body for m in mail.outbox if m.to == [f"player{third + 1}@example.com"]][-1]
    assert "THE SEA (north is up: N above, S below, E right, W left)" in text
    assert re.search(rf"{names[first]}\s+9 gold\s+at C3\s+hold: Spices\s+hand: 2 cards", text)
    assert re.search(rf"{names[second]}\s+10 gold\s+at D4\s+Carthage\s+hold: Wine\s+hand: 8 cards\s+<- to play", text)
    assert f"deck {len(state['deck'])}, discard {len(state['discard'])}" in text
    assert f"YOUR HAND ({names[third]}, secret): 3 {THIRD_SECRET}" in text

    # Secrecy: a hand is shown only to its own ship; the offer's contents only to the two ships.
    for seat in (first, second, third, None):
        shown = page(game, seat) + "\n".join(emails_to(seat) if seat is not None else [])
        assert (SECOND_SECRET in shown) == (seat == second), seat
        assert (THIRD_SECRET in shown) == (seat == third), seat
        assert (OFFER_TEXT in shown) == (seat in (first, second)), seat
    organiser = admin_pages(game)
    assert all(secret not in organiser for secret in (SECOND_SECRET, THIRD_SECRET, OFFER_TEXT, "You drew"))


@pytest.mark.parametrize(
    ("language", "codes", "english"),
    [
        ("de", {"ROM", "ÄGY", "GRI", "PER", "KAR", "KRE"}, {"EGY", "GRE", "CAR", "CRE"}),
        ("fr", {"ÉGY", "GRÈ", "CRÈ"}, {"EGY", "GRE", "CRE"}),
    ],
)
def test_the_text_maps_trade_centres_are_short_for_their_names_in_the_readers_language(language, codes, english):
    """The plain-text map names each trade centre by three letters of its name in the reader's language (Karthago is
    KAR, Égypte ÉGY), as its legend and the centres' list name them: not the English abbreviations."""
    engine = get_engine("phoenician")
    state = engine.setup(3, {}, random.Random(1))
    wrapped = (
        "{% load l10n %}{% autoescape off %}{% localize off %}{% include name %}{% endlocalize %}{% endautoescape %}"
    )
    with translation.override(language):
        text = Template(wrapped).render(
            Context({"name": board_templates("phoenician").email_text, "view": engine.view(state, 0)})
        )
    map_rows = [line for line in text.splitlines() if re.match(r"\s?\d+  ", line)]
    shown = set(re.findall(r"[A-ZÄÖÜÉÈ]{3}", " ".join(map_rows)))
    assert codes <= shown and not english & shown, shown
