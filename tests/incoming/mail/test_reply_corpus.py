"""Issue 27: replies as mail clients write them, from outside our own code. tests/incoming/mail/replies/ holds
one MIME file per
client and language (Gmail on the web and on Android, Outlook for Windows as HTML with its text, as HTML alone
and as plain text, Outlook on the web and on phones, Apple Mail, Mail on iOS, Thunderbird flowed, fixed and
HTML, hard-wrapped plain text, forwards, automatic replies; since issue 37 Windows Mail in Russian, Turkish and
Ukrainian, Apple Mail's photo between two text parts, attributions known by their shape, the turn email's <pre>
kept, a value of steps one a line), written from the clients' documented formats;
tests/incoming/mail/replies/expected.toml says what each must come to. The placeholders ({{REPLY_TO}}, {{SUBJECT}},
{{FROM_NAME}}, {{FROM_ADDRESS}}, {{MESSAGE_ID}}) become the live turn email's before it is posted.

Each reply goes through the real path, as Postmark posts it with its raw MIME (format=flowed survives), and
must store exactly the order meant, or be refused with the receipt named, or (automatic) change nothing and be
answered never. The lines read as the player's own must be exactly those the file says."""

from __future__ import annotations

import base64
import json
import tomllib
from dataclasses import dataclass
from email import message_from_bytes
from email.policy import SMTP
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import pytest
from anymail.inbound import AnymailInboundMessage
from django.core import mail
from django.core.cache import cache

from games.engines import get_engine
from games.incoming.mail import inbound, replies
from games.models import Game, Order, OutboundEmail
from games.play import orders
from tests.support import reply_samples
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
FOLDER = Path(__file__).parent / "replies"
EXPECTED: dict[str, dict[str, Any]] = tomllib.loads((FOLDER / "expected.toml").read_text())
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    cache.clear()


@dataclass(frozen=True)
class Turn:
    game: Game
    seat: int
    values: dict[str, str]  # the placeholders' values: the turn email being answered


def turn_of(game: Game, address: str = "player1@example.com") -> Turn:
    sent: list[Any] = [m for m in mail.outbox if m.to == [address] and m.reply_to]
    message = sent[-1]
    name, sender = parseaddr(message.from_email)
    values = {
        "REPLY_TO": message.reply_to[0],
        "SUBJECT": str(message.subject),
        "FROM_NAME": name,
        "FROM_ADDRESS": sender,
        "MESSAGE_ID": message.extra_headers["Message-ID"],
    }
    return Turn(game, 0, values)


def piraeus(make_game) -> Turn:
    return turn_of(make_game(humans=3, title="Harbour League table 4"))


def ports_of_call(make_game) -> Turn:
    """The first turn of actions of a Ports of Call game against a bot: the player's alone."""
    game = make_game(humans=1, bots=1, engine="ports-of-call", title="Harbour League table 9")
    engine = get_engine("ports-of-call")
    orders.submit_order(game.seats.get(number=0), open_phase(game).number, engine.example_order(game.state, 0))
    assert list(open_phase(game).prompts) == ["0"]
    return turn_of(game)


def reply_for(path: str, turn: Turn) -> Any:
    raw = (FOLDER / path).read_bytes().decode()
    for name, value in turn.values.items():
        raw = raw.replace("{{" + name + "}}", value)
    return message_from_bytes(raw.encode(), policy=SMTP)


def what_became_of(client, path: str, turn: Turn) -> list[str]:
    """Post the reply; how what happened differs from what the file expects (empty: as expected)."""
    expected = EXPECTED[path]
    phase = open_phase(turn.game)
    Order.objects.filter(phase=phase).delete()
    mail.outbox.clear()
    url, fields, _ = reply_samples.postmark(reply_for(path, turn), raw=True)
    response = client.post(url, json.dumps(fields), content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    if response.status_code != 200:
        return [f"answered {response.status_code}"]
    stored = [order.data for order in Order.objects.filter(phase=phase)]
    sent: list[Any] = list(mail.outbox)  # anymail's test backend adds its parameters to Django's message
    outcome = expected["outcome"]
    if outcome == "automatic":
        return [f"stored {stored}"] * bool(stored) + [f"answered {len(sent)}"] * bool(sent)
    # The receipt (a stored order that resolves the turn brings the next turn's email too).
    told = [m.body for m in sent if m.anymail_test_params["tags"] == ["receipt"]]
    if isinstance(outcome, dict):
        meant = get_engine(turn.game.engine).validate(turn.game.state, turn.seat, outcome)
        wrong = [] if stored == [meant] else [f"stored {stored}, meant {meant}"]
        words = "We read your reply as:"
    else:
        wrong = [f"stored {stored}"] * bool(stored)
        words = "No order found" if outcome == "no order" else outcome.removeprefix("refused: ")
    if len(told) != 1 or words not in told[0]:
        wrong.append(f"receipt {[body.splitlines()[:2] for body in told]}, expected {words!r}")
    return wrong


GAMES = {"piraeus": piraeus, "ports-of-call": ports_of_call}


@pytest.mark.parametrize("game", list(GAMES))
def test_every_reply_in_the_corpus_comes_to_what_its_writer_meant(client, make_game, game, capsys):
    paths = [path for path, case in EXPECTED.items() if case.get("game", "piraeus") == game]
    outcomes = {}
    turn = GAMES[game](make_game)
    for path in paths:
        if game != "piraeus":  # a stored order resolves the player's turn: each reply gets a fresh game
            turn = GAMES[game](make_game)
        outcomes[path] = what_became_of(client, path, turn)
    with capsys.disabled():
        right = sum(not wrong for wrong in outcomes.values())
        print(f"\n  reply corpus, {game}: {right} of {len(outcomes)} come to what was meant", end="")
    assert {path: wrong for path, wrong in outcomes.items() if wrong} == {}
    assert len(paths) >= (50 if game == "piraeus" else 6)


def test_the_lines_read_as_the_players_own_are_exactly_those_they_wrote(make_game):
    """Where the reply's own text ends, for every file that says: the quote, its header block or attribution, a
    "-- " signature, in each client's language; the text part unless a field line in it may have been broken and
    there is HTML. Checked apart from the order, which a quote read by mistake does not always change."""
    wrong = {}
    for game, turn in [("piraeus", piraeus(make_game)), ("ports-of-call", ports_of_call(make_game))]:
        row = OutboundEmail.objects.filter(game=turn.game, seat__number=0).order_by("pk").last()
        assert row is not None
        prompt = open_phase(turn.game).prompt_for(0)
        for path, case in EXPECTED.items():
            if case.get("game", "piraeus") != game or "written" not in case:
                continue
            message = AnymailInboundMessage.parse_raw_mime_bytes(reply_for(path, turn).as_bytes())
            lines = list(replies.read_order(prompt, replies.texts(message), inbound.ours(row)).lines)
            if lines != case["written"]:
                wrong[path] = lines
    assert wrong == {}
