"""Ending a league game early: the organiser's choice decides what a table may do (none by default), a draw
shares the places in the standings, a cancelled game scores nothing, a conceded seat goes to a standby
player; and no result already earned changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.engines.base import Standing
from games.leagues.models import League, Seating, Substitution
from games.leagues.results import league_ratings, season_standings
from games.leagues.services import current_season
from games.leagues.substitutes import claim, claim_url
from games.models import Game
from games.play import endings
from games.votes import services
from games.votes.models import Proposal
from tests.support.leagues import first_game, make_league, play_phase, seat, started_round
from tests.support.votes import page, player_at

pytestmark = pytest.mark.django_db(transaction=True)


def league_game(early: str, standby: int = 0) -> tuple[League, Game]:
    league = make_league(players=3, standby=standby, early_endings=early)
    return league, first_game(started_round(league))


def act(game: Game, number: int) -> tuple[int, int]:
    held = seat(game, number)
    assert held.player_id is not None
    return held.pk, held.player_id


def test_a_league_that_allows_nothing_refuses_every_early_end():
    league, game = league_game(League.EarlyEndings.NONE)
    for kind in ("draw", "cancel"):
        with pytest.raises(services.Refused, match="may not .* its organiser has not allowed it"):
            services.propose(*act(game, 0), kind)
    with pytest.raises(services.Refused, match="may not concede"):
        services.concede(*act(game, 0))
    assert not Proposal.objects.exists()
    # The page says so, and offers nothing to press.
    shown = page(player_at(game, 0), game)
    assert "In Spring Cup a table may not agree a draw: its organiser has not allowed it." in shown
    assert "Propose a draw" not in shown and "Concede: leave this game" not in shown


def test_a_league_draw_shares_the_places_and_a_cancel_is_refused_there():
    league, game = league_game(League.EarlyEndings.DRAWS)
    with pytest.raises(services.Refused, match="may not cancel a game"):
        services.propose(*act(game, 0), "cancel")
    services.propose(*act(game, 0), "draw")
    proposal = Proposal.objects.get()
    services.vote(*act(game, 1), proposal.pk, True)
    services.vote(*act(game, 2), proposal.pk, True)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    rows = season_standings(current_season(league))
    shared = sum(league.points[:3]) / 3  # the three places the table shares, split
    assert [(row.points, row.games, row.wins, row.rank) for row in rows] == [(shared, 1, 1 / 3, 1)] * 3


def test_a_cancelled_league_game_scores_nothing():
    league, game = league_game(League.EarlyEndings.ALL)
    services.propose(*act(game, 2), "cancel")
    proposal = Proposal.objects.get()
    services.vote(*act(game, 0), proposal.pk, True)
    services.vote(*act(game, 1), proposal.pk, True)
    game.refresh_from_db()
    assert (game.status, game.result) == (Game.Status.FINISHED, [])
    rows = season_standings(current_season(league))
    assert [(row.points, row.games, row.wins) for row in rows] == [(0.0, 0, 0.0)] * 3


def test_a_conceded_league_seat_is_offered_to_a_standby_player():
    league, game = league_game(League.EarlyEndings.DRAWS, standby=1)
    leaver = seat(game, 1).player
    services.concede(*act(game, 1))
    offer = Substitution.objects.get()
    assert offer.status == Substitution.Status.OFFERED and offer.standby is not None
    assert offer.standby.player.email == "s1@example.com"
    seating = Seating.objects.get(table__game=game, player=leaver)
    assert seating.until_phase is not None  # they hold the seat no more: its result goes to whoever ends it
    assert seat(game, 1).player_id is None


def test_a_vote_is_decided_when_the_league_drops_an_absent_voters_seat():
    league = make_league(players=3, early_endings=League.EarlyEndings.DRAWS, substitute_after=1, grace=timedelta(0))
    game = first_game(started_round(league))
    services.propose(*act(game, 0), "draw")
    services.vote(*act(game, 1), Proposal.objects.get().pk, True)
    play_phase(game, absent=[2])  # seat 3 misses its turn: the league drops it as the next turn opens
    proposal = Proposal.objects.get()
    assert (proposal.status, proposal.reason) == (Proposal.Status.PASSED, Proposal.Reason.AGREED)
    game.refresh_from_db()
    assert sorted(row["rank"] for row in game.result) == [1, 1, 3]


def test_a_player_who_concedes_ranks_last_at_the_table_whatever_the_seat_they_left_scores():
    league, game = league_game(League.EarlyEndings.DRAWS, standby=1)
    leaver = seat(game, 1).player
    assert leaver is not None
    services.concede(*act(game, 1))
    substitute = claim(claim_url(Substitution.objects.get()).rstrip("/").rsplit("/", 1)[-1])  # the link's token
    assert substitute.player is not None and substitute.player.email == "s1@example.com"
    # The seat they left wins the game: its result is its holder's at the end, and the leaver ranks below every
    # seat, scoring nothing, as a game played.
    standings = [Standing(1, score=90, rank=1), Standing(0, score=50, rank=2), Standing(2, score=10, rank=3)]
    endings.finish_early(game.pk, standings, "The game ended.", timezone.now())
    rows = {row.player_id: row for row in season_standings(current_season(league))}
    assert (rows[substitute.player.pk].points, rows[substitute.player.pk].rank) == (10, 1)
    gone = rows[leaver.pk]
    assert (gone.points, gone.games, gone.wins, gone.average_place) == (0, 1, 0, 4)
    assert gone.rank == max(row.rank for row in rows.values())  # last, below the player who finished third
    third = rows[seat(game, 2).player_id or 0]
    assert third.points == 3 and third.rank < gone.rank
    assert league_ratings(league)[leaver.pk] < league_ratings(league)[third.player_id]  # rated last too


def test_the_league_page_says_who_conceded_a_seat_and_who_took_it(client):
    league, game = league_game(League.EarlyEndings.DRAWS, standby=1)
    leaver = seat(game, 1).player
    assert leaver is not None
    play_phase(game)
    services.concede(*act(game, 1))
    substitute = claim(claim_url(Substitution.objects.get()).rstrip("/").rsplit("/", 1)[-1])
    assert substitute.player is not None
    text = " ".join(client.get(f"/leagues/{league.slug}/").content.decode().split())
    assert f"{leaver.display_name} (conceded after phase 1) → {substitute.player.display_name} (substitute from" in text
    assert text.count("conceded") == 1, "only the player who conceded"


def test_a_draw_after_a_concession_shares_first_place_among_those_still_playing_and_the_leaver_is_last():
    league, game = league_game(League.EarlyEndings.DRAWS)
    leaver = seat(game, 2).player
    assert leaver is not None
    services.concede(*act(game, 2))  # nobody on standby: a bot plays the seat
    services.propose(*act(game, 0), "draw")
    services.vote(*act(game, 1), Proposal.objects.get().pk, True)
    game.refresh_from_db()
    assert sorted(row["rank"] for row in game.result) == [1, 1, 3]
    rows = season_standings(current_season(league))
    assert [(row.player_id == leaver.pk, row.points, row.games, row.rank) for row in rows] == [
        (False, 8.0, 1, 1),
        (False, 8.0, 1, 1),
        (True, 0.0, 1, 3),
    ]


def test_a_cancelled_game_counts_for_nobody_who_conceded_in_it_either():
    league, game = league_game(League.EarlyEndings.ALL)
    leaver = seat(game, 2).player
    assert leaver is not None
    services.concede(*act(game, 2))
    services.propose(*act(game, 0), "cancel")
    services.vote(*act(game, 1), Proposal.objects.get().pk, True)
    rows = {row.player_id: row for row in season_standings(current_season(league))}
    assert (rows[leaver.pk].games, rows[leaver.pk].points) == (0, 0.0)
