"""Every turn email with replies on shows the lines to write, filled with an example from the engine
(`Engine.example_order`); copied into a reply as a player would, each example goes through the real reply
path (a Postmark inbound post to anymail's webhook, games/incoming/mail/inbound.py) and is stored as the very order it
shows, for every game at several points of a random game."""

from __future__ import annotations

import base64
import random

import pytest
from django.core import mail
from django.core.cache import cache
from django.utils import translation
from django.utils.translation import gettext

from games.engines import all_engines
from games.models import Order, OutboundEmail, Player, Seat
from games.outgoing import receipts
from games.outgoing.order_text import order_lines
from games.play import orders, turns
from tests.support.game_renders import emails_due
from tests.support.inbound import postmark_payload

HEADER = (
    "Or reply to this email with these lines above the quoted text, one field a line,\neach value changed to yours (as "
    "they stand they are a legal order now):"
)
WEBHOOK = "/anymail/postmark/inbound/"
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()
LAST_PHASE = 30  # enough for every kind of prompt of each game to come round at least once


@pytest.fixture(autouse=True)
def replies_on(settings, db):  # the cache is the database's
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}
    cache.clear()


def example_in(body: str) -> list[str]:
    """The example's lines as the text part shows them (indented under the invitation, in the active language)."""
    lines = body.splitlines()
    header = gettext(HEADER).splitlines()[0]
    start = next(i for i, line in enumerate(lines) if line.startswith(header)) + 2
    example = []
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        example.append(line.strip())
    return example


def reply(client, message, sender: str, lines: list[str], on_commit) -> str:
    """Reply to `message` with `lines` above its quoted text, as a mail client does; the receipt's text."""
    quoted = "\n".join(f"> {line}" for line in message.body.splitlines())
    text = "\n".join(lines) + f"\n\nOn Fri, 4 Dec 2026 at 10:00, pbem wrote:\n{quoted}\n"
    mail.outbox.clear()
    with on_commit():  # the test's transaction never commits: its wake-up calls are dropped, the test resolves
        response = client.post(
            WEBHOOK,
            postmark_payload(message.reply_to[0], text, sender=sender),
            content_type="application/json",
            HTTP_AUTHORIZATION=AUTH,
        )
    assert response.status_code == 200
    receipts.send_pending()  # what the sender woken after commit does
    (receipt,) = mail.outbox
    return str(receipt.body)


# Each game in English; the games whose orders are typed steps also with every player reading German or French: the
# example writes the steps in their words (issue 40 item 3) and the reply is read back as the same order.
@pytest.mark.parametrize(
    ("slug", "language"),
    [(engine.slug, "en") for engine in all_engines()]
    + [("genoa", "de"), ("genoa", "fr"), ("phoenician", "de"), ("ports-of-call", "fr")],
)
def test_the_example_in_every_turn_email_is_accepted_as_a_reply(
    slug, language, make_game, client, django_capture_on_commit_callbacks
):
    game = make_game(humans=3, engine=slug, seed=4242)
    Player.objects.update(language=language)
    engine = turns.engine_of(game)
    rng = random.Random(slug)
    kinds: set[str] = set()
    replied = 0
    while True:
        game.refresh_from_db()
        phase = turns.current_phase(game)
        if phase is None or phase.number > LAST_PHASE:
            break
        new_kinds = {prompt["kind"] for prompt in phase.prompts.values()} - kinds
        if phase.number <= 2 or new_kinds or phase.number % 9 == 0:
            kinds |= new_kinds
            emails_due(game, phase, remind=True)  # the turn emails due, and a reminder to the first seat owing
            asking = [m for m in mail.outbox if m.anymail_test_params["tags"][0] in ("turn-started", "reminder")]
            assert {m.to[0] for m in asking} == {f"player{n + 1}@example.com" for n in phase.owed_seats}
            for message in list(asking):
                seat = Seat.objects.select_related("player").get(game=game, player__email=message.to[0])
                example = engine.example_order(game.state, seat.number)
                with translation.override(language):
                    lines = example_in(message.body)
                    assert lines == order_lines(phase.prompt_for(seat.number), example), message.body
                    read_as = gettext("We read your reply as:\n%(lines)s").splitlines()[0]
                receipt = reply(client, message, seat.player.email, lines, django_capture_on_commit_callbacks)
                assert read_as in receipt, (lines, receipt)
                assert Order.objects.get(phase=phase, seat=seat).data == example, lines
                replied += 1
        else:
            OutboundEmail.objects.filter(game=game, status=OutboundEmail.Status.PENDING).update(
                status=OutboundEmail.Status.SKIPPED
            )
        for number in phase.owed_seats:
            seat = Seat.objects.get(game=game, number=number)
            if not Order.objects.filter(phase=phase, seat=seat).exists():
                orders.submit_order(seat, phase.number, engine.random_order(game.state, number, rng))
        # The resolution's wake-up call runs after commit, which a test's transaction never does.
        turns.resolve_phase(phase.pk)
    assert replied >= 8 and len(kinds) >= 2, (replied, kinds)


@pytest.mark.django_db(transaction=True)
def test_without_replies_a_turn_email_shows_no_example(make_game, settings):
    settings.PBEM_REPLY_ADDRESS = ""
    make_game(humans=3)
    assert all("Or reply to this email" not in m.body and "role: " not in m.body for m in mail.outbox)


def test_an_order_written_as_lines_has_each_field_once_in_the_prompts_order():
    prompt = {
        "fields": [
            {"name": "cards", "kind": "multichoice"},
            {"name": "route", "kind": "steps"},
            {"name": "bid", "kind": "integer"},
            {"name": "loans", "kind": "integer"},
            {"name": "role", "kind": "choice"},
        ]
    }
    order = {"role": "seller", "bid": 3, "loans": None, "cards": [], "route": "a; b\nc", "other": 1}
    assert order_lines(prompt, order) == ["cards: none", "route:", "a", "b", "c", "bid: 3", "role: seller"]
    assert order_lines(prompt, order, one_line=True) == ["cards: none", "route: a; b; c", "bid: 3", "role: seller"]
