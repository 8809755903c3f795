"""Substitutes (games/leagues/substitutes.py): a dropped seat is offered to the first standby player; claiming
moves the seat and kills the old links; of two claims at once exactly one wins (real connections on
PostgreSQL); unclaimed in time, a bot plays the seat's default orders."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues import services, substitutes
from games.leagues.models import League, Membership, Seating, Substitution, Table
from games.leagues.results import league_ratings, reliability, season_standings
from games.models import Game, Order, OutboundEmail, Phase, Seat
from games.outgoing.links import seat_url
from games.play import bots, turns
from games.play.turns import engine_of
from tests.support.leagues import (
    autopilot,
    claim_path,
    first_game,
    make_league,
    open_phase_of,
    owed_turns_of,
    play_phase,
    started_round,
    submit_for,
    token_of,
)
from tests.support.organisers import replace_seat
from tests.support.races import run_together

pytestmark = pytest.mark.django_db(transaction=True)


def dropped_seat(standby: int = 2, **fields: object) -> tuple[League, Game, Substitution, str]:
    """A table of four whose seat 3 (held by P-something) was dropped; returns the offer and its claim path."""
    league = make_league(players=4, standby=standby, **fields)
    game = first_game(started_round(league))
    holder = Seat.objects.get(game=game, number=3).player
    mail.outbox.clear()
    substitutes.drop_member(Membership.objects.get(league=league, player=holder))
    offer = Substitution.objects.get()
    return league, game, offer, claim_path(offer) if offer.standby is not None else ""


def test_dropping_a_player_offers_their_seat_to_the_first_standby_with_a_briefing_and_no_hand():
    league, game, offer, path = dropped_seat()
    assert offer.status == Substitution.Status.OFFERED and offer.seat_number == 3
    assert offer.standby is not None and offer.standby.player.email == "s1@example.com"
    [message] = [m for m in mail.outbox if m.to == ["s1@example.com"]]
    body = str(message.body)
    assert game.name in body and "claim it by" in body
    hand = game.state["hands"][3]
    assert hand and not any(card in body for card in hand)
    assert Membership.objects.get(league=league, player__email="p4@example.com").status == Membership.Status.DROPPED


def test_claiming_moves_the_seat_and_the_old_links_stop_working(client):
    league = make_league(players=4, standby=1)
    game = first_game(started_round(league))
    seat = Seat.objects.select_related("player").get(game=game, number=3)
    old_link = seat_url(seat, open_phase_of(game)).removeprefix("https://pbem.example")
    assert seat.player is not None and client.get(old_link).status_code == 302  # the holder's, for now
    substitutes.drop_member(Membership.objects.get(league=league, player=seat.player))
    offer = Substitution.objects.get()
    path = claim_path(offer)
    assert not game.seats.filter(player=seat.player).exists()  # signed in or not, the seat is not theirs
    assert not OutboundEmail.objects.filter(seat=seat, status="pending").exists()
    assert client.get(old_link).status_code == 403  # the old holder lost the seat when it was dropped

    assert client.get(path).status_code == 200  # the claim page claims nothing
    assert Substitution.objects.get().status == Substitution.Status.OFFERED
    response = client.post(path)
    assert response.status_code == 302 and response["Location"].startswith("https://pbem.example/l/")

    seat.refresh_from_db()
    assert seat.player is not None and seat.player.email == "s1@example.com" and not seat.is_bot
    assert Substitution.objects.get().status == Substitution.Status.CLAIMED
    assert Membership.objects.get(pk=offer.standby_id).status == Membership.Status.ACTIVE
    assert Seating.objects.filter(table__game=game, seat_number=3).count() == 2
    refused = client.get(old_link)
    assert refused.status_code == 403 and "changed hands" in refused.content.decode()
    # The newcomer owes the open phase's order and got the turn email for it.
    assert OutboundEmail.objects.filter(seat=seat, to="s1@example.com", kind="turn-started").exists()
    again = client.post(path)
    assert again.status_code == 409 and "already been claimed" in again.content.decode()


def test_a_forged_claim_link_is_refused():
    _, _, offer, path = dropped_seat()
    token = token_of(path)
    for bad in [token[:-3] + "xyz", "nonsense"]:
        with pytest.raises(services.LeagueError, match="not valid"):
            substitutes.claim(bad)
    assert Substitution.objects.get().status == Substitution.Status.OFFERED


def test_two_claims_racing_on_postgresql_one_wins(postgres):
    _, game, offer, path = dropped_seat()
    token = token_of(path)
    results = run_together(lambda: substitutes.claim(token), lambda: substitutes.claim(token))
    won = [r for r in results if isinstance(r, Seat)]
    lost = [r for r in results if isinstance(r, services.LeagueError)]
    assert len(won) == 1 and len(lost) == 1, results
    assert "already been claimed" in str(lost[0])
    assert Seat.objects.get(game=game, number=3).player == offer.standby.player
    assert Seating.objects.filter(table__game=game, seat_number=3, until_phase__isnull=True).count() == 1


def test_a_claim_racing_the_expiry_on_postgresql_ends_in_one_state(postgres):
    for _ in range(3):
        Substitution.objects.all().delete()
        League.objects.all().delete()
        Game.objects.all().delete()
        _, game, offer, path = dropped_seat()
        token = token_of(path)
        results = run_together(
            lambda token=token, offer=offer: substitutes.claim(token, now=offer.expires_at - timedelta(seconds=1)),
            lambda offer=offer: substitutes.expire_offers(now=offer.expires_at + timedelta(seconds=1)),
        )
        claimed, expired = results
        status = Substitution.objects.get().status
        seat = Seat.objects.get(game=game, number=3)
        if isinstance(claimed, Seat):
            assert expired == 0 and status == Substitution.Status.CLAIMED and not seat.is_bot
        else:
            assert isinstance(claimed, services.LeagueError), results
            assert expired == 1 and status == Substitution.Status.BOT and seat.is_bot and seat.player is None


def test_nobody_claiming_in_time_hands_the_seat_to_a_strong_bot_by_default(settings):
    """The league's last resort plays to win, as the seat's player would have tried: a random bot would hand the
    other players' standings to whoever sits beside it."""
    settings.PBEM_BOT_SECONDS, settings.PBEM_BOT_ITERATIONS = 60, 3  # at its cap: the same order every run
    _, game, offer, _ = dropped_seat()
    assert substitutes.expire_offers(now=offer.expires_at + timedelta(seconds=1)) == 1
    seat = Seat.objects.get(game=game, number=3)
    assert seat.is_bot and seat.bot_level == "strong" and not seat.bot_plays_defaults and seat.player is None
    for _ in range(6):
        phase = open_phase_of(game)
        if 3 in phase.owed_seats:
            game.refresh_from_db()
            chosen = bots.bot_order(engine_of(game), game.state, 3, "strong", f"{game.seed}:{phase.number}:bot")
            assert Order.objects.get(phase=phase, seat=seat).data == engine_of(game).validate(game.state, 3, chosen)
            return
        play_phase(game, absent=[3])
    pytest.fail("the seat was never asked")


def test_nobody_claiming_in_time_hands_the_seat_to_a_bot_that_plays_it():
    _, game, offer, path = dropped_seat(substitute_bot="defaults")
    assert substitutes.expire_offers(now=offer.expires_at - timedelta(seconds=1)) == 0
    assert substitutes.expire_offers(now=offer.expires_at + timedelta(seconds=1)) == 1
    seat = Seat.objects.get(game=game, number=3)
    assert seat.is_bot and seat.bot_plays_defaults and seat.player is None
    with pytest.raises(services.LeagueError, match="expired"):
        substitutes.claim(token_of(path))
    # A league whose policy is default orders: the bot answers every phase that asks the seat at once, with the
    # seat's default order: the table never waits for a deadline, and the stand-in makes no choices of its own.
    asked = 0
    for _ in range(6):
        phase = open_phase_of(game)
        if 3 in phase.owed_seats:
            asked += 1
            assert Order.objects.get(phase=phase, seat=seat).data == default_of(game, 3)
        play_phase(game, absent=[3])
    assert asked


def default_of(game: Game, seat: int) -> dict:
    """The engine's default order for the seat in the game's current state, as submit_order stores it."""
    game.refresh_from_db()
    engine = engine_of(game)
    return engine.validate(game.state, seat, engine.default_order(game.state, seat))


def test_with_nobody_on_standby_a_bot_takes_the_seat_at_once():
    _, game, offer, path = dropped_seat(standby=0, substitute_bot="defaults")
    assert offer.status == Substitution.Status.BOT and offer.standby is None and path == ""
    seat = Seat.objects.get(game=game, number=3)
    assert seat.is_bot and seat.player is None
    phase = open_phase_of(game)
    assert 3 in phase.owed_seats  # the first phase asks everyone: the bot answered at once
    assert Order.objects.get(phase=phase, seat=seat).data == default_of(game, 3)


def test_the_second_dropped_seat_goes_to_the_next_standby():
    league, game, first, _ = dropped_seat()
    holder = Seat.objects.get(game=game, number=2).player
    substitutes.drop_member(Membership.objects.get(league=league, player=holder))
    second = Substitution.objects.exclude(pk=first.pk).get()
    assert second.standby is not None and second.standby.player.email == "s2@example.com"


def test_the_admin_drop_action_offers_the_seat(admin_client):
    league = make_league(players=4, standby=1)
    game = first_game(started_round(league))
    member = Membership.objects.get(league=league, player=Seat.objects.get(game=game, number=0).player)
    admin_client.post(
        reverse("admin:leagues_membership_changelist"), {"action": "drop", "_selected_action": [member.pk]}
    )
    assert Substitution.objects.get().seat_number == 0
    assert admin_client.get(reverse("admin:leagues_substitution_changelist")).status_code == 200
    assert turns.current_phase(game) is not None


def test_misses_before_and_after_a_claim_count_for_whoever_held_the_seat_then():
    league = make_league(players=4, standby=1, grace=timedelta(0), substitute_after=2)
    game = first_game(started_round(league))
    holder = Seat.objects.get(game=game, number=3).player
    assert holder is not None
    owed_turns_of(game, 3, [True, True])
    substitutes.claim(token_of(substitutes.claim_url(Substitution.objects.get())))
    newcomer = Seat.objects.get(game=game, number=3).player
    assert newcomer is not None and newcomer != holder
    owed_turns_of(game, 3, [True, False])
    counts = reliability(Table.objects.filter(game=game))
    assert counts[holder.pk] == (2, 2) and counts[newcomer.pk] == (2, 1)
    others = [s.player_id for s in Seat.objects.filter(game=game).exclude(number=3)]
    assert all(counts[p][1] == 0 and counts[p][0] >= 1 for p in others)


def test_a_claim_after_the_game_has_ended_is_refused_and_changes_nothing(client):
    league, game, offer, path = dropped_seat()
    standby = offer.standby
    assert standby is not None
    autopilot(game)  # the table plays on to the end while the seat is on offer
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    offer.refresh_from_db()
    assert offer.status == Substitution.Status.WITHDRAWN  # withdrawn as the game ended
    page = client.get(path)
    assert page.status_code == 200 and "The game ended before" in page.content.decode()
    assert "<form" not in page.content.decode().split("<main", 1)[1].split("</main>", 1)[0]  # not the language switcher
    refused = client.post(path)
    assert refused.status_code == 409 and "This game is over" in refused.content.decode()
    # An offer left open from before (a game that ended without withdrawing it) is refused all the same.
    Substitution.objects.filter(pk=offer.pk).update(status=Substitution.Status.OFFERED)
    with pytest.raises(services.LeagueError, match="game is over"):
        substitutes.claim(token_of(path))

    assert Membership.objects.get(pk=standby.pk).status == Membership.Status.STANDBY
    seat = Seat.objects.get(game=game, number=3)
    assert seat.player is None
    assert not Seating.objects.filter(player=standby.player).exists()
    rows = {row.player_id: row for row in season_standings(services.current_season(league))}
    assert standby.player_id not in rows and standby.player_id not in league_ratings(league)
    # The players who finished the game are credited as before.
    assert {rows[s.player_id].games for s in Seating.objects.filter(table__game=game, until_phase__isnull=True)} == {1}


def test_the_end_of_a_game_withdraws_only_its_own_offers():
    league = make_league(players=8, standby=2)
    round_ = started_round(league)
    first, second = (t.game for t in round_.tables.order_by("number"))
    assert first is not None and second is not None
    for game in (first, second):
        holder = Seat.objects.get(game=game, number=0).player
        substitutes.drop_member(Membership.objects.get(league=league, player=holder))
    autopilot(first)
    statuses = dict(Substitution.objects.values_list("table__game", "status"))
    assert statuses == {first.pk: Substitution.Status.WITHDRAWN, second.pk: Substitution.Status.OFFERED}
    offer = Substitution.objects.get(table__game=second)
    assert substitutes.claim(token_of(substitutes.claim_url(offer))).game_id == second.pk


def play_to_the_last_phase(game: Game, held_back: int) -> Phase:
    """Play with the default order for `held_back` (missing) and random ones for the others until the open
    phase is the last: resolving it with `held_back` on its default order ends the game. It stays open."""
    engine = engine_of(game)
    for _ in range(1000):
        phase = open_phase_of(game)
        missing = held_back if held_back in phase.owed_seats else phase.owed_seats[-1]
        submit_for(game, phase, [n for n in phase.owed_seats if n != missing])
        sealed = dict(Order.objects.filter(phase=phase).values_list("seat__number", "data"))
        orders = {n: sealed.get(n) or engine.default_order(game.state, n) for n in phase.owed_seats}
        after, _ = engine.resolve(game.state, orders, turns.phase_rng(game, phase.number))
        if not engine.prompts(after):
            return phase
        assert turns.resolve_phase(phase.pk, use_defaults=True)
    raise AssertionError("the game did not end")


def test_a_claim_racing_the_games_last_resolution_on_postgresql_ends_in_one_state(postgres):
    """The claim locks the game's row as the resolution does: either the standby holds the seat when the
    game ends (and the result is theirs), or the game ended first and the claim is refused."""
    for _ in range(2):
        Substitution.objects.all().delete()
        League.objects.all().delete()
        Game.objects.all().delete()
        _, game, offer, path = dropped_seat(substitute_after=0)
        last = play_to_the_last_phase(game, held_back=3)
        claimed, resolved = run_together(
            lambda path=path: substitutes.claim(token_of(path)),
            lambda last=last: turns.resolve_phase(last.pk, use_defaults=True),
        )
        game.refresh_from_db()
        assert resolved is True and game.status == Game.Status.FINISHED, (claimed, resolved)
        status = Substitution.objects.get().status
        holders = Seating.objects.filter(table__game=game, seat_number=3, until_phase__isnull=True)
        if isinstance(claimed, Seat):
            assert status == Substitution.Status.CLAIMED and holders.get().player == offer.standby.player
            # They held the seat as the game ended: its end was emailed to them, as to every holder.
            ended = OutboundEmail.objects.filter(game=game, kind=OutboundEmail.Kind.GAME_OVER)
            assert offer.standby.player.email in ended.values_list("to", flat=True)
        else:
            assert isinstance(claimed, services.LeagueError) and "game is over" in str(claimed), claimed
            assert status == Substitution.Status.WITHDRAWN and not holders.exists()


def test_the_league_page_shows_who_actually_plays_each_seat(client):
    league = make_league(players=4, standby=2)
    game = first_game(started_round(league))
    drawn = [Seat.objects.select_related("player").get(game=game, number=n).player for n in range(4)]
    play_phase(game)
    phase = open_phase_of(game).number
    assert phase > 1

    def drop(number: int) -> None:
        substitutes.drop_member(Membership.objects.get(league=league, player=drawn[number]))

    drop(3)
    substitutes.claim(token_of(substitutes.claim_url(Substitution.objects.get(seat_number=3))))  # S1 plays on
    drop(2)  # offered to S2, not claimed yet: the seat plays its default orders meanwhile
    drop(1)  # nobody left on standby: a bot
    body = client.get(reverse("leagues-league", args=[league.slug])).content.decode()
    names = [p.display_name for p in drawn if p is not None]
    # The bot plays at once: where its seat was the last one owed, the phase resolved and the next one opened.
    played = open_phase_of(game).number - phase + 1
    row = ", ".join(
        [
            names[0],
            f"{names[1]} → a strong bot (from phase {phase}, {played} phase{'s' * (played > 1)})",
            f"{names[2]} → open seat on default orders (from phase {phase})",
            f"{names[3]} → S1 (substitute from phase {phase})",
        ]
    )
    assert f"<td>{row}</td>" in body


def test_an_organiser_replacing_a_league_seat_in_the_admin_credits_each_holder_with_their_own_phases(admin_client):
    league = make_league(players=4, standby=0, grace=timedelta(0), substitute_after=9)
    game = first_game(started_round(league))
    table = Table.objects.get(game=game)
    holder = Seat.objects.get(game=game, number=2).player
    assert holder is not None
    owed_turns_of(game, 2, [True])  # the holder misses one owed order
    game.refresh_from_db()
    seat = Seat.objects.get(game=game, number=2)
    response = replace_seat(admin_client, seat, new_email="newcomer@example.com", new_name="Nia")
    assert response.status_code == 302
    newcomer = Seat.objects.get(game=game, number=2).player
    assert newcomer is not None and newcomer.email == "newcomer@example.com"
    chain = list(Seating.objects.filter(table=table, seat_number=2).order_by("from_phase"))
    assert [(s.player_id, s.from_phase, s.until_phase) for s in chain] == [
        (holder.pk, 1, game.phase_number - 1),
        (newcomer.pk, game.phase_number, None),
    ]
    owed_turns_of(game, 2, [False])  # the newcomer plays
    counts = reliability(Table.objects.filter(game=game))
    assert counts[holder.pk][1] == 1 and counts[newcomer.pk] == (1, 0)
