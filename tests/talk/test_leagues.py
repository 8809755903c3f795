"""Table talk in leagues: a substitute who claims a dropped seat takes over its conversations from the moment
they sit, and reads none of the previous holder's private messages unless a recipient shares them; the
dropped player writes for the seat no more; while the seat is vacant or a bot's, nobody can be written to
there; a vacation seats nobody, so the holder keeps their conversations. A league's game options set the
press of every table."""

from __future__ import annotations

import pytest

from games.leagues import substitutes, vacations
from games.leagues.models import League, Membership, Substitution
from games.models import Game, Seat
from games.talk import services as talk
from games.talk.options import press_of
from tests.support.leagues import claim_path, first_game, make_league, started_round, token_of

pytestmark = pytest.mark.django_db(transaction=True)


def seat(game: Game, number: int) -> Seat:
    return Seat.objects.select_related("game", "player").get(game=game, number=number)


def texts(game: Game, number: int) -> list[str]:
    game.refresh_from_db()
    return list(talk.visible(game, seat(game, number)).order_by("pk").values_list("text", flat=True))


def league_game(**fields: object) -> tuple[League, Game]:
    league = make_league(players=4, standby=1, **fields)
    return league, first_game(started_round(league))


def test_a_substitute_takes_over_the_seats_conversations_from_when_they_sit():
    league, game = league_game()
    leaving, partner = seat(game, 3), seat(game, 0)
    old_holder = leaving.player
    talk.post(leaving, old_holder, "our secret plan", to=[0])
    talk.post(partner, partner.player, "agreed, keep it quiet", to=[3])
    talk.post(partner, partner.player, "hello table")
    substitutes.drop_member(Membership.objects.get(league=league, player=old_holder))
    # Vacant: nobody to write to, and the dropped player writes for it no more.
    with pytest.raises(talk.Refused, match="not held by a player"):
        talk.post(seat(game, 0), partner.player, "still there?", to=[3])
    with pytest.raises(talk.Refused, match="no longer hold"):
        talk.post(seat(game, 3), old_holder, "I'm back")
    substitutes.claim(token_of(claim_path(Substitution.objects.get())))
    newcomer = seat(game, 3)
    assert newcomer.player != old_holder
    assert texts(game, 3) == ["hello table"]  # the table's talk, not the previous holder's private messages
    talk.post(seat(game, 0), partner.player, "welcome, shall we carry on?", to=[3])
    talk.post(newcomer, newcomer.player, "what did you agree?", to=[0])
    assert texts(game, 3) == ["hello table", "welcome, shall we carry on?", "what did you agree?"]
    # The recipient chooses to share the earlier conversation: then, and only then, the newcomer reads it.
    talk.share(seat(game, 0), "0,3", 3)
    assert texts(game, 3) == [
        "our secret plan",
        "agreed, keep it quiet",
        "hello table",
        "welcome, shall we carry on?",
        "what did you agree?",
    ]
    # The other seats read none of it, before or after the change.
    assert texts(game, 1) == texts(game, 2) == ["hello table"]


def test_a_seat_handed_to_a_bot_can_no_longer_be_written_to():
    league = make_league(players=4, standby=0)
    game = first_game(started_round(league))
    substitutes.drop_member(Membership.objects.get(league=league, player=seat(game, 3).player))
    assert seat(game, 3).is_bot
    with pytest.raises(talk.Refused, match="not held by a player"):
        talk.post(seat(game, 0), seat(game, 0).player, "bot?", to=[3])


def test_a_vacation_seats_nobody_so_the_holder_keeps_their_conversations():
    league, game = league_game()
    away = seat(game, 1)
    talk.post(seat(game, 0), seat(game, 0).player, "before the vacation", to=[1])
    vacations.declare(Membership.objects.get(league=league, player=away.player), 3)
    talk.post(seat(game, 0), seat(game, 0).player, "during the vacation", to=[1])
    assert texts(game, 1) == ["before the vacation", "during the vacation"]


def test_a_leagues_game_options_set_every_tables_press():
    league = make_league(players=4, standby=0, options={"press": "public", "publish_press": "yes"})
    league.full_clean()
    game = first_game(started_round(league))
    press = press_of(game.options)
    assert press.mode == "public" and press.published_at_end
    with pytest.raises(talk.Refused, match="whole table"):
        talk.post(seat(game, 0), seat(game, 0).player, "psst", to=[1])
