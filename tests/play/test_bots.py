"""Built-in bots at their level (games/play/bots.py): random, or the search at its budget, through the players'
own path."""

from __future__ import annotations

import pytest

from games.engines import get_engine
from games.engines.search import Budget
from games.models import BotLevel, Order
from games.play import bots
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db


@pytest.fixture
def tiny_budget(settings):
    # At the iteration cap long before the time, so the search is reproducible here.
    settings.PBEM_BOT_SECONDS = 60
    settings.PBEM_BOT_ITERATIONS = 20


def test_a_level_is_a_budget_strong_the_settings_easy_a_tenth(tiny_budget) -> None:
    assert bots.budget(BotLevel.STRONG) == Budget(seconds=60, iterations=20)
    assert bots.budget(BotLevel.EASY) == Budget(seconds=6, iterations=2)
    assert bots.budget(BotLevel.STRONG, seconds=0.5) == Budget(seconds=0.5, iterations=20)


def test_each_bot_seat_plays_the_order_of_its_level(make_game, tiny_budget) -> None:
    """A strong and an easy bot submit the search's order for the game's seed, a random bot the engine's random
    order, each stored as a player's order would be."""
    levels = ["random", BotLevel.RANDOM, BotLevel.EASY, BotLevel.STRONG]
    game = make_game(humans=1, bots=3, engine="manila", bot_levels=levels, seed=99)
    assert [seat.bot_level for seat in game.seats.order_by("number")] == levels
    phase = open_phase(game)
    assert phase.number == 1 and phase.owed_seats == [0, 1, 2, 3]  # the first bid: the player still owes
    assert bots.play_bots(phase.pk) == 3  # its after-commit call does not run in a test's transaction
    engine = get_engine("manila")
    played = {o.seat.number: o.data for o in Order.objects.filter(phase=phase).select_related("seat")}
    assert sorted(played) == [1, 2, 3]
    for seat in (1, 2, 3):
        expected = bots.bot_order(engine, game.state, seat, levels[seat], "99:1:bot")
        assert played[seat] == engine.validate(game.state, seat, expected)


def test_a_searched_order_the_true_state_refuses_falls_back_to_a_random_legal_one(make_game, monkeypatch, caplog):
    """Should a rule turn on what the seat cannot see, the refusal is all the bot learns: it plays a random
    legal order rather than leave the table waiting for its deadline."""
    game = make_game(humans=1, bots=2, bot_levels=["random", "strong", "strong"])
    phase = open_phase(game)
    Order.objects.filter(phase=phase).delete()
    monkeypatch.setattr(bots, "bot_order", lambda *args, **kwargs: {"role": "pirate"})
    assert bots.play_bots(phase.pk) == 2
    played = Order.objects.filter(phase=phase, seat__number__in=[1, 2])
    assert played.count() == 2 and all(o.data["role"] in ("buyer", "seller") for o in played)
    assert "bot order refused" in caplog.text


def test_a_search_that_fails_plays_a_random_legal_order_and_is_logged(make_game, monkeypatch, caplog):
    game = make_game(humans=1, bots=2, bot_levels=["random", "strong", "easy"])
    phase = open_phase(game)
    Order.objects.filter(phase=phase).delete()

    def broken(*args, **kwargs):
        raise ValueError("list.remove(x): x not in list")

    monkeypatch.setattr(bots, "bot_order", broken)
    assert bots.play_bots(phase.pk) == 2
    assert Order.objects.filter(phase=phase, seat__number__in=[1, 2]).count() == 2
    assert "bot search failed" in caplog.text
