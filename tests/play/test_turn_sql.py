"""The resolution's hand-written statements (games/play/turn_sql.py) read what the ORM's would, and a game no app
has rows about is resolved without the apps' questions (Game.apps_attached)."""

from __future__ import annotations

import random

import pytest
from django.db import connection, transaction
from django.db.models import F, FilteredRelation, Q
from django.test.utils import CaptureQueriesContext

from games.hooks.models import Hook
from games.models import Game, Order, Phase
from games.play import turn_sql, turns
from games.votes import services as votes
from tests.support.phases import open_phase
from tests.support.resolutions import orders_in

pytestmark = pytest.mark.django_db


def test_the_locked_phase_and_its_seats_are_the_orms_rows(make_game) -> None:
    game = make_game(humans=3, bots=1)
    phase = open_phase(game)
    for seat in game.seats.filter(number__in=[1, 2]):
        Order.objects.create(phase=phase, seat=seat, data={"role": "buyer"})
    with transaction.atomic():
        read, locked = turn_sql.locked_phase(phase.pk)
        missing = turn_sql.locked_phase(10**9)
        seats = turn_sql.seats(game, phase) if read else None
    if connection.vendor != "postgresql":
        assert (read, locked, missing, seats) == (False, None, (False, None), None)
        return
    assert read and locked is not None and missing == (True, None) and seats is not None
    orm = Phase.objects.select_related("game").get(pk=phase.pk)
    for field in Phase._meta.concrete_fields:
        assert getattr(locked, field.attname) == getattr(orm, field.attname), field.name
    for field in Game._meta.concrete_fields:
        assert getattr(locked.game, field.attname) == getattr(orm.game, field.attname), field.name
    sealed = FilteredRelation("orders", condition=Q(orders__phase=phase))
    expected = game.seats.select_related("player").annotate(
        sealed=sealed, sealed_id=F("sealed__id"), sealed_data=F("sealed__data"), sealed_default=F("sealed__is_default")
    )
    got = [(s.pk, s.player, s.sealed_id, s.sealed_data, s.sealed_default) for s in seats]
    assert got == [(s.pk, s.player, s.sealed_id, s.sealed_data, s.sealed_default) for s in expected.order_by("number")]
    assert seats[3].player is None and seats[0].sealed_id is None and seats[1].sealed_data is not None


def statements(phase: Phase | None, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    assert phase is not None
    with monkeypatch.context() as patch:
        patch.setattr(turns, "after_commit", lambda *args: None)
        patch.setattr(turns, "wake_email_sender", lambda: None)
        with CaptureQueriesContext(connection) as seen:
            assert turns.resolve_phase(phase.pk)
    return [q["sql"] for q in seen.captured_queries]


def test_only_a_game_an_app_has_rows_about_is_asked_the_apps_questions(make_game, monkeypatch) -> None:
    plain, voted = make_game(humans=3, seed=1), make_game(humans=3, seed=1)
    seat = voted.seats.get(number=0)
    votes.propose(seat.pk, seat.player_id, "draw")
    assert Game.objects.get(pk=voted.pk).apps_attached and not Game.objects.get(pk=plain.pk).apps_attached
    quiet = statements(orders_in(plain, random.Random(1)), monkeypatch)
    asked = statements(orders_in(voted, random.Random(1)), monkeypatch)
    assert not any("votes_proposal" in sql or "hooks_hook" in sql for sql in quiet)
    assert any("votes_proposal" in sql and "hooks_hook" in sql for sql in asked)
    assert len(asked) == len(quiet) + (connection.vendor == "postgresql")  # the apps' read, on PostgreSQL only


def test_the_apps_mark_the_games_they_attach_rows_to(make_game) -> None:
    game, other = make_game(humans=3, seed=1), make_game(humans=3, seed=2)
    player = game.seats.get(number=1).player
    Hook.objects.create(name="mine", kind="json", url="https://hooks.example/in", player=player, enabled=False)
    assert not Game.objects.filter(apps_attached=True).exists()  # a disabled hook concerns nothing
    Hook.objects.create(name="mine", kind="json", url="https://hooks.example/in", player=player)
    # The player's games (the fixture seats the same three players at both tables).
    assert set(Game.objects.filter(apps_attached=True)) == {game, other}
    newcomer = make_game(humans=3, seed=3)  # a game started with a hooked player is marked as it starts
    assert Game.objects.get(pk=newcomer.pk).apps_attached
