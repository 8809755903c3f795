"""A league's lifecycle as a Hypothesis state machine (issue 28): players sign up and order, an organiser (a
member of the Organiser group, through the admin, as a person does) draws rounds, extends, pauses, resumes and
resolves games, records vacations, drops members, replaces seats, closes rounds, starts seasons and changes the
points per place; deadlines pass (the deadline sweep, at a clock the machine moves) and standby players claim
seats. After every step:

- no member sits in two running games of the league;
- the standings equal a recount from the games' results, each round with the points per place it was drawn with;
- no member is inactive, nor lost a seat, but by missing their own deadlines (a deadline that had passed, not
  on a vacation: an early resolve or a vacation is no miss) or by the organiser acting on them (a drop, a
  replacement);
- no admin page the organiser reads shows a sealed order, a hand or a seed;
- a round whose games are all over is closed, with no beat (tasks run inline, as in `make run`).

The game is Secret Hands (tests/support/toy_game/hands.py): three rounds of sealed cards from random hands, so whole
games are short and every secret is a token no page has by chance. Bounded (PBEM_MACHINE_EXAMPLES, 4 by default,
of up to 25 steps) to stay well under a minute: about 30 s."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, date, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from games import engines
from games.leagues import services, substitutes
from games.leagues.models import League, Membership, Round, Season, Seating, Substitution, Table
from games.leagues.standings import place_points
from games.models import Event, Game, Order, Phase, Player, Seat
from games.play import orders, sweep, turns
from tests.support import database
from tests.support.organisers import answer, replace_seat
from tests.support.toy_game.hands import HANDS

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("PBEM_MACHINE_EXAMPLES", "4"))
START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
SUBSTITUTE_AFTER = 2
RUNNING = [Game.Status.ACTIVE, Game.Status.PAUSED]
SECRET_NUMBER = re.compile(r"\d{9,}")


def organiser(league: League) -> Any:
    user = get_user_model().objects.create_user("organiser", "organiser@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Organiser"))
    league.organisers.add(user)
    return user


# What the organiser's admin pages read (the invariant below): a league's members, seasons, rounds, tables and
# seatings, substitutions, its games with their seats, phases, orders and events, and the players.
ADMIN_SHOWS = (League, Membership, Season, Round, Table, Seating, Substitution, Game, Seat, Phase, Order, Event, Player)


class LeagueMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        # The draws' and the games' seeds (secrets.randbits) from a generator of the example's own: Hypothesis
        # replays an example to shrink it, and the same steps must then meet the same tables and hands.
        self.seeds = mock.patch("secrets.randbits", random.Random(0).getrandbits)
        self.seeds.start()
        self.now = START
        self.signed_up = 0
        self.points = [10, 6, 3, 1]
        self.round_points: dict[int, list[int]] = {}
        self.acted_on: set[int] = set()  # members the organiser dropped or whose seat they gave away
        self.admin_read: list[Any] | None = None  # the rows the admin pages showed when last read
        # Vacations the machine recorded: player -> (from, days, the phases resolved before it was recorded: a
        # vacation recorded after a missed deadline's resolution, even on the same day, does not excuse it).
        self.away: dict[int, list[tuple[date, int, frozenset[int]]]] = {}
        with self.clock():
            self.league = League.objects.create(
                name="Machine Cup",
                slug="machine",
                engine=HANDS.slug,
                points=self.points,
                substitute_after=SUBSTITUTE_AFTER,
                grace=timedelta(hours=12),
                vacation_days=6,
                vacation_cap_days=3,
            )
            for i in range(6):
                self.join(f"m{i}@example.com", standby=False)
            for i in range(2):
                self.join(f"s{i}@example.com", standby=True)
            self.client = Client()
            self.client.force_login(organiser(self.league))

    @contextmanager
    def clock(self) -> Iterator[None]:
        with time_machine.travel(self.now, tick=False):
            yield

    def join(self, email: str, standby: bool) -> None:
        player = turns.player_for(email, email.split("@")[0].upper())
        Membership.objects.create(
            league=self.league, player=player, status=Membership.Status.STANDBY if standby else "active"
        )

    def admin_action(self, model: str, action: str, pk: int, app: str = "leagues", **extra: Any) -> Any:
        """The action as the organiser presses it: an Extend's question is answered Yes, as the page asks it."""
        form = {"action": action, "_selected_action": [pk], **extra}
        page = self.client.post(reverse(f"admin:{app}_{model}_changelist"), form)
        return answer(self.client, page) if action.startswith("extend_") else page

    def running_games(self) -> list[Game]:
        games = Game.objects.filter(league_table__round__season__league=self.league, status__in=RUNNING)
        return list(games.order_by("pk"))

    def playing(self) -> bool:
        return Game.objects.filter(league_table__round__season__league=self.league, status=Game.Status.ACTIVE).exists()

    def rounds(self) -> bool:
        return Round.objects.filter(season__league=self.league).exists()

    # --- Players ----------------------------------------------------------------------------------------

    @rule(standby=st.booleans())
    def sign_up(self, standby: bool) -> None:
        if self.signed_up >= 3:
            return
        self.signed_up += 1
        with self.clock():
            services.request_signup(self.league, f"new{self.signed_up}@example.com", "", "UTC", standby=standby)
            token = re.search(r"/leagues/confirm/([^/\s]+)/", self.league.emails.latest("pk").text)
            assert token is not None
            services.confirm_signup(token.group(1))

    @precondition(playing)
    @rule(data=st.data())
    def submit(self, data: st.DataObject) -> None:
        with self.clock():
            owing = [
                (seat, phase)
                for game in self.running_games()
                if (phase := turns.current_phase(game)) is not None
                for seat in game.seats.filter(player__isnull=False, is_bot=False).order_by("number")
                if phase.prompt_for(seat.number) is not None
            ]
            if not owing:
                return
            seat, phase = data.draw(st.sampled_from(owing))
            card = data.draw(st.sampled_from(phase.game.state["hands"][seat.number]))
            orders.submit_order(seat, phase.number, {"card": card})

    @precondition(playing)
    @rule(data=st.data())
    def everyone_orders(self, data: st.DataObject) -> None:
        """Every seat owing in one running game orders: the phase resolves at once."""
        with self.clock():
            games = [g for g in self.running_games() if g.status == Game.Status.ACTIVE]
            self.all_order(data.draw(st.sampled_from(games)))

    @precondition(playing)
    @rule()
    def every_table_plays_a_phase(self) -> None:
        with self.clock():
            for game in self.running_games():
                if game.status == Game.Status.ACTIVE:
                    self.all_order(game)

    def all_order(self, game: Game) -> None:
        """Each seat still owing an order in the game's open phase orders (the last one resolves it)."""
        game.refresh_from_db()
        phase = turns.current_phase(game)
        if phase is None:
            return
        seats = game.seats.filter(player__isnull=False, is_bot=False, number__in=phase.owed_seats)
        for seat in seats.exclude(orders__phase=phase).order_by("number"):
            orders.submit_order(seat, phase.number, {"card": game.state["hands"][seat.number][-1]})

    @precondition(lambda self: Substitution.objects.filter(status=Substitution.Status.OFFERED).exists())
    @rule(data=st.data())
    def claim(self, data: st.DataObject) -> None:
        with self.clock():
            offers = list(Substitution.objects.filter(status=Substitution.Status.OFFERED).order_by("pk"))
            if not offers:
                return
            offer = data.draw(st.sampled_from(offers))
            token = substitutes.claim_url(offer).rstrip("/").rsplit("/", 1)[-1]
            with suppress(services.LeagueError):  # taken, expired or withdrawn meanwhile
                substitutes.claim(token)

    @rule(hours=st.sampled_from([1, 13, 30]))
    def time_passes(self, hours: int) -> None:
        """The clock moves on, and the beat's deadline sweep runs: deadlines passed are missed (the first one
        of a game with the league's grace), unclaimed offers go to bots."""
        self.now += timedelta(hours=hours)
        with self.clock():
            sweep.run(now=self.now)
            substitutes.expire_offers(self.now)

    @precondition(playing)
    @rule()
    def next_deadline_passes(self) -> None:
        with self.clock():
            deadlines = Phase.objects.filter(
                game__in=[g for g in self.running_games() if g.status == Game.Status.ACTIVE], status=Phase.Status.OPEN
            ).values_list("deadline", flat=True)
        if deadlines:
            self.now = max(self.now, min(deadlines)) + timedelta(seconds=1)
            with self.clock():
                sweep.run(now=self.now)
                substitutes.expire_offers(self.now)

    # --- The organiser, in the admin --------------------------------------------------------------------

    @initialize()
    def first_round(self) -> None:
        """A league's first job: its first round, drawn and started (the steps start from a running round)."""
        self.draw(tomorrow=False)

    @rule(tomorrow=st.booleans())
    def draw(self, tomorrow: bool) -> None:
        with self.clock():
            before = set(Round.objects.values_list("pk", flat=True))
            self.admin_action("league", "draw_round_tomorrow" if tomorrow else "draw_round_now", self.league.pk)
            for round_ in Round.objects.exclude(pk__in=before):
                self.round_points[round_.pk] = list(self.points)

    @precondition(lambda self: bool(self.running_games()))
    @rule(data=st.data(), action=st.sampled_from(["extend_24h", "pause", "resume"]))
    def game_job(self, data: st.DataObject, action: str) -> None:
        with self.clock():
            game = data.draw(st.sampled_from(self.running_games()))
            self.admin_action("game", action, game.pk, app="games")

    @precondition(lambda self: bool(self.running_games()))
    @rule(data=st.data())
    def resolve_now(self, data: st.DataObject) -> None:
        """The organiser resolves a game's open phase now (answering yes when asked)."""
        with self.clock():
            game = data.draw(st.sampled_from(self.running_games()))
            self.admin_action("game", "resolve_now", game.pk, app="games", confirmed="yes")

    @precondition(rounds)
    @rule(action=st.sampled_from(["extend_24h", "pause", "resume", "start_now", "close"]))
    def round_job(self, action: str) -> None:
        with self.clock():
            latest = Round.objects.filter(season__league=self.league).order_by("-pk").first()
            if latest is not None:
                self.admin_action("round", action, latest.pk)

    @precondition(rounds)
    @rule()
    def new_season(self) -> None:
        with self.clock():
            self.admin_action("league", "new_season", self.league.pk)

    @precondition(rounds)
    @rule(tomorrow=st.booleans())
    def new_season_and_draw(self, tomorrow: bool) -> None:
        """The two clicks that once overlapped seasons: a new season, then its first round, at once."""
        self.new_season()
        self.draw(tomorrow)

    @rule(data=st.data(), days=st.integers(1, 4))
    def vacation(self, data: st.DataObject, days: int) -> None:
        with self.clock():
            members = list(self.league.memberships.exclude(status=Membership.Status.DROPPED).order_by("pk"))
            if not members:
                return
            member = data.draw(st.sampled_from(members))
            page = self.client.post(reverse("admin:leagues_vacation_add"), {"membership": member.pk, "days": days})
            if page.status_code == 302:
                resolved = frozenset(Phase.objects.filter(status=Phase.Status.RESOLVED).values_list("pk", flat=True))
                self.away.setdefault(member.player_id, []).append((self.today(), days, resolved))

    @rule(data=st.data())
    def drop(self, data: st.DataObject) -> None:
        with self.clock():
            members = list(self.league.memberships.exclude(status=Membership.Status.DROPPED).order_by("pk"))
            if not members:
                return
            member = data.draw(st.sampled_from(members))
            self.acted_on.add(member.player_id)
            self.admin_action("membership", "drop", member.pk)

    @precondition(lambda self: bool(self.running_games()))
    @rule(data=st.data(), someone_new=st.booleans())
    def replace(self, data: st.DataObject, someone_new: bool) -> None:
        with self.clock():
            seats = list(
                Seat.objects.filter(game__in=self.running_games(), player__isnull=False).select_related("player")
            )
            if not seats:
                return
            seat = data.draw(st.sampled_from(sorted(seats, key=lambda s: s.pk)))
            if someone_new:
                email = f"sub{seat.pk}@example.com"
            else:  # a member who may already sit elsewhere: the league refuses that
                email = data.draw(st.sampled_from(sorted(m.player.email for m in self.league.memberships.all())))
            holder = seat.player_id
            replace_seat(self.client, seat, new_email=email)
            seat.refresh_from_db()
            if seat.player_id != holder and holder is not None:
                self.acted_on.add(holder)

    @rule(points=st.lists(st.integers(0, 20), min_size=1, max_size=4))
    def change_points(self, points: list[int]) -> None:
        with self.clock():
            url = reverse("admin:leagues_league_change", args=[self.league.pk])
            form = self.client.get(url).context["adminform"].form
            data = {name: form[name].value() for name in form.fields}
            data = {name: value for name, value in data.items() if value not in (None, False)}
            data.update(
                points=str(points), options="{}", organisers=list(self.league.organisers.values_list("pk", flat=True))
            )
            if self.client.post(url, data).status_code == 302:
                self.points = points

    # --- What must always hold ----------------------------------------------------------------------------

    def today(self) -> date:
        return self.now.date()  # the league's time zone is UTC

    @invariant()
    def no_member_sits_in_two_running_games(self) -> None:
        with self.clock():
            held = list(
                Seat.objects.filter(
                    game__league_table__round__season__league=self.league,
                    game__status__in=RUNNING,
                    player__isnull=False,
                ).values_list("player_id", flat=True)
            )
            twice = {p for p in held if held.count(p) > 1}
            assert not twice, f"players {twice} sit in two running games of the league"

    @invariant()
    def standings_are_a_recount_of_the_results(self) -> None:
        with self.clock():
            for season in self.league.seasons.all():
                recount: dict[int, float] = {}
                finished = Game.objects.filter(league_table__round__season=season, status=Game.Status.FINISHED)
                for game in finished.select_related("league_table__round"):
                    points = self.round_points[game.league_table.round_id]
                    holders = dict(game.seats.values_list("number", "player_id"))
                    ranks = [row["rank"] for row in game.result]
                    for row, scored in zip(game.result, place_points(points, ranks), strict=True):
                        if holders.get(row["seat"]) is not None:
                            player = holders[row["seat"]]
                            recount[player] = recount.get(player, 0) + scored
                shown = {row.player_id: row.points for row in services.season_standings(season) if row.games}
                assert shown == pytest.approx(recount), f"{season}: standings {shown}, recount {recount}"

    def real_miss(self, order: Order, player: int | None) -> bool:
        """A default order its holder is to blame for: its phase resolved once the deadline had passed, and
        they were not on a vacation the machine had recorded by then."""
        phase = order.phase
        if not order.is_default or phase.resolved_at is None or phase.resolved_at < phase.deadline:
            return False
        day = phase.resolved_at.date()
        return not any(
            start <= day < start + timedelta(days=days) and phase.pk not in before
            for start, days, before in self.away.get(player or 0, [])
        )

    def missed_their_way_out(self, seating: Seating) -> bool:
        """Whether the holder's last counted orders in the seat (a default they were not to blame for counts
        neither way) were SUBSTITUTE_AFTER real misses."""
        orders = Order.objects.filter(
            seat__game_id=seating.table.game_id or 0,
            seat__number=seating.seat_number,
            phase__number__gte=seating.from_phase,
            phase__status=Phase.Status.RESOLVED,
        ).select_related("phase")
        if seating.until_phase is not None:  # the last phase they held
            orders = orders.filter(phase__number__lte=seating.until_phase)
        counted = [
            self.real_miss(o, seating.player_id)
            for o in orders.order_by("-phase__number")
            if not o.is_default or self.real_miss(o, seating.player_id)
        ]
        return len(counted) >= SUBSTITUTE_AFTER and all(counted[:SUBSTITUTE_AFTER])

    @invariant()
    def nobody_loses_a_seat_but_by_their_own_misses_or_the_organisers_act(self) -> None:
        with self.clock():
            seatings = Seating.objects.filter(table__round__season__league=self.league, player__isnull=False)
            for member in self.league.memberships.filter(status=Membership.Status.INACTIVE):
                if member.player_id in self.acted_on:
                    continue
                theirs = seatings.filter(player=member.player).select_related("table")
                assert any(self.missed_their_way_out(s) for s in theirs), f"{member} is inactive without missing"
            for seating in seatings.filter(until_phase__isnull=False).select_related("table"):
                if seating.player_id not in self.acted_on:
                    assert self.missed_their_way_out(seating), f"{seating} ended without its holder missing"

    @invariant()
    def no_admin_page_shows_a_sealed_order_a_hand_or_a_seed(self) -> None:
        with self.clock():
            # The pages show these rows: after a step that changed none (a refused act, a sweep with nothing
            # due) they show what was read already, so they are read again only after a change (9 admin pages
            # after each of about 80 steps were three quarters of this test's time).
            rows = [list(model.objects.order_by("pk").values_list()) for model in ADMIN_SHOWS]
            if rows == self.admin_read:
                return
            self.admin_read = rows
            games = list(Game.objects.filter(league_table__round__season__league=self.league))
            secrets = {str(g.seed) for g in games} | {str(r.draw_seed) for r in Round.objects.all()}
            for game in games:
                if game.status != Game.Status.FINISHED:
                    secrets |= {card for hand in game.state["hands"] for card in hand}
            sealed = Order.objects.filter(phase__game__in=games, phase__status=Phase.Status.OPEN)
            secrets |= {order.data["card"] for order in sealed}
            pages = [
                reverse("admin:leagues_league_console", args=[self.league.pk]),
                reverse("admin:games_game_changelist"),
                reverse("admin:games_order_changelist"),
                reverse("admin:games_event_changelist"),
                reverse("admin:games_phase_changelist"),
                reverse("admin:leagues_round_changelist"),
            ]
            latest = Round.objects.order_by("-pk").first()
            if latest is not None:
                pages.append(reverse("admin:leagues_round_change", args=[latest.pk]))
            pages += [reverse("admin:games_game_change", args=[g.pk]) for g in games if g.status in RUNNING][:2]
            for path in pages:
                page = self.client.get(path)
                assert page.status_code == 200, path
                text = page.content.decode()
                shown = {token for token in secrets if token in text}
                assert not shown, f"{path} shows {shown}"

    @invariant()
    def a_round_whose_games_are_all_over_is_closed(self) -> None:
        with self.clock():
            for round_ in Round.objects.filter(season__league=self.league, status=Round.Status.STARTED):
                games = services.round_games(round_)
                assert games.exclude(status=Game.Status.FINISHED).exists(), f"{round_}: every game is over, not closed"

    def teardown(self) -> None:
        self.seeds.stop()
        database.empty()  # the next example starts from an empty database


@pytest.fixture
def secret_hands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engines._REGISTRY, HANDS.slug, HANDS)


def test_a_league_keeps_its_invariants_whatever_its_players_and_organiser_do(secret_hands: None, settings: Any) -> None:
    settings.SESSION_COOKIE_AGE = 10 * 365 * 24 * 3600  # the machine's clock runs for weeks
    run_state_machine_as_test(
        LeagueMachine,
        settings=settings_for_ci(),
    )


def settings_for_ci() -> settings:
    return settings(
        max_examples=EXAMPLES,
        stateful_step_count=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
