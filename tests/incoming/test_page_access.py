"""What assistive technology and a phone rely on in the pages' HTML: radio groups are fieldsets with a
legend, a refused form announces its errors (role=alert) and ties each to its field (aria-invalid,
aria-describedby), the scrolling log can be reached by the keyboard, wide board tables say how to reflow, and
on the Ports of Call map your own ships are labelled. The browser tests measure the rendered pages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.play import turns
from tests.support.accounts import signed_in
from tests.support.game_renders import points
from tests.support.leagues import make_league, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db


def test_a_radio_group_is_a_fieldset_with_its_legend(client: Client, make_game: Any) -> None:
    game = make_game(humans=3)
    html = signed_in(client, game, 0).get(reverse("games-game", args=[game.pk])).content.decode()
    group = re.search(r"<fieldset[^>]*>\s*<legend>(.*?)</legend>(.*?)</fieldset>", html, re.S)
    assert group is not None, "no fieldset with a legend on the order form"
    assert 'type="radio" name="role"' in group.group(2)
    assert '<div class="log" tabindex="0" role="region" aria-label="Log, newest last">' in html  # keyboard scrolls


def test_a_refused_order_announces_its_errors_and_ties_them_to_the_field(client: Client, make_game: Any) -> None:
    game = make_game(humans=3)
    signed_in(client, game, 0)
    refused = client.post(reverse("games-order", args=[game.pk]), {"phase": open_phase(game).number}, follow=True)
    assert refused.redirect_chain == [(reverse("games-game", args=[game.pk]) + "#order", 302)]  # a page to reload
    html = refused.content.decode()
    summary = re.search(r'<div class="error-summary" role="alert">(.*?)</div>', html, re.S)
    assert summary is not None
    assert '<a href="#id_role">' in summary.group(1) and "Please choose one." in summary.group(1)
    assert re.search(r'<fieldset aria-describedby="id_role_helptext id_role_error">', html)  # its help, then why
    assert '<ul class="errorlist" id="id_role_error"><li>Please choose one.</li></ul>' in html
    assert client.get(reverse("games-game", args=[game.pk])).content.decode().count('role="alert"') == 1  # reloaded
    client.post(reverse("games-order", args=[game.pk]), {"phase": open_phase(game).number, "role": "buyer"})
    assert 'role="alert"' not in client.get(reverse("games-game", args=[game.pk])).content.decode()  # stored


def test_a_wide_board_table_reflows_with_its_column_names(client: Client, make_game: Any) -> None:
    game = make_game(humans=3, engine="genoa")
    html = client.get(reverse("games-game", args=[game.pk])).content.decode()
    assert '<table class="reflow"' in html and 'data-label="Owns"' in html


def test_your_own_ships_are_labelled_on_the_ports_of_call_map(client: Client, make_game: Any) -> None:
    game = make_game(humans=3, engine="ports-of-call")
    engine = turns.engine_of(game)
    for _ in points(game, "ships"):  # play on until Red has ships at sea or in port
        if engine.view(game.state, 0)["my_ships"]:
            break
    page = reverse("games-game", args=[game.pk])
    assert "(yours)" not in client.get(page).content.decode()  # a spectator owns nothing
    html = signed_in(client, game, 0).get(page).content.decode()
    labels = re.findall(r'stroke="#ffffff" stroke-width="4" paint-order="stroke">(\w+)</text>', html)  # not the cities'
    own = re.findall(r"<title>Red (\w+) \(yours\)", html)
    assert own and labels == own
    assert "Your ships</strong> (labelled on the map)" in html


def test_the_league_standings_reflow_on_a_phone(client: Client) -> None:
    league = make_league(players=4)
    started_round(league)
    html = client.get(reverse("leagues-league", args=[league.slug])).content.decode()
    assert '<table class="list reflow">' in html and '<td data-label="Reliability">' in html
