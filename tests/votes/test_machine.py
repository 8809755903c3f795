"""A table's votes to end its game early, as a Hypothesis state machine (issue 32, item 5). In a league that
allows every early end, two tables of three play Secret Hands (tests/support/toy_game/hands.py) while their players,
from their own game pages as a person does, propose draws and cancels, vote yes and no (and the same vote
twice), vote on closed proposals and other tables' ones, concede; a stranger and the league's organiser try
to vote; turns resolve meanwhile, deadlines pass (the deadline sweep and the votes' sweep, at a clock the
machine moves), the organiser gives seats to someone else, games end by their own rules. After every step:

- a vote's secrets stay secret: each player's votes panel depends only on what is public and on their own
  ballot (two players with the same own ballot see the same panel), names nobody, and says "you proposed"
  to the proposer only; no vote email, no log line about a vote, and no organiser's admin page names anyone;
- a table has at most one open vote, and none once its game is over;
- a game ends at most once: it is never finished twice, nor emailed its end twice;
- a passed draw shares the win (every seat held by a player first, the bots after them); a passed cancel
  leaves no result;
- every refused action changed nothing;
- the league's standings equal a recount of its games' results with each round's points per place, a player who
  conceded a seat of a game with a result counting it as played with no points.

Bounded (PBEM_MACHINE_EXAMPLES, 4 by default, of up to 25 steps)."""

from __future__ import annotations

import logging
import os
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from games import engines
from games.leagues import services as leagues
from games.leagues.models import League, Membership, Round, Seating, Table
from games.leagues.results import season_standings
from games.leagues.standings import place_points
from games.models import Event, Game, OutboundEmail, Player, Seat
from games.play import orders, organise, sweep, turns
from games.votes import services
from games.votes.models import Ballot, Proposal, VoteEmail
from tests.support import database
from tests.support.leagues import organiser_of
from tests.support.toy_game.hands import HANDS
from tests.support.votes import player_at, post, said

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("PBEM_MACHINE_EXAMPLES", "4"))
START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
NAMES = ["Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid"]
STANDBY = ["Greta", "Hugo"]
NEWCOMERS = ["Ines", "Jonas", "Kofi", "Lena"]
PANEL = re.compile(r'<div class="card" id="votes">(.*?)</div>', re.S)
CSRF = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')
REFUSALS = (
    "There is no such",
    "A vote is open",
    "A vote on",
    "This vote has closed",
    "You have voted",
    "You are the last player",
    "Choose yes or no",
    str(services.GAME_OVER),
    str(services.NOT_HELD),
)


SEEN: Counter[tuple[str, str, str]] = Counter()  # the proposals the examples made, by how they ended


def panel_of(html: str) -> str:
    found = PANEL.search(html)
    return CSRF.sub("", found.group(1)) if found else ""


class VoteMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.seeds = mock.patch("secrets.randbits", random.Random(0).getrandbits)
        self.seeds.start()
        self.now = START
        self.newcomers = 0
        self.finished_at: dict[int, datetime] = {}
        self.browsers: dict[tuple[Any, ...], Client] = {}
        with self.clock():
            self.league = League.objects.create(
                name="Vote Cup",
                slug="votes",
                engine=HANDS.slug,
                points=[10, 6, 3, 1],
                early_endings=League.EarlyEndings.ALL,
                substitute_after=50,
                grace=timedelta(0),
            )
            for name in NAMES + STANDBY:
                player = turns.player_for(f"{name.lower()}@example.com", name)
                status = Membership.Status.STANDBY if name in STANDBY else Membership.Status.ACTIVE
                Membership.objects.create(league=self.league, player=player, status=status)
            self.organiser = Client()
            self.organiser.force_login(organiser_of(self.league))
            self.new_round()

    @contextmanager
    def clock(self) -> Iterator[None]:
        with time_machine.travel(self.now, tick=False):
            yield

    def new_round(self) -> None:
        round_ = leagues.generate_round(leagues.current_season(self.league), seed=len(self.finished_at))
        leagues.start_round(round_.pk)

    def games(self) -> list[Game]:
        return list(Game.objects.filter(league_table__round__season__league=self.league).order_by("pk"))

    def running(self) -> list[Game]:
        return [game for game in self.games() if game.status != Game.Status.FINISHED]

    def any_running(self) -> bool:
        return bool(self.running())

    def pick(self, index: int) -> Game:
        running = self.running()
        return running[index % len(running)]

    def browser(self, game: Game, number: int) -> Client:
        """The seat's player's browser, which opened the seat's link once (a new holder opens their own)."""
        seat = Seat.objects.get(game=game, number=number)
        key = (game.pk, number, seat.player_id, seat.link_key)
        if key not in self.browsers:
            self.browsers[key] = player_at(game, number)
        return self.browsers[key]

    def snapshot(self) -> tuple[object, ...]:
        return (
            list(Game.objects.order_by("pk").values_list("status", "event_count", "result")),
            list(Proposal.objects.order_by("pk").values_list("status", "reason")),
            list(Ballot.objects.order_by("pk").values_list("seat_number", "player_id", "yes")),
            list(Seat.objects.order_by("pk").values_list("player_id", "is_bot")),
            VoteEmail.objects.count(),
        )

    def as_player(self, game: Game, number: int, action: str, **data: str) -> None:
        """A POST from the seat's own page. A refusal must leave everything as it was."""
        seat = Seat.objects.get(game=game, number=number)
        if seat.player_id is None:
            return
        before = self.snapshot()
        shown = said(post(self.browser(game, number), game, action, **data))
        assert len(shown) == 1, shown
        if shown[0].startswith(REFUSALS) or "may not" in shown[0] or "Tick the box" in shown[0]:
            assert self.snapshot() == before, f"{action} {data} was refused ({shown[0]}) but changed something"

    # --- Players -----------------------------------------------------------------------------------------

    @precondition(any_running)
    @rule(
        index=st.integers(0, 3), seat=st.integers(0, 2), kind=st.sampled_from(["draw", "draw", "cancel", "stalemate"])
    )
    def propose(self, index: int, seat: int, kind: str) -> None:
        with self.clock():
            self.as_player(self.pick(index), seat, "propose", kind=kind)

    @precondition(any_running)
    @rule(index=st.integers(0, 3), seat=st.integers(0, 2), yes=st.booleans())
    def vote(self, index: int, seat: int, yes: bool) -> None:
        """On a table's open vote if one is open anywhere, else on a table's last (closed) one."""
        with self.clock():
            voting = [p.game for p in Proposal.objects.filter(status="open").select_related("game").order_by("pk")]
            game = voting[index % len(voting)] if voting else self.pick(index)
            proposal = Proposal.objects.filter(game=game).order_by("-pk").first()
            if proposal is not None:
                self.as_player(game, seat, "vote", proposal=str(proposal.pk), vote="yes" if yes else "no")

    @precondition(lambda self: Proposal.objects.filter(status="open").exists())
    @rule(index=st.integers(0, 3))
    def the_others_vote_yes(self, index: int) -> None:
        with self.clock():
            voting = list(Proposal.objects.filter(status="open").select_related("game").order_by("pk"))
            proposal = voting[index % len(voting)]
            voted = set(proposal.ballots.filter(yes=True).values_list("seat_number", "player_id"))
            for seat in Seat.objects.filter(game=proposal.game, player__isnull=False).order_by("number"):
                if (seat.number, seat.player_id) not in voted and Proposal.objects.get(pk=proposal.pk).status == "open":
                    self.as_player(proposal.game, seat.number, "vote", proposal=str(proposal.pk), vote="yes")

    @precondition(lambda self: len(self.running()) > 1 and Proposal.objects.exists())
    @rule(seat=st.integers(0, 2))
    def vote_at_the_wrong_table(self, seat: int) -> None:
        with self.clock():
            here, there = self.running()[:2]
            proposal = Proposal.objects.filter(game=there).order_by("-pk").first()
            if proposal is not None:
                self.as_player(here, seat, "vote", proposal=str(proposal.pk), vote="yes")

    @precondition(lambda self: Proposal.objects.filter(status="open").exists())
    @rule(organiser=st.booleans())
    def someone_without_a_seat_votes(self, organiser: bool) -> None:
        with self.clock():
            proposal = Proposal.objects.filter(status="open").first()
            assert proposal is not None
            browser = self.organiser if organiser else Client()
            before = self.snapshot()
            response = browser.post(
                reverse("votes-vote", args=[proposal.game_id]), {"proposal": proposal.pk, "vote": "no"}
            )
            assert response.status_code == 403
            assert self.snapshot() == before

    @precondition(any_running)
    @rule(index=st.integers(0, 3), seat=st.integers(0, 2), confirm=st.booleans())
    def concede(self, index: int, seat: int, confirm: bool) -> None:
        with self.clock():
            self.as_player(self.pick(index), seat, "concede", **({"confirm": "yes"} if confirm else {}))

    @precondition(any_running)
    @rule(index=st.integers(0, 3))
    def play_a_turn(self, index: int) -> None:
        with self.clock():
            game = self.pick(index)
            phase = turns.current_phase(game)
            if phase is None or game.status != Game.Status.ACTIVE:
                return
            rng = random.Random(f"{game.pk}:{phase.number}")
            for number in phase.owed_seats:
                seat = Seat.objects.get(game=game, number=number)
                if seat.player_id is not None and not seat.is_bot:
                    orders.submit_order(seat, phase.number, HANDS.random_order(game.state, number, rng))

    @rule(hours=st.sampled_from([1, 20, 49]))
    def time_passes(self, hours: int) -> None:
        self.now += timedelta(hours=hours)
        with self.clock():
            sweep.run(now=self.now)
            services.close_due(now=self.now)

    @precondition(any_running)
    @rule(index=st.integers(0, 3), seat=st.integers(0, 2))
    def organiser_gives_a_seat_away(self, index: int, seat: int) -> None:
        if self.newcomers >= len(NEWCOMERS):
            return
        with self.clock():
            game = self.pick(index)
            name = NEWCOMERS[self.newcomers]
            self.newcomers += 1
            with suppress(ValueError):  # refused (they play elsewhere in the league): rolled back
                organise.replace_player(Seat.objects.get(game=game, number=seat), f"{name.lower()}@example.com", name)

    @precondition(lambda self: not self.running() and Round.objects.count() < 3)
    @rule()
    def next_round(self) -> None:
        with self.clock():
            Membership.objects.filter(league=self.league, status="inactive").update(status="active")
            self.new_round()

    # --- Invariants ----------------------------------------------------------------------------------------

    @invariant()
    def votes_stay_secret(self) -> None:
        players = {p.pk: p.display_name for p in Player.objects.all()}
        with self.clock():
            for proposal in Proposal.objects.filter(status="open").select_related("game"):
                game = proposal.game
                ballots = {(b.seat_number, b.player_id): b.yes for b in proposal.ballots.all()}
                panels: dict[tuple[str, bool], set[str]] = defaultdict(set)
                shown = panel_of(Client().get(reverse("games-game", args=[game.pk])).content.decode())
                for seat in Seat.objects.filter(game=game, player__isnull=False):
                    mine = ballots.get((seat.number, seat.player_id or 0))
                    own = panel_of(
                        self.browser(game, seat.number).get(reverse("games-game", args=[game.pk])).content.decode()
                    )
                    assert ("Your vote: yes" in own) == (mine is True), own
                    assert ("You proposed" in own) == (proposal.proposer_id == seat.player_id), own
                    assert "You proposed" not in shown and "Your vote" not in shown
                    assert not [name for name in players.values() if name in own], own
                    panels[("yes" if mine else "", proposal.proposer_id == seat.player_id)].add(own)
                for key, seen in panels.items():
                    assert len(seen) == 1, f"players with the same own ballot {key} see different panels"
            for email in VoteEmail.objects.select_related("player"):
                others = [
                    name for pk, name in players.items() if pk != email.player_id and name in email.text + email.html
                ]
                assert not others, f"a vote email names {others}"
            for line in Event.objects.filter(text__iregex=r"vote|propos").values_list("text", flat=True):
                assert not [name for name in players.values() if name in line], line
            admin = self.organiser.get(reverse("admin:votes_proposal_changelist")).content.decode()
            assert not [name for name in players.values() if name in admin]

    @invariant()
    def one_open_vote_per_table_and_none_after_the_end(self) -> None:
        opened = Counter(Proposal.objects.filter(status="open").values_list("game_id", flat=True))
        assert all(count == 1 for count in opened.values())
        assert not Game.objects.filter(pk__in=list(opened), status=Game.Status.FINISHED).exists()

    @invariant()
    def a_game_ends_once(self) -> None:
        for game_id, finished_at in Game.objects.filter(status="finished").values_list("pk", "finished_at"):
            assert finished_at is not None
            assert self.finished_at.setdefault(game_id, finished_at) == finished_at
        ends = Counter(OutboundEmail.objects.filter(kind="game-over").values_list("seat_id", flat=True))
        assert all(count == 1 for count in ends.values())
        early = Counter(Event.objects.filter(data__ended="early").values_list("game_id", flat=True))
        assert all(count == 1 for count in early.values())

    @invariant()
    def a_passed_draw_shares_the_win_and_a_cancel_has_no_result(self) -> None:
        for proposal in Proposal.objects.filter(status="passed").select_related("game"):
            game = proposal.game
            assert game.status == Game.Status.FINISHED and game.finished_at == proposal.closed_at
            if proposal.kind == "cancel":
                assert game.result == []
                continue
            held = set(Seat.objects.filter(game=game, player__isnull=False).values_list("number", flat=True))
            firsts = {row["seat"] for row in game.result if row["rank"] == 1}
            assert firsts == held and all(
                row["rank"] == len(held) + 1 for row in game.result if row["seat"] not in held
            )

    @invariant()
    def the_standings_equal_a_recount(self) -> None:
        totals: dict[int, float] = defaultdict(float)
        played: Counter[int] = Counter()
        tables = Table.objects.filter(round__season__league=self.league, game__status="finished")
        for table in tables.select_related("game", "round"):
            assert table.game is not None
            ended = Seating.objects.filter(table=table, until_phase__isnull=True, player__isnull=False)
            holders = dict(ended.values_list("seat_number", "player_id"))
            # Every seat's place counts, a seat nobody held at the end (a bot's) too: a place it shares is shared.
            places = [row["rank"] for row in table.game.result]
            by_rank = dict(zip(places, place_points(table.round.points, places), strict=True))
            for row in table.game.result:
                if row["seat"] in holders:
                    totals[holders[row["seat"]]] += by_rank[row["rank"]]
                    played[holders[row["seat"]]] += 1
            gave_up = Seating.objects.filter(table=table, conceded=True, player__isnull=False)
            for player in gave_up.values_list("player_id", flat=True) if table.game.result else ():
                totals[player] += 0.0  # a game played, ranked last, no points (games/leagues/early.py)
                played[player] += 1
        with self.clock():
            rows = season_standings(leagues.current_season(self.league))
        assert {row.player_id: (round(row.points, 6), row.games) for row in rows if row.games} == {
            player: (round(points, 6), played[player]) for player, points in totals.items()
        }

    def teardown(self) -> None:
        SEEN.update(Proposal.objects.values_list("kind", "status", "reason"))
        self.seeds.stop()
        mail.outbox.clear()
        database.empty()


def test_ending_votes_keep_their_invariants_whatever_the_table_does(
    monkeypatch: pytest.MonkeyPatch, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(engines._REGISTRY, HANDS.slug, HANDS)
    django_settings = settings
    django_settings.SESSION_COOKIE_AGE = 10 * 365 * 24 * 3600  # the machine's clock runs for weeks
    django_settings.PBEM_LINK_GRACE_HOURS = 10 * 365 * 24  # a seat's link from any phase still opens its page
    with caplog.at_level(logging.INFO, logger="games.votes"):
        run_state_machine_as_test(
            VoteMachine,
            settings=hypothesis_settings(
                max_examples=EXAMPLES,
                stateful_step_count=25,
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
            ),
        )
    # No log line of the votes names a ballot's choice or a voter.
    print("proposals by kind, status and reason:", dict(SEEN))  # noqa: T201  (what the examples covered, with -s)
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("games.votes")]
    for line in lines:
        assert not re.search(r"\b(yes|no|seat)\b", line) or line.endswith("conceded"), line
