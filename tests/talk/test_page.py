"""Table talk on the game page: conversations as threads, newest last, a page at a time in a fixed number of
queries; the form (no JavaScript), its refusals tied to their fields; reporting and sharing."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Player, Seat
from games.outgoing.links import seat_url
from games.play import organise, turns
from games.talk import services as talk
from games.talk.models import Message, Participant, Report
from games.talk.page import PAGE_SIZE

pytestmark = pytest.mark.django_db


def seat(game: Game, number: int) -> Seat:
    return Seat.objects.select_related("game", "player").get(game=game, number=number)


def browser(game: Game, number: int) -> Client:
    client = Client()
    phase = turns.current_phase(game)
    assert phase is not None
    assert client.get(seat_url(seat(game, number), phase)).status_code == 302
    return client


def page(client: Client, game: Game, **query: str) -> str:
    response = client.get(reverse("games-game", args=[game.pk]), query)
    assert response.status_code == 200
    return response.content.decode()


def write(client: Client, game: Game, text: str, to: Sequence[int] = ()) -> Any:
    return client.post(reverse("games-talk", args=[game.pk]), {"text": text, "to": list(to)})


def test_a_message_written_on_the_page_reaches_its_thread_and_only_its_readers(make_game):
    game = make_game(humans=3)
    ann, bob, cat = (browser(game, n) for n in range(3))
    # An empty conversation says so in a sentence, not as a numbered list's first item ("1. No messages yet.").
    empty = page(ann, game).split('id="talk"', 1)[1]
    assert '<p class="muted">No messages yet.</p>' in empty and "messages-thread" not in empty
    response = write(ann, game, "Bob, <script>alert(1)</script> a deal?", to=[1])
    assert response.status_code == 302 and response["Location"].endswith("?talk=0%2C1#talk")
    write(bob, game, "Hello all")
    shown = page(bob, game, talk="0,1")
    assert "Private: You and Player 1" in shown and "&lt;script&gt;alert(1)&lt;/script&gt; a deal?" in shown
    assert "<script>alert" not in shown
    assert "a deal?" not in page(cat, game) and "a deal?" not in page(cat, game, talk="0,1")
    assert "a deal?" not in page(Client(), game, talk="0,1")
    assert "Hello all" in page(Client(), game)  # the table is public, like the log
    # The page has no script; the form is fieldsets with legends and labels.
    assert "<script" not in page(ann, game)
    assert re.search(r"<legend>Write a message</legend>.*<legend>To</legend>", page(ann, game), re.S)
    assert '<label for="id_text">Message:</label>' in page(ann, game)


def test_refusals_show_on_the_form_at_their_field_and_store_nothing(make_game):
    game = make_game(humans=3, bots=1)
    ann = browser(game, 0)
    for text, to, said in [
        ("   ", [], "A message needs some text."),
        ("x" * (talk.MAX_LENGTH + 1), [], f"at most {talk.MAX_LENGTH} characters"),
        ("hi", [3], "That seat is not one you can write to"),  # the bot is not offered
        ("hi", [9], "That seat is not one you can write to"),
    ]:
        response = write(ann, game, text, to)
        assert response.status_code == 400 and said in response.content.decode(), text[:10]
    assert Message.objects.count() == 0
    # Not signed in as a seat: refused, nothing stored.
    assert write(Client(), game, "hi").status_code == 403 and Message.objects.count() == 0


def test_a_game_without_press_or_with_public_press_offers_what_it_allows(make_game):
    public = make_game(humans=3, options={"press": "public"})
    shown = page(browser(public, 0), public)
    assert "Write a message" in shown and "<legend>To</legend>" not in shown
    refused = write(browser(public, 0), public, "psst", to=[1])  # posted anyway: not sent to the table instead
    assert refused.status_code == 400 and "whole table" in refused.content.decode() and Message.objects.count() == 0
    silent = make_game(humans=3, options={"press": "none"}, seed=5)
    assert "Table talk" not in page(browser(silent, 0), silent)
    assert write(browser(silent, 0), silent, "hi").status_code == 400 and Message.objects.count() == 0


def fill(game: Game, count: int, thread_to: Sequence[int] = (), start: int = 0) -> None:
    """`count` messages from seats 0 and 1 in turn, written straight to the tables (no rate limit)."""
    seats = {s.number: s for s in Seat.objects.filter(game=game).select_related("player")}
    now = timezone.now() - timedelta(days=1)
    thread = "table" if not thread_to else ",".join(str(n) for n in sorted({0, *thread_to}))
    readers = list(seats) if not thread_to else sorted({0, *thread_to})
    for n in range(count):
        writer = seats[n % 2 if not thread_to else 0]
        assert writer.player is not None
        message = Message.objects.create(
            game=game,
            thread=thread,
            sender_seat=writer.number,
            sender=writer.player,
            text=f"message number {start + n}",
            sent_at=now + timedelta(seconds=n),
        )
        Participant.objects.bulk_create(
            Participant(message=message, seat_number=r, player=seats[r].player) for r in readers
        )


def queries_for(client: Client, game: Game, **query: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        shown = page(client, game, **query)
    return len(captured), shown


def test_the_page_costs_the_same_queries_with_200_messages_as_with_2_and_shows_the_newest_last(make_game):
    game = make_game(humans=3)
    fill(game, 2)
    fill(game, 2, thread_to=[1])
    bob = browser(game, 1)
    few, _ = queries_for(bob, game)
    few_private, _ = queries_for(bob, game, talk="0,1")
    fill(game, 198, start=2)
    fill(game, 198, thread_to=[1], start=2)
    many, shown = queries_for(bob, game)
    many_private, shown_private = queries_for(bob, game, talk="0,1")
    print(f"\ngame page queries: table {few} with 2 messages, {many} with 200; private {few_private} / {many_private}")
    assert many == few and many_private == few_private
    # The last page (the newest), oldest first on it; an earlier page a link away.
    assert numbers_in(shown) == list(range(200 - PAGE_SIZE, 200)) == numbers_in(shown_private)
    assert "Earlier messages" in shown and "Later messages" not in shown
    earlier = page(bob, game, page="2")
    assert numbers_in(earlier) == list(range(200 - 2 * PAGE_SIZE, 200 - PAGE_SIZE)) and "Later messages" in earlier
    assert numbers_in(page(bob, game, page="99"))[0] == 0  # past the first message: the oldest page


def numbers_in(shown: str) -> list[int]:
    return [int(n) for n in re.findall(r"message number (\d+)", shown)]


def test_times_show_in_the_readers_zone(make_game):
    game = make_game(humans=3)
    Player.objects.filter(email="player2@example.com").update(time_zone="Asia/Tokyo")
    a = seat(game, 0)
    at = timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)
    talk.post(a, a.player, "noon UTC", now=at)
    tokyo = at + timedelta(hours=9)
    assert (
        f'<time datetime="{tokyo:%Y-%m-%dT%H}:00:00+09:00">{tokyo:%a} {tokyo.day} {tokyo:%b}, {tokyo:%H}:00 JST</time>'
        in page(browser(game, 1), game)
    )
    assert f"{at.day} {at:%b}, 12:00 UTC</time>" in page(Client(), game)


def test_a_reader_reports_a_message_from_the_page(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    message = talk.post(a, a.player, "rude", to=[1])
    bob = browser(game, 1)
    assert "Report" in page(bob, game, talk="0,1")
    response = bob.post(reverse("games-talk-report", args=[game.pk]), {"message": message.pk, "thread": "0,1"})
    assert response.status_code == 302 and Report.objects.filter(message=message, by_seat=1).exists()
    cat = browser(game, 2)
    cat.post(reverse("games-talk-report", args=[game.pk]), {"message": message.pk})
    assert Report.objects.count() == 1


def test_a_recipient_shares_a_conversation_with_a_seats_new_holder_from_the_page(make_game):
    game = make_game(humans=3)
    a = seat(game, 0)
    talk.post(a, a.player, "before the change", to=[1])
    organise.replace_player(a, "sub@example.com", "Sub")
    sub = browser(game, 0)
    assert "before the change" not in page(sub, game, talk="0,1")
    bob = browser(game, 1)
    offer = page(bob, game, talk="0,1")
    assert "Let Sub read this conversation's earlier messages" in offer
    bob.post(reverse("games-talk-share", args=[game.pk]), {"thread": "0,1", "seat": 0})
    assert "before the change" in page(sub, game, talk="0,1")
    assert "Let Sub read" not in page(bob, game, talk="0,1")


@pytest.mark.parametrize("publish", ["yes", "no"])
def test_after_the_game_the_page_shows_private_talk_to_all_only_if_published(make_game, publish):
    game = make_game(humans=3, options={"publish_press": publish})
    a = seat(game, 0)
    talk.post(a, a.player, "our private deal", to=[1])
    cat, spectator = browser(game, 2), Client()
    assert "our private deal" not in page(cat, game, talk="0,1") + page(spectator, game, talk="0,1")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    after = page(cat, game, talk="0,1") + page(spectator, game, talk="0,1")
    assert ("our private deal" in after) == (publish == "yes")
    assert "Write a message" not in page(cat, game)  # no more messages once the game is over
