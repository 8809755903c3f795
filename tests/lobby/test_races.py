"""The lobby's races on PostgreSQL, two real calls at once on separate connections: a rematch pressed by two
players, a rematch against bots pressed twice, the last seat taken by two players, the last seat taken as the
start time's ready check runs. Each time one table, one game, and every refusal a LobbyError with its words:
no 500, no second table. And a rematch whose invitee had the day's invitations is refused, storing nothing."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.core import mail
from django.utils import timezone

from games.lobby import invitations, ready, tables
from games.lobby.limits import LobbyError
from games.lobby.models import Invitation, Table
from games.models import Game, Player
from tests.support.lobby import creator, propose
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


def finished(size: int = 3, bots: int = 0, tag: str = "") -> tuple[Game, list[Player]]:
    """A finished lobby game of `size` seats: its host, the invited players who accepted, and `bots` bots."""
    host = creator(f"host{tag}@example.com")
    guests = [f"guest{i}{tag}@example.com" for i in range(size - 1 - bots)]
    table = propose(host, guests, size=size, bots=bots)
    for invitation in Invitation.objects.filter(table=table).order_by("pk"):
        invitations.accept(invitation.pk, None, invitation.address.split("@")[0])
    table.refresh_from_db()
    game = table.game
    assert game is not None
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    players = [host, *(Player.objects.get(email=address) for address in guests)]
    return Game.objects.get(pk=game.pk), players


def test_a_rematch_pressed_by_two_players_at_once_makes_one_table(postgres):
    for attempt in range(3):
        game, (host, guest, _) = finished(tag=str(attempt))
        results = run_together(partial(tables.rematch, game, host), partial(tables.rematch, game, guest))
        assert all(isinstance(r, Table) for r in results), results
        assert results[0].pk == results[1].pk and Table.objects.filter(rematch_of=game).count() == 1
        invited = Invitation.objects.filter(table=results[0]).values_list("address", flat=True)
        assert len(invited) == len(set(invited)) == 2  # the other two players, once each


def test_a_rematch_against_bots_is_one_game_however_often_it_is_pressed(postgres):
    game, (host,) = finished(size=2, bots=1)
    results = run_together(lambda: tables.rematch(game, host), lambda: tables.rematch(game, host))
    assert all(isinstance(r, Table) for r in results), results
    assert tables.rematch(game, host).pk == results[0].pk == results[1].pk
    rematch = Table.objects.get(rematch_of=game)
    assert rematch.status == Table.Status.STARTED and Game.objects.count() == 2  # the old game and one new


def test_a_rematch_whose_invitee_had_the_days_invitations_is_refused_and_stores_nothing(settings):
    settings.PBEM_LOBBY_INVITES_PER_ADDRESS = 1
    game, (host, guest, other) = finished()
    assert Invitation.objects.filter(address=guest.email).count() == 1  # the day's one, for the first table
    sent = len(mail.outbox)
    with pytest.raises(LobbyError, match=f"{guest.email} has been sent 1 invitations in the last 24 hours"):
        tables.rematch(game, other)
    assert not Table.objects.filter(rematch_of=game).exists() and len(mail.outbox) == sent


def test_the_last_seat_taken_by_two_players_at_once_seats_one(postgres):
    for attempt in range(3):
        table = propose(creator(f"host{attempt}@example.com"), [], size=2)
        ann, bob = creator(f"ann{attempt}@example.com", "Ann"), creator(f"bob{attempt}@example.com", "Bob")
        results = run_together(partial(tables.join, table.pk, ann), partial(tables.join, table.pk, bob))
        assert sum(isinstance(r, Table) for r in results) == 1, results
        refused = [r for r in results if isinstance(r, LobbyError)]
        assert len(refused) == 1 and "no longer waiting" in str(refused[0]), results
        table.refresh_from_db()
        assert table.status == Table.Status.STARTED and Game.objects.filter(lobby_table=table).count() == 1


def test_the_last_seat_taken_as_the_start_times_ready_check_runs_starts_one_game(postgres):
    for attempt in range(3):
        host = creator(f"host{attempt}@example.com")
        table = propose(host, [], size=3)
        tables.join(table.pk, creator(f"ann{attempt}@example.com", "Ann"))
        late = creator(f"bob{attempt}@example.com", "Bob")
        at = table.start_by + timedelta(minutes=1)
        results = run_together(partial(tables.join, table.pk, late), partial(ready.settle, table.pk, at))
        assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, LobbyError)], results
        table.refresh_from_db()
        assert table.status == Table.Status.STARTED and table.game is not None
        assert Game.objects.filter(lobby_table=table).count() == 1
        assert timezone.now() < at  # the check ran at its own time, not the clock's
