"""Manila on the game page and in the turn emails: the board as a picture, your own shares but only the
count of the others', and sealed bids and placement lists that nobody else sees before the round resolves,
after which the log says what each bid was and who got what."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.core import mail
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from games.engines import board_templates, get_engine
from games.engines.manila.data import PUNT_COSTS
from games.models import Game, OutboundEmail, Player
from games.outgoing import emails
from games.outgoing.links import make_token
from tests.support.manila import submit
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


RED, BLUE, GREEN, YELLOW = range(4)
PER_REQUEST = re.compile(rb'name="csrfmiddlewaretoken" value="[^"]*"|nonce="[^"]*"')


def sign_in(client, game: Game, seat_number: int):
    seat = game.seats.get(number=seat_number)
    response = client.get(reverse("games-link", args=[make_token(seat, open_phase(game))]))
    assert response.status_code == 302
    return client


def page(client, game: Game) -> bytes:
    """The game page as the signed-in seat sees it, without the per-request CSRF token and CSP nonce."""
    response = client.get(reverse("games-game", args=[game.pk]))
    assert response.status_code == 200
    return PER_REQUEST.sub(b"", response.content)


def set_shares(game: Game, shares: list[list[str]]) -> None:
    game.refresh_from_db()
    game.state = {**game.state, "shares": shares}
    game.save(update_fields=["state"])


def turn_email(game: Game, seat_number: int) -> tuple[str, str]:
    """The text and HTML of the seat's latest turn email, built again from the game as it is now."""
    row = OutboundEmail.objects.filter(
        game=game, seat__number=seat_number, kind=OutboundEmail.Kind.TURN_STARTED
    ).latest("pk")
    message = emails.build(row)
    # A signed link carries the second it was signed in: two builds a second apart differ only there.
    return unsigned(str(message.body)), unsigned(str(message.alternatives[0][0]))


def unsigned(body: str) -> str:
    return re.sub(r"/l/[^/\s\"]+/", "/l/<link>/", body)


def last_email_to(seat_number: int) -> str:
    return str([m for m in mail.outbox if m.to == [f"player{seat_number + 1}@example.com"]][-1].body)


def test_the_page_and_turn_email_draw_the_board_and_show_only_the_count_of_other_players_shares(client, make_game):
    game = make_game(humans=4, engine="manila", seed=11)
    set_shares(game, [["jade", "silk"], ["nutmeg", "nutmeg"], ["nutmeg", "nutmeg"], ["nutmeg", "nutmeg"]])
    sign_in(client, game, RED)
    shown = page(client, game)
    assert b"<svg" in shown and b"Black market" in shown
    assert b"Your shares: <strong>1 jade</strong> (value 0), <strong>1 silk</strong> (value 0)" in shown
    assert b"2 shares, 0 encumbered" in shown  # the others: a count only
    text, html = turn_email(game, RED)
    assert "SEA ROUTES" in text and "BLACK MARKET" in text and "<table" in html
    assert "shares: 1 jade (value 0), 1 silk (value 0)" in text
    assert re.search(r"Blue +30 pesos +2 shares \(0 encumbered\)", text)

    # Deal the others different wares: nothing Red sees may change.
    set_shares(game, [["jade", "silk"], ["ginseng", "jade"], ["silk", "ginseng"], ["ginseng", "ginseng"]])
    assert page(client, game) == shown
    assert turn_email(game, RED) == (text, html)
    # Red's own shares, by contrast, do show.
    set_shares(game, [["ginseng", "silk"], ["ginseng", "jade"], ["silk", "ginseng"], ["ginseng", "ginseng"]])
    assert page(client, game) != shown and turn_email(game, RED)[0] != text


def test_sealed_bids_stay_hidden_until_the_auction_resolves_and_the_log_then_shows_every_bid(client, make_game):
    game = make_game(humans=4, engine="manila", seed=11)
    red = sign_in(client, game, RED)
    response = red.post(reverse("games-order", args=[game.pk]), {"phase": open_phase(game).number, "bid": 23})
    assert response.status_code == 302
    mail.outbox.clear()
    blue = sign_in(client.__class__(), game, BLUE)
    before = page(blue, game)
    assert b"Red 23" not in before and b"Sealed bids" not in before
    assert blue.get(reverse("games-game", args=[game.pk])).context["own_order"] is None
    submit(game, BLUE, {"bid": 10})
    submit(game, GREEN, {"bid": 0})
    assert not any("23" in m.body for m in mail.outbox)  # no email so far carries Red's bid
    submit(game, YELLOW, {"bid": 5})  # the last bid: the auction resolves

    after = page(blue, game)
    assert b"Sealed bids for harbor master: Red 23, Blue 10, Green 0, Yellow 5." in after
    assert b"Red becomes harbor master for 23 pesos." in after
    assert "Sealed bids for harbor master: Red 23, Blue 10, Green 0, Yellow 5." in last_email_to(BLUE)


def test_placement_lists_stay_sealed_until_the_round_resolves_and_the_log_says_who_got_what(client, make_game):
    game = make_game(humans=4, engine="manila", seed=11)
    for seat in range(4):
        submit(game, seat, {"bid": 0})  # nobody bids: Red opens and takes the office for free
    duties = {"share": "none", "ware_1": "jade", "start_1": 3, "ware_2": "silk", "start_2": 3}
    submit(game, RED, {**duties, "ware_3": "nutmeg", "start_3": 3})
    phase = open_phase(game)
    assert sorted(phase.owed_seats) == [RED, BLUE, GREEN, YELLOW]

    red = sign_in(client, game, RED)
    posted = {"phase": phase.number, "wants__0": "pilot:large", "wants__1": "insurance"}
    assert red.post(reverse("games-order", args=[game.pk]), posted).status_code == 302
    mail.outbox.clear()
    blue = sign_in(client.__class__(), game, BLUE)
    before = page(blue, game)
    assert b"Red&#x27;s list" not in before and b"Red's list" not in before
    assert b"Red places" not in before
    submit(game, BLUE, {"wants": ["pilot:large", "port:A"]})
    submit(game, GREEN, {"wants": ["stop"]})
    assert not any("Red's list" in m.body for m in mail.outbox)
    submit(game, YELLOW, {"wants": ["insurance", "punt:jade"]})

    after = page(blue, game).decode()
    assert "<svg" in after and ">Jade</text>" in after  # the loaded routes drawn with their punts
    for line in (
        "Red&#x27;s list: the large pilot, the insurance office.",
        "Red places an accomplice on the large pilot for 5 pesos.",
        "Blue&#x27;s list: the large pilot, port space A.",
        "Blue places an accomplice on port space A for 4 pesos.",
        "Green stops placing for this voyage.",
        "Yellow takes the insurance office and receives 10 pesos.",
    ):
        assert line in after
    news = last_email_to(BLUE)
    assert "Red's list: the large pilot, the insurance office." in news
    assert "Yellow's list: the insurance office, the jade punt." in news


def route_lines(state: dict[str, Any], language: str) -> list[str]:
    """The sea routes' lines of the text email's board for `state`, rendered in `language` as an email renders it."""
    view = get_engine("manila").view(state, 0)
    template = (
        "{% load l10n %}{% autoescape off %}{% localize off %}{% include name %}{% endlocalize %}{% endautoescape %}"
    )
    with translation.override(language):
        text = Template(template).render(Context({"name": board_templates("manila").email_text, "view": view}))
    return [line.strip() for line in text.splitlines() if line.strip().startswith("Route ")]


@pytest.mark.parametrize(
    "language, lines",
    [
        (
            "en",
            [
                "Route 1: jade (load 36) on space 4",
                "Route 2: silk (load 30, last die 6) in Manila, port space B, plundered by the pirates",
                "Route 3: ginseng (load 18, last die 1) in the shipyard, space A",
            ],
        ),
        (
            "de",
            [
                "Route 1: Jade (Ladung 36) auf Feld 4",
                "Route 2: Seide (Ladung 30, letzter Wurf 6) in Manila, Hafenplatz B, von den Piraten geplündert",
                "Route 3: Ginseng (Ladung 18, letzter Wurf 1) in der Werft, Platz A",
            ],
        ),
    ],
)
def test_a_routes_line_in_the_text_email_is_one_sentence_in_the_readers_language(language, lines):
    """Each sea route's line of the text board is one message (its die and where its punt is as parameters), so a
    translator reads a whole sentence, not a parenthesis opened in one message and closed outside it; English as
    before."""
    engine = get_engine("manila")
    rng = random.Random(3)
    state = engine.setup(3, {}, rng)
    while not state["punts"]:
        state, _ = engine.resolve(state, {s: engine.random_order(state, s, rng) for s in engine.prompts(state)}, rng)
    state["punts"] = [
        {"ware": ware, "pos": pos, "berth": berth, "plundered": plundered, "crew": [None] * len(PUNT_COSTS[ware])}
        for ware, pos, berth, plundered in (
            ("jade", 4, None, False),
            ("silk", 14, "port:B", True),
            ("ginseng", 9, "yard:A", False),
        )
    ]
    state["roll"] = {"silk": 6, "ginseng": 1}
    assert route_lines(state, language) == lines
