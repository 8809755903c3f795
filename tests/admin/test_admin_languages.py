"""The organisers' admin in the organiser's language (issue 40): the Organiser role (staff, not superuser) with a
German or French browser reads the league list, a league's console, a round's and a game's pages with the labels,
columns, actions and messages in that language; no English word of ours is left on them (names aside: the league's,
the players', the game's title and its engine's phase names, which are the engines' own catalogues' business)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from games.leagues.models import League, Round
from tests.support.leagues import first_game, make_league, organiser_of, started_round
from tests.support.organisers import act, said

pytestmark = pytest.mark.django_db(transaction=True)

# English our admin pages said before issue 40 (labels, headings, columns, actions, help texts): none may be left.
ENGLISH = [
    "Missed turns",
    "Sign-ups",
    "Vacations",
    "Ending games early",
    "Deadlines",
    "invite link",
    "public page",
    "Open sign-ups",
    "Close sign-ups",
    "Draw the next round",
    "Start a new season",
    "phase length",
    "time zone",
    "vacation days",
    "substitute bot",
    "How a seat nobody claims is played",
    "Players",
    "Members",
    "Still to order",
    "Phase and deadline",
    "Record a vacation",
    "Nobody is away",
    "everyone has ordered",
    "current phase",
    "reminder before",
    "Seats",
    "seat's page",
    "replace its player",
    "Extend the current deadline",
    "Resolve the current phase",
    "Pause (deadlines stop)",
    "Resume (the open phase",
    "Times are in",
    "Leagues",
    "Rounds",
    "Memberships",
    "started by",
    "finished at",
    "created at",
    "status",
    "Active",
    "Paused",
]


def visible(page) -> str:
    """The page's text as a reader sees it: no tags, scripts, styles or hidden inputs' values."""
    html = page.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def english_left(text: str) -> list[str]:
    return [phrase for phrase in ENGLISH if re.search(rf"\b{re.escape(phrase)}\b", text)]


@pytest.mark.parametrize(
    "language, phrases",
    [
        (
            "de",
            {
                "league_list": ["Ligen", "Konsole", "Anmeldung öffnen", "Zeitzone"],
                "league": ["Versäumte Züge", "Urlaube", "Ersatz-Bot", "Phasenlänge"],
                "console": ["Mitglieder", "Noch ohne Zug", "Phase und Frist", "Urlaub eintragen"],
                "game": ["Phasenlänge", "Erinnerung vorher", "Aktuelle Phase", "Plätze", "Spieler ersetzen"],
                "drawn": "Runde 2 ausgelost: 1 Tisch gestartet.",
            },
        ),
        (
            "fr",
            {
                "league_list": ["Ligues", "Console", "Ouvrir les inscriptions", "Fuseau horaire"],
                "league": ["Tours manqués", "Congés", "Bot remplaçant", "Durée de phase"],
                "console": ["Membres", "Ordres encore dus", "Phase et échéance", "Enregistrer un congé"],
                "game": ["Durée de phase", "Rappel avant", "Phase en cours", "Places", "remplacer son joueur"],
                "drawn": "manche 2 tirée\u00a0: 1 table lancée.",
            },
        ),
    ],
)
def test_an_organiser_reads_the_admin_in_their_language(client, language, phrases):
    league = make_league(players=4)
    round_ = started_round(league)
    game = first_game(round_)
    client.force_login(organiser_of(league))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    pages = {
        "league_list": client.get(reverse("admin:leagues_league_changelist")),
        "league": client.get(reverse("admin:leagues_league_change", args=[league.pk])),
        "console": client.get(reverse("admin:leagues_league_console", args=[league.pk]) + f"?round={round_.pk}"),
        "round": client.get(reverse("admin:leagues_round_change", args=[round_.pk])),
        "game": client.get(reverse("admin:games_game_change", args=[game.pk])),
    }
    for name, page in pages.items():
        assert page.status_code == 200, name
        text = visible(page)
        assert page["Content-Language"] == language
        assert not english_left(text), (name, english_left(text))
        for phrase in phrases.get(name, []):
            assert phrase in text, (name, phrase)
    # An action's message too: the round closes once its game is over, so draw the next one in a new league.
    Round.objects.filter(pk=round_.pk).update(status=Round.Status.FINISHED)
    drawn = act(client, "league", "draw_round_now", League.objects.get(pk=league.pk))
    assert said(drawn) and said(drawn)[0].endswith(phrases["drawn"]), said(drawn)


@pytest.mark.parametrize(
    "language, yes, no, search",
    [("de", "Ja", "Nein", "Suchen"), ("fr", "Oui", "Non", "Rechercher"), ("en", "Yes", "No", "Search")],
)
def test_the_admins_icons_say_yes_no_and_search_in_the_organisers_language(client, language, yes, no, search):
    """Django writes a yes/no icon's and the search box's alternative texts in English ("True", "False",
    "Search") whatever the page's language: ours say them in the organiser's (games/admin/yes_no.py,
    templates/admin/search_form.html), Django's icons kept."""
    league = make_league(players=4)
    League.objects.filter(pk=league.pk).update(signups_open=True)
    game = first_game(started_round(league))
    client.force_login(organiser_of(league))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    pages = [
        client.get(reverse("admin:leagues_league_changelist")),  # 'sign-ups open': yes
        client.get(reverse("admin:leagues_membership_changelist")),  # 'away now': no; a search box
        client.get(reverse("admin:games_seat_change", args=[game.seats.first().pk])),  # a bot's seat: no
    ]
    icons = set(
        re.findall(
            r'<img src="[^"]*/admin/img/(icon-\w+|search)\.svg" alt="([^"]*)"',
            "".join(page.content.decode() for page in pages),
        )
    )
    assert icons == {("icon-yes", yes), ("icon-no", no), ("search", search)}
    assert [page["Content-Language"] for page in pages] == [language] * 3
