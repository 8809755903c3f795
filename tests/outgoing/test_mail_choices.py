"""Fewer emails by default (issue 15) and the one-click unsubscribe (issue 16): what a new player is sent,
what an owed-order email carries, which emails can be declined and how."""

from __future__ import annotations

import base64
import html
import re
from io import StringIO
from typing import Any

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client

from games.leagues.models import Membership
from games.models import Event, Game, OutboundEmail, Player
from games.outgoing.links import unsubscribe_mailto
from games.play import orders, organise, turns
from tests.support.accounts import emailed_sign_in_link
from tests.support.emails import unsubscribe_targets
from tests.support.inbound import postmark_payload
from tests.support.leagues import make_league, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()


@pytest.fixture(autouse=True)
def replies_on(settings: Any) -> None:
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret"}


def kind_of(message: Any) -> str:
    return str(message.anymail_test_params["tags"][0])


def kinds_to(address: str) -> list[str]:
    return [kind_of(m) for m in mail.outbox if m.to == [address]]


def plan(game: Game) -> None:
    """Port of Piraeus's planning phase, every seat ordering: seat 1 sells, so only it is asked next."""
    phase = open_phase(game)
    for seat in game.seats.order_by("number"):
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})


def play_to_end(game: Game) -> None:
    """Every phase resolved at once with default orders, to the game's end."""
    for _ in range(500):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return
        assert organise.resolve_now(game), "the phase did not resolve"
    raise AssertionError("the game did not end in 500 phases")


def test_a_new_player_is_emailed_when_an_order_is_owed_and_at_the_end_only(make_game):
    game = make_game(humans=3)
    assert set(Player.objects.values_list("notify", flat=True)) == {"owed"}
    plan(game)
    # The phase asked only seat 1 next: the others, who chose nothing, hear nothing until they owe.
    assert not OutboundEmail.objects.filter(game=game, kind="phase-resolved").exists()
    play_to_end(game)
    for address in ("player2@example.com", "player3@example.com"):
        assert "phase-resolved" not in kinds_to(address)
        assert kinds_to(address)[-1] == "game-over"


def test_the_owed_order_email_carries_everything_since_the_last_email_sent(make_game):
    """Seat 3 is not emailed for the phases it is not asked in: its next turn email reports their lines too,
    from just after the last email it was sent."""
    game = make_game(humans=3)
    plan(game)
    third = game.seats.get(number=2)
    while True:
        game.refresh_from_db()
        phase = turns.current_phase(game)
        assert phase is not None, "the game ended before seat 3 was asked again"
        if phase.prompt_for(2) is not None and phase.number > 2:
            break
        assert organise.resolve_now(game)
    first, latest = OutboundEmail.objects.filter(seat=third, status="sent").order_by("pk")
    assert latest is not None and latest.kind == "turn-started" and latest.phase.number == phase.number
    assert OutboundEmail.objects.filter(seat=third).count() == 2  # the first turn's, and this one
    lines = Event.objects.filter(game=game, seq__gt=first.events_upto, seq__lte=latest.events_upto)
    seen = [e.text for e in lines if e.seat in (None, 2)]
    hidden = [e.text for e in lines if e.seat not in (None, 2)]
    phases = set(lines.values_list("phase_number", flat=True))
    assert len(phases) >= 2 and seen, "several phases went by without an email to seat 3"
    body = html.unescape(next(m for m in reversed(mail.outbox) if m.to == ["player3@example.com"]).body)
    assert all(text in body for text in seen[-40:])
    assert not any(text in body for text in hidden if text not in seen)


def test_every_phase_stays_a_choice_on_the_settings_page(client, make_game):
    game = make_game(humans=3)
    client.post(emailed_sign_in_link(client, "player2@example.com"))
    page = client.get("/me/")
    choices = dict(page.context["settings_form"].fields["notify"].choices)
    assert choices == {"owed": "only when I owe an order, and when a game ends", "all": "every phase"}
    client.post("/me/", {"name": "Bea", "time_zone": "UTC", "notify": "all"})
    assert Player.objects.get(email="player2@example.com").notify == "all"
    plan(game)
    assert kinds_to("player2@example.com")[-1] == "phase-resolved"  # she chose every phase
    assert "phase-resolved" not in kinds_to("player3@example.com")


def test_the_migration_changes_the_default_and_keeps_every_existing_choice(db):
    """Migration 0008 makes 'owed' the default for players created from then on and rewrites no row, so every
    existing player keeps the choice they had. What it runs on PostgreSQL is read as sqlmigrate prints it, not
    run: migrating every app back past games 0007 and forward again took over a minute of CI for the same fact."""
    out = StringIO()
    call_command("sqlmigrate", "games", "0008", stdout=out)
    statements = [line for line in out.getvalue().splitlines() if line.strip() and not line.startswith("--")]
    assert any('"mail_problem"' in line for line in statements)  # the SQL was read: the new columns are there
    touching_notify = [line for line in statements if "notify" in line.lower() or line.upper().startswith("UPDATE")]
    assert touching_notify == [], touching_notify  # no UPDATE, no column default: old rows keep their value
    old = Player.objects.create(email="old-all@example.com", notify="all")
    assert Player.objects.get(pk=old.pk).notify == "all"
    assert Player.objects.create(email="new@example.com").notify == "owed"


# --- One-click unsubscribe ---------------------------------------------------------------------------


def test_only_news_carries_the_one_click_unsubscribe(make_game):
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)
    plan(game)
    play_to_end(game)
    by_kind: dict[str, list[Any]] = {}
    for message in mail.outbox:
        by_kind.setdefault(message.anymail_test_params["tags"][0], []).append(message)
    assert set(by_kind) == {"turn-started", "phase-resolved", "game-over"}
    for message in by_kind["phase-resolved"]:
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        url, mailto = unsubscribe_targets(message)
        player = Player.objects.get(email=message.to[0])
        assert mailto == unsubscribe_mailto(player) and url.startswith("https://pbem.example/unsubscribe/")
    for kind in ("turn-started", "game-over"):  # they cannot be declined: they let the player play
        assert not any("List-Unsubscribe" in m.extra_headers for m in by_kind[kind])


def test_without_replies_the_header_has_the_url_only(make_game, settings):
    settings.PBEM_REPLY_ADDRESS = ""
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)
    plan(game)
    news = next(m for m in mail.outbox if m.anymail_test_params["tags"] == ["phase-resolved"])
    assert re.fullmatch(r"<https://pbem\.example/unsubscribe/[^>]+/>", news.extra_headers["List-Unsubscribe"])


def test_one_click_is_a_post_without_session_or_csrf_token_and_a_get_only_asks(make_game):
    league = make_league(players=4)
    ann = Player.objects.get(email="p1@example.com")
    started_round(league)
    news = next(m for m in mail.outbox if m.to == ["p1@example.com"] and "List-Unsubscribe" in m.extra_headers)
    Membership.objects.filter(player=ann).update(digest=True)  # chosen since
    url, _ = unsubscribe_targets(news)
    provider = Client(enforce_csrf_checks=True)  # a mailbox provider: no cookie, no token
    asked = provider.get(url)
    assert asked.status_code == 200 and b"Send me fewer emails" in asked.content
    assert Player.objects.get(pk=ann.pk).notify == "all"  # a GET (a mail scanner) changes nothing
    done = provider.post(url, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and b"only when you owe an order" in done.content
    assert Player.objects.get(pk=ann.pk).notify == "owed"
    membership = Membership.objects.get(player=ann)
    assert (membership.notify, membership.digest) == ("owed", False)
    # The other members chose nothing new.
    assert set(Player.objects.exclude(pk=ann.pk).values_list("notify", flat=True)) == {"all"}


def test_a_forged_unsubscribe_link_changes_nothing(client):
    player = Player.objects.create(email="ann@example.com", notify=Player.Notify.ALL)
    response = Client(enforce_csrf_checks=True).post("/unsubscribe/not-a-token/")
    assert response.status_code == 403 and b"not valid" in response.content
    assert Player.objects.get(pk=player.pk).notify == "all"


def test_an_unsubscribe_mail_to_the_mailto_address_works_through_the_inbound_webhook(make_game):
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)
    plan(game)
    news = next(m for m in mail.outbox if m.anymail_test_params["tags"] == ["phase-resolved"])
    _, mailto = unsubscribe_targets(news)
    payload = postmark_payload(mailto, "", sender="someone@elsewhere.example")  # what a mail client writes
    payload["Subject"] = "unsubscribe"
    before = len(mail.outbox)
    response = Client().post(
        "/anymail/postmark/inbound/", payload, content_type="application/json", HTTP_AUTHORIZATION=AUTH
    )
    assert response.status_code == 200
    assert Player.objects.get(email=news.to[0]).notify == "owed"
    assert len(mail.outbox) == before  # no receipt: it is an unsubscribe, not a reply
    # A mailto address with a wrong signature is nobody's.
    other = Player.objects.get(email="player3@example.com")
    forged = unsubscribe_mailto(other).replace("-", "-0", 1)[:-1]
    Client().post(
        "/anymail/postmark/inbound/",
        postmark_payload(forged, ""),
        content_type="application/json",
        HTTP_AUTHORIZATION=AUTH,
    )
    assert Player.objects.get(pk=other.pk).notify == "all"


def test_league_news_carries_it_and_what_keeps_a_member_in_play_does_not():
    league = make_league(players=4, standby=1)
    started_round(league)
    rounds = [m for m in mail.outbox if m.anymail_test_params["tags"] == ["round-started"]]
    assert rounds and all(m.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click" for m in rounds)
    turn = [m for m in mail.outbox if m.anymail_test_params["tags"] == ["turn-started"]]
    assert turn and not any("List-Unsubscribe" in m.extra_headers for m in turn)


def test_a_new_member_gets_no_league_news_but_every_owed_order():
    league = make_league(players=4, notify=Membership.Notify.OWED)
    Player.objects.update(notify=Player.Notify.OWED)
    started_round(league)
    assert not [m for m in mail.outbox if m.anymail_test_params["tags"] == ["round-started"]]
    assert [m for m in mail.outbox if m.anymail_test_params["tags"] == ["turn-started"]]
    assert Membership.objects.create(league=league, player=Player.objects.create(email="x@example.com")).notify == (
        "owed"
    )
