"""Table talk's service (games/talk): who may write what to whom, who reads it, and every refusal stores
nothing. PostgreSQL, like production (the rate limit holds under the seat's row lock)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Seat
from games.play import newgame, organise
from games.talk import services as talk
from games.talk.models import TABLE, Message, Participant, Report, Share
from games.talk.options import press_of

pytestmark = pytest.mark.django_db


def seat(game: Game, number: int) -> Seat:
    return Seat.objects.select_related("game", "player").get(game=game, number=number)


def texts(game: Game, reader: Seat | None) -> list[str]:
    game.refresh_from_db()
    return list(talk.visible(game, reader).order_by("pk").values_list("text", flat=True))


def refused(call, *args, **kwargs) -> str:
    before = (Message.objects.count(), Participant.objects.count(), Report.objects.count(), Share.objects.count())
    with pytest.raises(talk.Refused) as caught:
        call(*args, **kwargs)
    after = (Message.objects.count(), Participant.objects.count(), Report.objects.count(), Share.objects.count())
    assert after == before, "a refusal stored something"
    return str(caught.value)


def test_table_and_private_messages_reach_only_their_readers(make_game):
    game = make_game(humans=4)
    a, b, c, d = (seat(game, n) for n in range(4))
    talk.post(a, a.player, "Hello table")
    private = talk.post(a, a.player, "B and C: a deal?", to=[1, 2])
    talk.post(b, b.player, "To A only", to=[0])
    assert texts(game, a) == ["Hello table", "B and C: a deal?", "To A only"]
    assert texts(game, b) == ["Hello table", "B and C: a deal?", "To A only"]
    assert texts(game, c) == ["Hello table", "B and C: a deal?"]
    assert texts(game, d) == ["Hello table"]
    assert texts(game, None) == ["Hello table"]  # a spectator reads the table
    assert private.thread == "0,1,2" and Message.objects.get(text="To A only").thread == "0,1"
    # Each reader's inbox: the writer has read their own message, the others not yet.
    unseen = Participant.objects.filter(message=private, seen_at__isnull=True).values_list("seat_number", flat=True)
    assert sorted(unseen) == [1, 2]


def test_publish_at_end_shows_every_message_once_the_game_is_over_and_not_before(make_game):
    game = make_game(humans=3, options={"publish_press": "yes"})
    a = seat(game, 0)
    talk.post(a, a.player, "secret plan", to=[1])
    assert texts(game, seat(game, 2)) == [] and texts(game, None) == []
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    assert texts(game, seat(game, 2)) == ["secret plan"] and texts(game, None) == ["secret plan"]


def test_without_publish_private_messages_stay_private_after_the_game(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    talk.post(a, a.player, "secret plan", to=[1])
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    assert texts(game, seat(game, 2)) == [] and texts(game, None) == []
    assert texts(game, seat(game, 1)) == ["secret plan"]


def test_press_options_default_full_and_are_refused_when_unknown(make_game):
    game = make_game(humans=3)
    assert "press" not in game.options and press_of(game.options).mode == "full"
    assert not press_of(game.options).published_at_end
    for bad in ({"press": "loud"}, {"publish_press": "maybe"}, {"press": 3}):
        with pytest.raises(ValueError, match="press"):
            make_game(humans=3, options=bad)
    assert Game.objects.count() == 1
    # A league checks its options the same way (League.clean): press values pass, bad ones are refused.
    newgame.check_options("piraeus", {"press": "none", "publish_press": True}, [3, 4])
    with pytest.raises(ValueError, match="full, public or none"):
        newgame.check_options("piraeus", {"press": "private"}, [3, 4])


def test_public_press_allows_the_table_only_and_no_press_nothing(make_game):
    public = make_game(humans=3, options={"press": "public"})
    a = seat(public, 0)
    assert "whole table" in refused(talk.post, a, a.player, "psst", to=[1])
    talk.post(a, a.player, "to all")
    silent = make_game(humans=3, engine="piraeus", options={"press": "none"}, seed=99)
    s = Seat.objects.select_related("game", "player").get(game=silent, number=0)
    assert "without table talk" in refused(talk.post, s, s.player, "hello")


@pytest.mark.parametrize(
    ("text", "to", "said"),
    [
        ("   ", (), "needs some text"),
        ("x" * (talk.MAX_LENGTH + 1), (), f"at most {talk.MAX_LENGTH} characters"),
        ("bell\x07", (), "plain text"),
        ("right\u202eto left", (), "plain text"),
        ("hi", (7,), "no seat 8"),
        ("hi", (0,), "yourself"),
        ("hi", (3,), "not held by a player"),  # a bot seat
    ],
)
def test_bad_messages_are_refused_with_a_reason_and_store_nothing(make_game, text, to, said):
    game = make_game(humans=3, bots=1)
    a = seat(game, 0)
    assert said in refused(talk.post, a, a.player, text, to=to)


def test_markup_is_stored_as_the_text_it_is(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    message = talk.post(a, a.player, "  <b>bold</b>\r\nline two  ")
    assert message.text == "<b>bold</b>\nline two"


def test_the_rate_limit_is_per_seat_and_per_window(make_game):
    game = make_game(humans=3)
    a, b = seat(game, 0), seat(game, 1)
    start = timezone.now()
    for n in range(talk.RATE_COUNT):
        talk.post(a, a.player, f"m{n}", now=start + timedelta(seconds=n))
    assert "at most" in refused(talk.post, a, a.player, "one more", now=start + timedelta(seconds=30))
    talk.post(b, b.player, "another seat may still write", now=start + timedelta(seconds=30))
    talk.post(a, a.player, "later again", now=start + talk.RATE_WINDOW + timedelta(seconds=1))


def test_no_message_after_the_game_or_from_a_replaced_player(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    old = a.player
    organise.replace_player(a, "newcomer@example.com")
    assert "no longer hold this seat" in refused(talk.post, seat(game, 0), old, "still here?")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    b = seat(game, 1)
    assert "game is over" in refused(talk.post, b, b.player, "gg")


def test_a_newcomer_reads_from_when_they_sat_unless_a_recipient_shares(make_game):
    game = make_game(humans=3)
    a, b = seat(game, 0), seat(game, 1)
    talk.post(a, a.player, "old deal", to=[1])
    talk.post(b, b.player, "old reply", to=[0])
    talk.post(a, a.player, "table before")
    organise.replace_player(a, "sub@example.com")
    sub = seat(game, 0)
    assert texts(game, sub) == ["table before"]  # the table, not the previous holder's private messages
    talk.post(b, b.player, "welcome", to=[0])
    assert texts(game, sub) == ["table before", "welcome"]
    # B may share the thread's history with the newcomer; only B's own, and only once.
    b = seat(game, 1)
    assert [s.number for s in talk.newcomers(b, "0,1")] == [0]
    talk.share(b, "0,1", 0)
    assert texts(game, sub) == ["old deal", "old reply", "table before", "welcome"]
    assert "nothing of this conversation" in refused(talk.share, b, "0,1", 0)
    assert "nothing of this conversation" in refused(talk.share, seat(game, 2), "0,1", 0)  # C is no party


def test_a_reader_reports_a_message_written_to_them_only(make_game):
    game = make_game(humans=3)
    a, b, c = (seat(game, n) for n in range(3))
    message = talk.post(a, a.player, "rude words", to=[1])
    assert "no such message" in refused(talk.report, c, message.pk)
    assert "your own" in refused(talk.report, a, message.pk)
    talk.report(b, message.pk, "insults")
    assert "already" in refused(talk.report, b, message.pk)
    assert list(Report.objects.values_list("message__thread", "by_seat")) == [("0,1", 1)]


def test_table_messages_fill_every_seated_players_inbox(make_game):
    game = make_game(humans=3, bots=1)
    a = seat(game, 0)
    message = talk.post(a, a.player, "all")
    assert message.thread == TABLE
    assert sorted(message.participants.values_list("seat_number", flat=True)) == [0, 1, 2]
