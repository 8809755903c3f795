"""A table's lifecycle in the lobby as a Hypothesis state machine: a host proposes tables (invitations, bots,
open seats, private or listed), invites more, and cancels; invitees accept, accept twice, or decline (some
refusing every inviter); signed-in players take open seats and leave; mail to an address bounces or is
marked as spam; the clock passes a start time (the sweep's ready check). After every step:

- no game exists before its table's ready check passed: an open or cancelled table has no game, every
  game started from a table is that table's, and its players are exactly the seats taken at the start;
- no table has more seats than its game allows, and no game fewer players than it needs;
- an address that declined an inviter, bounced or complained is never invited by that inviter again (nor by
  anyone, once it refused every inviter);
- no inviter sent more than the day's cap in any 24 hours, and no address got more than its cap;
- each seat agrees with its invitation: an invited seat's invitation is pending, a pending invitation has
  its one seat, an open seat holds nobody;
- a refused step (a double accept, a full table, a table that moved on) changed nothing.

Bounded (PBEM_MACHINE_EXAMPLES, 4 by default, of up to 25 steps)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from hypothesis import HealthCheck, event
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from games import engines
from games.engines import get_engine
from games.lobby import invitations, ready, tables
from games.lobby.limits import DAY, LobbyError
from games.lobby.models import Block, Invitation, Table, TableSeat
from games.models import Game, Player, Seat
from games.play import turns
from tests.support import database
from tests.support.toy_game.hands import HANDS

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("PBEM_MACHINE_EXAMPLES", "4"))
START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
ADDRESSES = [f"friend{n}@example.com" for n in range(5)]
JOINERS = [f"walkin{n}@example.com" for n in range(2)]
PER_DAY, PER_ADDRESS = 6, 2
ENGINES = [HANDS.slug, "piraeus"]  # 2 to 4, and 3 to 6 players


def snapshot() -> Any:
    """Everything a refused step must leave as it was."""
    return (
        list(Table.objects.order_by("pk").values_list("pk", "status", "game_id")),
        list(TableSeat.objects.order_by("pk").values_list("pk", "state", "player_id", "invitation_id")),
        list(Invitation.objects.order_by("pk").values_list("pk", "answer", "player_id")),
        Block.objects.count(),
        Game.objects.count(),
        list(Player.objects.order_by("pk").values_list("pk", "name")),
    )


class LobbyMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.now = START
        with self.clock():
            self.host = turns.player_for("host@example.com", "Host")
            self.walkins = [turns.player_for(address, address[:7]) for address in JOINERS]

    @contextmanager
    def clock(self) -> Iterator[None]:
        with time_machine.travel(self.now, tick=False):
            yield

    def refused(self, step: Any) -> None:
        """Run `step`; if it is refused (LobbyError), it must have changed nothing."""
        before = snapshot()
        try:
            with self.clock():
                step()
        except LobbyError as error:
            assert str(error), "a refusal says why"
            assert snapshot() == before, f"refused ({error}) yet changed something"
            # What was refused, for --hypothesis-show-statistics.
            event(f"refused: {str(error).split(':')[0].split(' (')[0][:50]}")

    def open_tables(self) -> list[Table]:
        return list(Table.objects.filter(status=Table.Status.OPEN).order_by("pk"))

    # --- Steps ---------------------------------------------------------------------------------------

    @rule(
        engine=st.sampled_from(ENGINES),
        extra=st.integers(0, 3),
        invited=st.lists(st.sampled_from(ADDRESSES), max_size=3, unique=True),
        bots=st.integers(0, 2),
        private=st.booleans(),
        bots_fill=st.booleans(),
        hours=st.integers(1, 72),
    )
    def create(
        self, engine: str, extra: int, invited: list[str], bots: int, private: bool, bots_fill: bool, hours: int
    ) -> None:
        game = get_engine(engine)
        size = min(game.max_players, max(game.min_players, 1 + len(invited) + bots + extra))
        spec = tables.TableSpec(
            engine=engine,
            size=size,
            start_by=self.now + timedelta(hours=hours),
            phase_length=timedelta(hours=24),
            bots=bots,
            bots_fill=bots_fill,
            private=private,
        )
        self.refused(lambda: tables.create_table(self.host, spec, invited))

    @precondition(lambda self: Table.objects.filter(status=Table.Status.OPEN).exists())
    @rule(address=st.sampled_from(ADDRESSES), which=st.integers(0, 9))
    def invite(self, address: str, which: int) -> None:
        waiting = self.open_tables()
        table = waiting[which % len(waiting)]
        self.refused(lambda: invitations.invite_more(table.pk, self.host, address))

    @precondition(lambda self: Invitation.objects.exists())
    @rule(which=st.integers(0, 99), name=st.sampled_from(["", "Ann", "Bo"]))
    def accept(self, which: int, name: str) -> None:
        """An answer to any invitation: a pending one's accept goes through, any other's is refused (a
        double accept, a declined, bounced or withdrawn one)."""
        all_ = list(Invitation.objects.order_by("pk"))
        invitation = all_[which % len(all_)]
        self.refused(lambda: invitations.accept(invitation.pk, None, name))

    @precondition(lambda self: Invitation.objects.exists())
    @rule(which=st.integers(0, 99), everyone=st.booleans())
    def decline(self, which: int, everyone: bool) -> None:
        all_ = list(Invitation.objects.order_by("pk"))
        invitation = all_[which % len(all_)]
        self.refused(lambda: invitations.decline(invitation.pk, everyone=everyone))

    @precondition(lambda self: Table.objects.filter(status=Table.Status.OPEN).exists())
    @rule(who=st.integers(0, len(JOINERS) - 1), which=st.integers(0, 9))
    def join_open_seat(self, who: int, which: int) -> None:
        waiting = self.open_tables()
        table = waiting[which % len(waiting)]
        self.refused(lambda: tables.join(table.pk, self.walkins[who]))

    @precondition(lambda self: TableSeat.objects.filter(table__status="open", state="taken", number__gt=0).exists())
    @rule(which=st.integers(0, 99))
    def leave(self, which: int) -> None:
        seats = list(TableSeat.objects.filter(table__status="open", state="taken", number__gt=0).order_by("pk"))
        seat = seats[which % len(seats)]
        assert seat.player is not None
        self.refused(lambda: tables.leave(seat.table_id, seat.player))

    @precondition(lambda self: Table.objects.exists())
    @rule(which=st.integers(0, 9))
    def cancel(self, which: int) -> None:
        every = list(Table.objects.order_by("pk"))
        table = every[which % len(every)]
        self.refused(lambda: tables.cancel(table.pk, self.host))

    @rule(hours=st.integers(1, 30))
    def time_passes(self, hours: int) -> None:
        """The clock moves on and the sweep's ready check runs (a start time may have come)."""
        self.now += timedelta(hours=hours)
        with self.clock():
            ready.settle_due(self.now)
        for status in Table.objects.values_list("status", flat=True):
            event(f"a table is {status}")

    @rule(address=st.sampled_from(ADDRESSES), complained=st.booleans())
    def bounce(self, address: str, complained: bool) -> None:
        problem = Player.MailProblem.COMPLAINED if complained else Player.MailProblem.BOUNCED
        with self.clock():
            invitations.bounced(address, problem)

    # --- Invariants ----------------------------------------------------------------------------------

    @invariant()
    def no_game_before_ready(self) -> None:
        for table in Table.objects.all():
            if table.status != Table.Status.STARTED:
                assert table.game_id is None, f"{table} is {table.status} yet has a game"
                continue
            assert table.game_id is not None
            taken = set(table.seats.filter(state=TableSeat.State.TAKEN).values_list("player_id", flat=True))
            humans = set(Seat.objects.filter(game_id=table.game_id, is_bot=False).values_list("player_id", flat=True))
            assert humans == taken, f"{table}'s game seats {humans}, its taken seats {taken}"
        assert Game.objects.count() == Table.objects.filter(status=Table.Status.STARTED).count()

    @invariant()
    def seats_within_the_games_bounds(self) -> None:
        for table in Table.objects.all():
            engine = get_engine(table.engine)
            assert table.seats.count() == table.size <= engine.max_players
            if table.game_id:
                assert engine.min_players <= Seat.objects.filter(game_id=table.game_id).count() <= table.size

    @invariant()
    def refusals_are_honoured(self) -> None:
        for invitation in Invitation.objects.all():
            earlier = Block.objects.filter(address=invitation.address, at__lt=invitation.sent_at)
            mine = earlier.filter(inviter=invitation.inviter) | earlier.filter(inviter__isnull=True)
            assert not mine.exists(), f"{invitation.address} invited again after {list(mine.values_list('reason'))}"

    @invariant()
    def caps_honoured(self) -> None:
        sent = list(Invitation.objects.order_by("sent_at").values_list("inviter_id", "address", "sent_at"))
        for _, _, at in sent:
            window = [(who, address) for who, address, when in sent if at <= when < at + DAY]
            assert sum(who == self.host.pk for who, _ in window) <= PER_DAY
            for address in ADDRESSES:
                assert sum(a == address for _, a in window) <= PER_ADDRESS

    @invariant()
    def seats_agree_with_invitations(self) -> None:
        for seat in TableSeat.objects.select_related("invitation"):
            if seat.state == TableSeat.State.INVITED:
                assert seat.invitation is not None and seat.invitation.answer == Invitation.Answer.PENDING
                assert seat.player_id is None
            elif seat.state == TableSeat.State.OPEN:
                assert seat.player_id is None and seat.invitation_id is None
            elif seat.state == TableSeat.State.TAKEN:
                assert seat.player_id is not None
        for invitation in Invitation.objects.filter(answer=Invitation.Answer.PENDING):
            assert invitation.table.status == Table.Status.OPEN
            assert TableSeat.objects.filter(invitation=invitation, state=TableSeat.State.INVITED).count() == 1

    def teardown(self) -> None:
        database.empty()  # the next example starts from an empty database


def test_a_tables_lifecycle_keeps_its_invariants_whatever_its_players_do(monkeypatch: Any, settings: Any) -> None:
    monkeypatch.setitem(engines._REGISTRY, HANDS.slug, HANDS)
    settings.PBEM_LOBBY_INVITES_PER_DAY, settings.PBEM_LOBBY_INVITES_PER_ADDRESS = PER_DAY, PER_ADDRESS
    run_state_machine_as_test(
        LobbyMachine,
        settings=hypothesis_settings(
            max_examples=EXAMPLES,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
