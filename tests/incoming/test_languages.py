"""Each person's language (issue 40): a stranger's pages follow the browser's Accept-Language, or the switcher,
whose choice wins over it; a player's follow the language they chose on My games, set at first from the
browser that signed in; every email is in its reader's language, with Content-Language saying so, so one table
can mix languages. English stays the default. The pages in a real browser: tests/incoming/test_browser_languages.py."""

from __future__ import annotations

import ast
import dataclasses
import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games import words
from games.engines import get_engine
from games.engines.base import Msg
from games.incoming.mail import replies
from games.models import Player
from games.outgoing.order_text import order_lines
from games.play import orders
from games.votes import services as votes
from tests.support.accounts import emailed_sign_in_link, sign_in_by_email, signed_in
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

GERMAN = "de-DE,de;q=0.9,en;q=0.5"


def html_lang(response) -> str:
    found = re.search(r'<html lang="([^"]+)"', response.content.decode())
    assert found, "no <html lang>"
    return found.group(1)


def test_a_stranger_reads_the_pages_in_the_browsers_language(client, db):
    page = client.get(reverse("games-mine"), HTTP_ACCEPT_LANGUAGE=GERMAN)
    assert html_lang(page) == "de" and page["Content-Language"] == "de"
    assert "Accept-Language" in page["Vary"]
    assert "Anmelden oder Konto anlegen" in page.content.decode()
    french = client.get(reverse("games-mine"), HTTP_ACCEPT_LANGUAGE="fr-CH, fr;q=0.9")
    assert html_lang(french) == "fr" and "Se connecter ou créer un compte" in french.content.decode()


def test_english_is_the_default_and_a_language_we_do_not_speak_reads_english(client, db):
    assert html_lang(client.get(reverse("games-mine"))) == "en"
    page = client.get(reverse("games-mine"), HTTP_ACCEPT_LANGUAGE="ja, pt-BR;q=0.8")
    assert html_lang(page) == "en" and "Sign in, or make an account" in page.content.decode()


def test_the_switcher_chooses_the_language_over_the_browsers(client, db):
    mine = reverse("games-mine")
    page = client.get(mine, HTTP_ACCEPT_LANGUAGE=GERMAN)
    assert 'name="language" value="fr"' in page.content.decode()  # the switcher's button, for a stranger
    switched = client.post(reverse("set_language"), {"language": "fr", "next": mine}, HTTP_ACCEPT_LANGUAGE=GERMAN)
    assert switched.status_code == 302 and switched["Location"] == mine
    again = client.get(mine, HTTP_ACCEPT_LANGUAGE=GERMAN)
    assert html_lang(again) == "fr" and "Se connecter ou créer un compte" in again.content.decode()


def test_the_switcher_refuses_a_language_we_do_not_speak_and_changes_nothing(client, db):
    mine = reverse("games-mine")
    client.post(reverse("set_language"), {"language": "xx", "next": mine}, HTTP_ACCEPT_LANGUAGE=GERMAN)
    assert html_lang(client.get(mine, HTTP_ACCEPT_LANGUAGE=GERMAN)) == "de"


def test_signing_in_sets_an_unchosen_language_from_the_browser_and_keeps_a_chosen_one(client, make_game):
    make_game(humans=3)
    link = emailed_sign_in_link(client)
    client.post(link, HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert Player.objects.get(email="player1@example.com").language == "fr"
    Player.objects.filter(email="player2@example.com").update(language="de")
    other = client.__class__()
    other.post(emailed_sign_in_link(other, "player2@example.com"), HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert Player.objects.get(email="player2@example.com").language == "de"
    page = other.get(reverse("games-mine"), HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")
    assert html_lang(page) == "de"  # a signed-in player's own choice, whatever the browser says


def test_a_browser_that_names_no_language_leaves_it_unchosen(client, make_game):
    make_game(humans=3)
    sign_in_by_email(client)
    assert Player.objects.get(email="player1@example.com").language == ""


def test_a_player_chooses_german_on_my_games_and_reads_german(client, make_game):
    game = make_game(humans=3)
    sign_in_by_email(client)
    mine = client.get(reverse("games-mine"))
    form = mine.context["settings_form"]
    data = {name: form[name].value() for name in form.fields}  # what the page's form sends, as it is
    assert data["language"] == "en"  # not chosen yet: the language the page speaks
    saved = client.post(reverse("games-mine"), {**data, "language": "de"}, follow=True)
    assert html_lang(saved) == "de" and "Einstellungen gespeichert." in saved.content.decode()
    assert Player.objects.get(email="player1@example.com").language == "de"
    page = client.get(reverse("games-game", args=[game.pk]), HTTP_ACCEPT_LANGUAGE="en-GB")
    assert html_lang(page) == "de"
    assert 'name="language" value="fr"' not in page.content.decode()  # no switcher: My games chooses


def test_an_unknown_language_on_my_games_is_refused_and_changes_nothing(client, make_game):
    make_game(humans=3)
    sign_in_by_email(client)
    form = client.get(reverse("games-mine")).context["settings_form"]
    data = {name: form[name].value() for name in form.fields}
    refused = client.post(reverse("games-mine"), {**data, "language": "xx"})
    assert refused.status_code == 400 and "xx is not one of the available choices" in refused.content.decode()
    assert Player.objects.get(email="player1@example.com").language == ""


def test_each_email_of_a_mixed_table_is_in_its_readers_language(make_game):
    Player.objects.create(email="player1@example.com", name="Anke", language="de")
    Player.objects.create(email="player2@example.com", name="Aurore", language="fr")
    make_game(humans=3)  # player3 chose nothing: English
    by_reader = {message.to[0]: message for message in mail.outbox}
    assert {address: m.extra_headers["Content-Language"] for address, m in by_reader.items()} == {
        "player1@example.com": "de",
        "player2@example.com": "fr",
        "player3@example.com": "en",
    }
    for address, language in (("player1@example.com", "de"), ("player2@example.com", "fr")):
        html, _ = by_reader[address].alternatives[0]
        assert f'<html lang="{language}">' in html
    assert '<html lang="en">' in by_reader["player3@example.com"].alternatives[0][0]
    german, french, english = (by_reader[f"player{n}@example.com"].body for n in (1, 2, 3))
    assert "Hallo Anke," in german and "Du bist am Zug:" in german and "Verdeckten Zug abgeben" not in german
    assert "Gib deinen verdeckten Zug hier ab" in german and "Was seit deiner letzten E-Mail geschah" in german
    assert "Bonjour Aurore," in french and "C’est à vous\u00a0:" in french
    assert "Envoyez votre ordre secret ici" in french
    assert "Hello Player 3," in english and "It is your turn:" in english
    deadline = re.search(r"Frist: (\w+), (\d+)\. (\w+) (\d{4}), (\d\d:\d\d)", german)
    assert deadline, german  # a German date: "Frist: Dienstag, 8. Dezember 2026, 04:40"
    assert deadline.group(1) in {"Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"}
    assert "vor " not in german.split("Frist:")[1][:80] and "in " in german.split("Frist:")[1][:80]


def test_a_sign_in_email_is_in_the_players_language(client, make_game):
    make_game(humans=3)
    Player.objects.filter(email="player1@example.com").update(language="fr")
    emailed_sign_in_link(client)
    assert mail.outbox[-1].extra_headers["Content-Language"] == "fr"


def test_a_sign_up_email_is_in_the_language_of_the_page_that_asked(client, db):
    client.post(reverse("games-mine"), {"email": "new@example.com"}, HTTP_ACCEPT_LANGUAGE=GERMAN)
    message = mail.outbox[-1]
    assert message.extra_headers["Content-Language"] == "de"
    assert message.subject == "Dein pbem-Link: Konto anlegen"


PICKS = {
    "fields": [
        {
            "name": "goods",
            "label": "Goods",
            "kind": "multichoice",
            "min": 0,
            "max": 2,
            "choices": [{"value": "silk", "label": "Silk"}, {"value": "wine", "label": "Wine"}],
        }
    ]
}


@pytest.mark.parametrize(
    ("language", "written", "read"),
    [
        ("de", "goods: silk und wine", ["silk", "wine"]),
        ("de", "goods: silk and wine", ["silk", "wine"]),
        ("fr", "goods: Silk et Wine", ["silk", "wine"]),
        ("de", "goods: keine", []),
        ("fr", "goods: rien", []),
        ("fr", "goods: none", []),
    ],
)
def test_a_reply_is_read_in_its_writers_language_and_in_english(language, written, read):
    with translation.override(language):
        assert replies.read_order(PICKS, replies.Texts(written, False, "")).order == {"goods": read}
        assert order_lines(PICKS, {"goods": []}) == [f"goods: {'keine' if language == 'de' else 'aucun'}"]


def _engine_english(slug: str) -> list[str]:
    """The English of an engine's catalogue that its German does not share: each msgid's literal stretches between
    its placeholders, six characters or more, that no German msgstr of the catalogue contains (city names and
    words German spells alike are no sign of English)."""
    catalogue = settings.BASE_DIR / "games" / "engines" / slug / "locale" / "de" / "LC_MESSAGES" / "django.po"
    texts: dict[str, list[str]] = {"msgid": [], "msgstr": []}  # each entry's text, its lines joined
    kind = ""
    for line in catalogue.read_text().splitlines():
        key = re.match(r"(msgid|msgstr)\S* ", line)
        if key:
            kind = key.group(1)
            texts[kind].append("")
            line = line[key.end() :]
        if kind and line.startswith('"'):
            texts[kind][-1] += ast.literal_eval(line)
    stretches = set()
    for english in filter(None, texts["msgid"]):
        for part in re.split(r"\{\w+\}|%\(\w+\)s", english):
            part = part.strip(" .,:;()")
            if len(part) >= 6 and not any(part in german for german in texts["msgstr"]):
                stretches.add(part)
    return sorted(stretches)


def _readable(html: str) -> str:
    """What a page or an email's HTML says: its text and its titles and labels, without scripts, styles and nonces."""
    import html as entities

    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    said = re.findall(r'(?:title|aria-label|data-label|alt)="([^"]*)"', html)
    text = re.sub(r"<[^>]+>", " ", html)
    return entities.unescape(" ".join([text, *said]))


@pytest.mark.parametrize(
    ("slug", "turns", "least", "german"),
    [
        # two home cities, then the quarter's two turns and its news, then two more turns
        ("ports-of-call", 6, 200, ("Reederei", "Börse", "Geschäftsjahr")),
        # both starting centres, then three turns of each ship (sailing, trading, pirates, storms)
        ("phoenician", 8, 150, ("Handelsplatz", "Laderaum")),
    ],
)
def test_a_german_seat_reads_a_game_without_an_english_word_from_the_engine(
    client, make_game, slug, turns, least, german
):
    """Issue 40: a game's page and turn emails, for a German player, over random turns: the engine's words
    (prompts, board, log, the builder's steps) are all German."""
    import random

    from games.models import Seat
    from games.play import turns as resolutions

    Player.objects.create(email="player1@example.com", name="Anke", language="de")
    game = make_game(humans=2, engine=slug)
    engine, rng = get_engine(slug), random.Random(40)
    for _ in range(turns):
        phase = open_phase(game)
        for number in phase.owed_seats:
            order = engine.random_order(game.state, number, rng)
            orders.submit_order(Seat.objects.get(game=game, number=number), phase.number, order)
        resolutions.resolve_phase(phase.pk)
    game.refresh_from_db()
    assert game.event_count > 10
    english = _engine_english(slug.replace("-", "_"))
    assert len(english) > least
    emails = [message for message in mail.outbox if message.to == ["player1@example.com"]]
    assert emails, "no email for the German seat"
    sign_in_by_email(client)
    page = client.get(reverse("games-game", args=[game.pk]))
    assert html_lang(page) == "de"
    readings = {"page": _readable(page.content.decode())}
    readings |= {f"email {n}": message.body for n, message in enumerate(emails)}
    readings |= {f"email {n} html": _readable(message.alternatives[0][0]) for n, message in enumerate(emails)}
    for where, text in readings.items():
        assert any(word in text for word in german), where
        found = [stretch for stretch in english if stretch in text]
        assert not found, f"{where}: {found}"


def _messages(value: Any) -> Iterator[Msg]:
    """Every message in an engine's words (a prompt's, a view's), nested ones too."""
    if isinstance(value, Msg):
        yield value
        for param in value.params.values():
            yield from _messages(param)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _messages(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _messages(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield from _messages([getattr(value, f.name) for f in dataclasses.fields(value)])


# What Genoa's boards write around the engine's words, in English.
GENOA_BOARD_ENGLISH = (
    "rounds left including this one",
    "round left including this one",
    "The city map",
    "The city of Genoa",
    "Supply:",
    "piles: large",
    "Cards L/S/M/C",
    "in hand",
    "ownership marker",
    "No cards.",
    "sealed: only their maker",
    "THE CITY MAP",
    "BUILDINGS (",
    "PLAYERS (ducats are hidden)",
    "Card piles",
    "West half",
    "Streets with discs",
    "Commodities:",
)


def test_a_german_seat_reads_genoas_page_and_turn_email_with_no_english_from_the_engine(make_game):
    """Red (seat 0) reads German and is the merchant; once Blue and Green have made offers, Red's page and turn
    email hold the prompt, the log, the offers and the board: none of the engine's sentences (a message whose
    English differs from its German, the turn's name among them) and none of the board's fixed English is there.
    The game's terms inside them are German too (a term alone is not sought: it may be a German word too), and the
    route's help teaches the typed steps in German: another seat's colour ('= Blau'), 'ich', 'niemand'."""
    Player.objects.create(email="player1@example.com", name="Anke", language="de")
    game = make_game(humans=3, engine="genoa", seed=5)
    Player.objects.update(notify=Player.Notify.ALL)
    engine = get_engine("genoa")
    for seat, offer in ((1, "Harbor: 13 ducats"), (2, "Tavern: 19 ducats")):
        orders.submit_order(game.seats.get(number=seat), open_phase(game).number, {"offers": offer, "tiles": ""})
    game.refresh_from_db()
    assert game.state["step"] == "route" and game.state["asked"] == [0]
    said: list[Any] = [engine.prompts(game.state)[0], engine.view(game.state, 0)]
    said += [Msg.from_json(e.message) for e in game.events.all() if e.message and e.seat in (None, 0)]
    sentences = set()
    with translation.override("de"):
        for message in _messages(said):
            english = str(message)
            if not message.context.startswith("genoa ") and " " in english and english != words.render(message):
                sentences.add(english)
    assert len(sentences) > 20
    with translation.override("de"):
        german_phase = words.render(engine.phase_name(game.state))  # the board's heading and the page's
    page = signed_in(Client(), game, 0).get(reverse("games-game", args=[game.pk]))
    body = html.unescape(page.content.decode())
    turn_email = [m for m in mail.outbox if m.to == ["player1@example.com"]][-1]
    texts = {"page": body, "email": turn_email.body, "email html": html.unescape(turn_email.alternatives[0][0])}
    for where, text in texts.items():
        assert "Du bist der Händler" in text and german_phase in text, where
        assert "'= Blau'" in text and "'= niemand'" in text and "'= Blue'" not in text, where
        found = sorted(s for s in sentences if s in text) + [p for p in GENOA_BOARD_ENGLISH if p in text]
        assert not found, f"{where}: {found}"


def test_a_german_player_reads_a_votes_email_in_german(make_game):
    """The votes' emails (templates/emails/votes) speak the catalogue: no sentence of the English template."""
    Player.objects.create(email="player1@example.com", name="Anke", language="de")
    game = make_game(humans=3)
    proposer = game.seats.get(player__email="player2@example.com")
    mail.outbox.clear()
    votes.propose(proposer.pk, proposer.player_id, "draw")
    message = next(m for m in mail.outbox if m.to == ["player1@example.com"])
    text, page = str(message.body), message.alternatives[0][0]
    assert "Hallo Anke," in text and "schlägt ein Unentschieden vor" in text and "Die Abstimmung endet" in text
    assert "Auf der Seite des Spiels abstimmen" in page and "Die Abstimmung ist geheim" in page
    for english in ("Hello", "proposes", "It passes only if", "The vote closes", "Votes are secret", "How ending"):
        assert english not in text and english not in page, english
