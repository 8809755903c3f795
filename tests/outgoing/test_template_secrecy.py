"""Templates receive what their reader may see and nothing else (games/outgoing/facts.py). Over a seeded random game
of every registered game (and the toy): every value the game page and every email template is handed,
walked through dict items, list items, dataclass fields and forms (tests/support/template_audit.py, which every
test runs), is plain data or a public fact, never a model instance (a Game leads to the state and the
seed, a Phase to every seat's prompt, a Seat, Player, Order or Event back to its game) nor an engine; and
secrets planted in the state, the seed, the other seats' prompts, their private log lines and private table
talk between the other seats never show in any page (the private conversation asked for by name too), email
body or subject, or log line."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.engines import all_engines
from games.models import Event, Game, Phase, Seat
from games.play import turns
from games.talk import mail as talk_mail
from games.talk import services as talk
from games.talk.models import Delivery, TalkSettings
from tests.support.game_renders import (
    PLAYERS,
    Read,
    emails_due,
    history_pages,
    order_pages,
    pages,
    points,
    seat_clients,
)

pytestmark = pytest.mark.usefixtures("toy_game")
GAMES = [engine.slug for engine in all_engines()] + ["toy"]
SEED = 7318009215537
STATE_SECRET = "PLANTED-STATE-SECRET"


def plant_secrets(game: Game) -> None:
    """A secret in the state (kept by every resolution, which copies the state) and a private log line
    for each seat."""
    state = {**game.state, "planted": STATE_SECRET}
    count = game.event_count
    Event.objects.bulk_create(
        Event(game=game, phase_number=1, seq=count + 1 + n, seat=n, text=f"PLANTED-LINE-{n}") for n in range(PLAYERS)
    )
    Game.objects.filter(pk=game.pk).update(state=state, event_count=count + PLAYERS)


# Private table talk: each seat writes to the next one only ("0,1", "1,2", "0,2"); and one table message.
PRIVATE = {n: (n, (n + 1) % PLAYERS) for n in range(PLAYERS)}


def private_text(writer: int) -> str:
    return f"PLANTED-PRIVATE-{writer}"


def plant_messages(game: Game) -> None:
    """The messages, and each way of getting them by email: a seat asked for an order first gets them in its
    turn email, the next seat in the daily digest, the third at once."""
    seats = {s.number: s for s in Seat.objects.filter(game=game).select_related("game", "player")}
    phase = turns.current_phase(game)
    assert phase is not None
    first = phase.owed_seats[0]
    for number, delivery in [(first, Delivery.TURN), ((first + 1) % PLAYERS, Delivery.DIGEST)]:
        player = seats[number].player
        assert player is not None
        TalkSettings.objects.create(player=player, delivery=delivery)
    for writer, (_, to) in PRIVATE.items():
        talk.post(seats[writer], seats[writer].player, private_text(writer), to=[to])
    talk.post(seats[0], seats[0].player, "PLANTED-TABLE-TALK")


def talk_pages(game: Game, clients: dict[int | None, Client]) -> list[Read]:
    """Every private conversation asked for by name, by every browser (a reader not in it gets the table)."""
    url = reverse("games-game", args=[game.pk])
    read = []
    for key in sorted({",".join(map(str, sorted(pair))) for pair in PRIVATE.values()}):
        for number, client in clients.items():
            response = client.get(url, {"talk": key})
            assert response.status_code == 200
            read.append(Read(f"talk page {key}", number, False, response.content.decode()))
    return read


def talk_emails_due(game: Game) -> list[Read]:
    """The message emails and digests due now (a message's own task and the daily digest, run by hand: a
    test's transaction never commits)."""
    mail.outbox.clear()
    talk_mail.send_due(game.pk, timezone.now() + timedelta(days=1))
    talk_mail.send_digests()
    seats = {seat.player.email: seat.number for seat in game.seats.select_related("player") if seat.player}
    read = []
    message: Any
    for message in mail.outbox:
        (kind,) = message.anymail_test_params["tags"]
        number = seats[message.to[0]]
        read += [
            Read(f"{kind} email (subject)", number, False, message.subject),
            Read(f"{kind} email (text)", number, False, message.body),
            Read(f"{kind} email (HTML)", number, False, message.alternatives[0][0]),
        ]
    return read


def plant_prompt_secrets(phase: Phase) -> None:
    for seat, prompt in phase.prompts.items():
        planted = f" PLANTED-PROMPT-{seat}"
        text = prompt["text"]  # the engine's message (games/engines/base.py Msg.to_json), or English stored before
        if isinstance(text, dict):
            prompt["text"] = {"id": "{text}" + planted, "params": {"text": text}}
        else:
            prompt["text"] = text + planted
    Phase.objects.filter(pk=phase.pk).update(prompts=phase.prompts)


def secrets_shown(read: Read) -> list[str]:
    others = [n for n in range(PLAYERS) if n != read.seat]
    secrets = [STATE_SECRET, str(SEED), *(f"PLANTED-PROMPT-{n}" for n in others)]
    secrets += [f"PLANTED-LINE-{n}" for n in others]
    secrets += [private_text(w) for w, pair in PRIVATE.items() if read.seat not in pair]
    return [secret for secret in secrets if secret in read.content]


@pytest.mark.parametrize("slug", GAMES)
def test_no_template_can_reach_or_shows_the_state_the_seed_or_another_seats_prompt(
    slug, make_game, template_audit, caplog, settings
):
    caplog.set_level(logging.DEBUG)
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"  # turn emails show a reply example too
    game = make_game(humans=PLAYERS, engine=slug, seed=SEED)
    plant_secrets(game)
    plant_messages(game)
    clients = seat_clients(game)
    own_seen: set[str] = set()
    scanned = {"page": 0, "email": 0}
    talk_seen: set[str] = set()  # the kinds of email that carried a private message to its reader
    looked_back: list[int] = []
    stopped: list[int] = []
    then: tuple[int, dict] | None = None  # the phase last stopped at, and the state it was played in
    for phase in points(game, seed=f"secrecy:{slug}"):
        if phase is not None:
            plant_prompt_secrets(phase)
        # Each phase stopped at is read again from the history pages once it has resolved.
        history = history_pages(game, then[0], then[1], clients) if then is not None else []
        looked_back += [then[0]] if then is not None else []
        game.refresh_from_db()
        then = (phase.number, game.state) if phase is not None else None
        stopped += [phase.number] if phase is not None else []
        # The emails first: a page showing a message marks it seen, so no email would carry it after.
        for read in (
            talk_emails_due(game)
            + emails_due(game, phase, remind=True)
            + pages(game, phase, clients)
            + talk_pages(game, clients)
            + order_pages(game, phase, clients)
            + history
        ):
            assert secrets_shown(read) == [], (read.what, read.seat)
            own = [kind for kind in ("PROMPT", "LINE") if f"PLANTED-{kind}-{read.seat}" in read.content]
            own_seen.update(f"{kind}-{read.seat}" for kind in own)
            own_seen.update(
                f"PRIVATE-{w}" for w, pair in PRIVATE.items() if read.seat in pair and private_text(w) in read.content
            )
            scanned["email" if "email" in read.what else "page"] += 1
            talk_in_email = "email" in read.what and any(private_text(w) in read.content for w in PRIVATE)
            talk_seen.update([read.what.split(" email")[0]] if talk_in_email else [])
    print(
        f"\nsecrecy scan of {slug} with private messages present: {scanned['page']} pages, {scanned['email']} "
        f"emails; private messages emailed in {sorted(talk_seen)}"
    )
    # Each way of getting messages by email carried one to its reader: at once, the digest, a turn email.
    assert {"talk", "talk-digest"} <= talk_seen and talk_seen & {"turn-started", "reminder"}
    assert template_audit == []  # tests/support/template_audit.py: no model instance nor engine reached any template
    # The plants were there to be leaked: each seat read its own, and the state kept its secret.
    expected = {f"{kind}-{n}" for kind in ("PROMPT", "LINE") for n in range(PLAYERS)}
    assert own_seen == expected | {f"PRIVATE-{w}" for w in PRIVATE}
    assert looked_back == stopped and stopped[:2] == [1, 2]  # every phase stopped at, read again as history
    assert not [r.getMessage() for r in caplog.records if "PLANTED-PRIVATE" in r.getMessage()]
    game.refresh_from_db()
    assert game.state["planted"] == STATE_SECRET and game.status == "finished"
