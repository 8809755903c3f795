"""Small builders for the league tests."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core import mail

from games.leagues import services
from games.leagues.models import League, Membership, Round, Substitution, Table
from games.models import Game, Phase, Player, Seat
from games.play import orders, sweep, turns

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def make_league(players: int = 8, standby: int = 0, *, notify: Any = Membership.Notify.ALL, **fields: Any) -> League:
    """A league whose members chose `notify` for their games and the league: every email by default here, so
    the league tests see all its news (tests/outgoing/test_mail_choices.py is about what a new member gets). Port of
    Piraeus unless `engine` says: "toy" (the toy_game fixture's three-phase game) keeps whole games short."""
    fields.setdefault("phase_length", timedelta(hours=48))
    fields.setdefault("engine", "piraeus")
    league = League.objects.create(**{"name": "Spring Cup", "slug": "spring", **fields})
    for i in range(players):
        player = turns.player_for(f"p{i + 1}@example.com", f"P{i + 1}")
        Membership.objects.create(league=league, player=player, notify=notify)
    for i in range(standby):
        player = turns.player_for(f"s{i + 1}@example.com", f"S{i + 1}")
        Membership.objects.create(league=league, player=player, status=Membership.Status.STANDBY, notify=notify)
    Player.objects.filter(memberships__league=league).update(notify=notify)
    return league


def started_round(league: League, seed: int = 1) -> Round:
    round_ = services.generate_round(services.current_season(league), seed=seed)
    services.start_round(round_.pk)
    round_.refresh_from_db()
    return round_


def first_game(round_: Round) -> Game:
    table = Table.objects.filter(round=round_).order_by("number").first()
    assert table is not None and table.game is not None
    return table.game


def open_phase_of(game: Game) -> Phase:
    game.refresh_from_db()
    phase = turns.current_phase(game)
    assert phase is not None
    return phase


def seat(game: Game, number: int) -> Seat:
    return Seat.objects.select_related("player", "game").get(game=game, number=number)


def submit_for(game: Game, phase: Phase, seats: Iterable[int], seed: str = "") -> None:
    """A random legal order (the bots' own) for each of `seats` the phase asks something of."""
    engine = turns.engine_of(game)
    for number in seats:
        if phase.prompt_for(number) is not None:
            rng = random.Random(f"{seed}:{game.seed}:{phase.number}:{number}")  # not the pk: runs repeat
            orders.submit_order(seat(game, number), phase.number, engine.random_order(game.state, number, rng))


def play_phase(game: Game, absent: Iterable[int] = ()) -> Phase:
    """Every owed seat but `absent` orders; then the sweep runs past each deadline until the phase has
    resolved (a league's grace moves the first missed deadline once). Returns the resolved phase."""
    phase = open_phase_of(game)
    submit_for(game, phase, [n for n in phase.owed_seats if n not in set(absent)])
    for _ in range(3):
        phase.refresh_from_db()
        if phase.status == Phase.Status.RESOLVED:
            return phase
        sweep.run(now=phase.deadline + timedelta(seconds=1))
    phase.refresh_from_db()
    assert phase.status == Phase.Status.RESOLVED, "the phase did not resolve"
    return phase


def autopilot(game: Game) -> None:
    """Every seat's player hands the seat to the core's bot (random legal orders) and the bots play at once,
    to the end of the game: their tasks run after each commit."""
    Seat.objects.filter(game=game).update(is_bot=True)
    phase = open_phase_of(game)
    from games.play.tasks import play_bots_task

    play_bots_task.delay(phase.pk)


def owed_turns_of(game: Game, seat: int, pattern: list[bool]) -> list[Phase]:
    """Play phases until `seat` has been asked len(pattern) times, missing where pattern says True."""
    asked: list[Phase] = []
    while len(asked) < len(pattern):
        phase = open_phase_of(game)
        absent = [seat] if seat in phase.owed_seats and pattern[len(asked)] else []
        if seat in phase.owed_seats:
            asked.append(phase)
        play_phase(game, absent=absent)
    return asked


def organiser_of(*leagues: League, username: str = "organiser") -> Any:
    """A staff user in the project's Organiser group (games/leagues/migrations/0010_organiser_group.py), an
    organiser of `leagues`: not a superuser, and nothing given by hand."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    user = get_user_model().objects.create_user(username, f"{username}@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Organiser"))
    for league in leagues:
        league.organisers.add(user)
    return user


def claim_path(offer: Substitution) -> str:
    """The claim link from the offer's email."""
    assert offer.standby is not None
    message = next(m for m in mail.outbox if m.to == [offer.standby.player.email])
    found = re.search(r"https://pbem\.example(/leagues/claim/\S+/)", str(message.body))
    assert found is not None
    return found.group(1)


def token_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[1]
