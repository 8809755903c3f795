"""Management commands: creategame, simulate, replay and the demo."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from games.engines import all_engines
from games.models import Game, Player, Seat

pytestmark = pytest.mark.django_db(transaction=True)


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_creategame_seats_players_and_bots_and_prints_their_links():
    out = run("creategame", "piraeus", "--players", "a@x.org,b@y.org", "--bots", "2", "--deadline", "30m")
    game = Game.objects.get()
    assert game.seats.filter(is_bot=True).count() == 2
    assert game.phase_length.total_seconds() == 1800
    assert out.count("/l/") == 2


def test_creategame_refuses_bad_input_clearly():
    with pytest.raises(CommandError, match="3 to 6 players"):
        run("creategame", "piraeus", "--players", "a@x.org")
    with pytest.raises(CommandError, match="no game engine"):
        run("creategame", "chess", "--players", "a@x.org")
    with pytest.raises(CommandError, match="duration"):
        run("creategame", "piraeus", "--bots", "3", "--deadline", "soon")
    with pytest.raises(CommandError, match="'b-at-y' is not an email address"):
        run("creategame", "piraeus", "--players", "a@x.org,b-at-y", "--bots", "2")
    with pytest.raises(CommandError, match="JSON object"):
        run("creategame", "piraeus", "--bots", "3", "--options", "[]")
    with pytest.raises(CommandError, match="only once"):
        run("creategame", "piraeus", "--players", "a@x.org,A@x.org", "--bots", "1")
    assert not Game.objects.exists()
    assert not Player.objects.exists()  # a refused game leaves no player records behind either


def test_simulate_plays_whole_games_and_prints_figures():
    out = run("simulate", "piraeus", "--players", "4", "--games", "2", "--seed", "5")
    lines = out.strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["finished"] == 2 and figures["games_per_minute"] > 0
    assert figures["queries_per_resolution_max"] == figures["queries_per_resolution_median"]
    assert sum(line.startswith("game #") for line in lines) == 2


def test_replay_matches_a_finished_game_and_notices_tampering():
    run("simulate", "piraeus", "--players", "3", "--games", "1", "--seed", "11")
    game = Game.objects.get()
    assert "replays identically" in run("replay", str(game.pk))
    game.state["prices"] = [1] * len(game.state.get("prices", [0]))
    game.save()
    with pytest.raises(CommandError, match="does not replay"):
        run("replay", str(game.pk))


def test_the_demo_seats_you_once_at_a_table_of_every_game():
    first = run("demo")
    second = run("demo")
    slugs = sorted(engine.slug for engine in all_engines())
    assert sorted(Game.objects.values_list("engine", flat=True)) == slugs
    assert Seat.objects.filter(player__email="you@demo.localhost").count() == len(slugs)
    for engine in all_engines():
        assert engine.title in first and engine.title in second
    assert first.count("/l/") == second.count("/l/") == len(slugs)


def test_the_demo_of_one_game_fits_its_player_count():
    run("demo", "--engine", "manila", "--players", "9")
    game = Game.objects.get()
    assert game.engine == "manila" and game.seats.count() == 5
