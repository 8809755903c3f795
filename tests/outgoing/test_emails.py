"""Email: one per kind, sent through anymail's test backend, with links that work and threading."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import Game, OutboundEmail, Player
from games.outgoing import emails
from games.play import orders, organise, sweep
from tests.support.phases import headline, open_phase

pytestmark = pytest.mark.django_db(transaction=True)


def link_in(message) -> str:
    found = re.search(r"https://pbem\.example(/l/[^\s\"<]+)", message.body)
    assert found, "no signed link in the email"
    return found.group(1)


def test_a_new_game_emails_each_player_their_turn(make_game):
    game = make_game(humans=3, bots=1)
    assert sorted(m.to[0] for m in mail.outbox) == [f"player{i}@example.com" for i in (1, 2, 3)]
    message = mail.outbox[0]
    phase = open_phase(game)
    assert message.subject.endswith(f" #{game.pk}") and phase.name in headline(message)
    assert phase.prompt_for(0)["text"] in message.body
    html, mimetype = message.alternatives[0]
    assert mimetype == "text/html" and "<table" in html and "<svg" not in html
    assert message.anymail_test_params["tags"] == ["turn-started"]
    assert OutboundEmail.objects.filter(status="sent").count() == 3


def test_the_email_link_signs_in_as_that_seat(client, make_game):
    make_game(humans=3)
    message = next(m for m in mail.outbox if m.to == ["player2@example.com"])
    response = client.get(link_in(message), follow=True)
    assert response.status_code == 200 and response.context["seat"].number == 1


def test_emails_of_one_game_thread_together(make_game):
    game = make_game(humans=3)
    firsts = {m.to[0]: m.extra_headers["Message-ID"] for m in mail.outbox}
    assert not [m for m in mail.outbox if "References" in m.extra_headers]  # each starts its reader's thread
    mail.outbox.clear()
    organise.resolve_now(game)
    organise.resolve_now(game)
    assert mail.outbox and all(
        m.extra_headers["References"] == m.extra_headers["In-Reply-To"] == firsts[m.to[0]] for m in mail.outbox
    )
    assert {m.subject for m in mail.outbox} == {f"{game.name} #{game.pk}"}
    message_ids = {m.extra_headers["Message-ID"] for m in mail.outbox}
    assert len(message_ids) == len(mail.outbox) and not message_ids & set(firsts.values())
    assert set(OutboundEmail.objects.filter(status="sent").values_list("message_id", flat=True)) >= message_ids


def next_email_in_tokyo(game: Game) -> Any:
    """The email seat 1's player, living in Tokyo, gets when the current phase resolves."""
    player = game.seats.get(number=0).player
    assert player is not None
    player.time_zone = "Asia/Tokyo"
    player.save()
    mail.outbox.clear()
    organise.resolve_now(game)
    return next(m for m in mail.outbox if m.to == [player.email])


def test_the_deadline_is_shown_in_the_players_time_zone(make_game):
    game = make_game(humans=3)
    message = next_email_in_tokyo(game)
    local = timezone.localtime(open_phase(game).deadline, timezone.get_fixed_timezone(9 * 60))
    assert local.strftime("%H:%M") in message.body and "Asia/Tokyo" in message.body


def test_the_subject_names_the_time_zone_of_its_deadline(make_game):
    assert headline(next_email_in_tokyo(make_game(humans=3))).endswith(" JST")


def test_the_plain_text_lists_choices_by_their_labels_not_their_keys(make_game, settings):
    settings.PBEM_REPLY_ADDRESS = ""
    make_game(humans=3)
    body = mail.outbox[0].body
    assert "- Buy goods\n" in body and "- Sell my own goods\n" in body
    assert "buyer:" not in body and "seller:" not in body


def test_a_turn_email_reports_what_happened_since_the_last_one(make_game):
    game = make_game(humans=3)
    mail.outbox.clear()
    organise.resolve_now(game)
    message = mail.outbox[0]
    assert "What happened since your last email" in message.body
    first_event = game.events.order_by("seq").first()
    assert first_event.text in message.body


def test_players_who_want_every_phase_hear_of_phases_they_were_not_asked_in(make_game):
    game = make_game(humans=3)
    Player.objects.update(notify=Player.Notify.ALL)
    phase = open_phase(game)
    for seat in game.seats.all():
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    after_planning = OutboundEmail.objects.filter(game=game).exclude(kind="turn-started", phase=phase)
    kinds = dict(after_planning.values_list("seat__number", "kind"))
    assert kinds == {0: "turn-started", 1: "phase-resolved", 2: "phase-resolved"}


def test_players_who_want_only_owed_turns_get_nothing_else(make_game):
    game = make_game(humans=3)
    Player.objects.exclude(email="player2@example.com").update(notify=Player.Notify.ALL)
    phase = open_phase(game)
    for seat in game.seats.all():
        orders.submit_order(seat, phase.number, {"role": "seller" if seat.number == 0 else "buyer"})
    assert not OutboundEmail.objects.filter(game=game, seat__number=1).exclude(phase=phase).exists()


def test_a_turn_email_for_a_phase_already_resolved_is_skipped(make_game, settings):
    game = make_game(humans=3)
    phase = open_phase(game)
    OutboundEmail.objects.filter(phase=phase).update(status="pending")
    organise.resolve_now(game)  # resolves, then sends what is pending: the old turn emails are stale
    assert set(OutboundEmail.objects.filter(phase=phase).values_list("status", flat=True)) == {"skipped"}


@pytest.mark.parametrize("humans", [3, 6])
def test_a_backlog_of_stale_turn_emails_is_marked_skipped_in_one_statement_whatever_its_size(make_game, humans):
    """After an outage the sender can find many turn emails of phases that resolved meanwhile: none is sent,
    all are marked skipped together, and the fresh ones still go out."""
    game = make_game(humans=humans, seed=humans)
    stale = open_phase(game)
    organise.resolve_now(game)
    # As if the sender had been down: the first phase's turn emails and the next phase's all wait.
    OutboundEmail.objects.filter(game=game).update(status="pending")
    mail.outbox.clear()
    fresh = OutboundEmail.objects.filter(game=game).exclude(phase=stale).count()
    assert fresh and OutboundEmail.objects.filter(phase=stale).count() == humans
    with CaptureQueriesContext(connection) as queries:
        assert emails.send_pending(game.pk) == fresh
    marks = [q["sql"] for q in queries.captured_queries if "'skipped'" in q["sql"]]
    assert len(marks) == 1
    assert set(OutboundEmail.objects.filter(phase=stale).values_list("status", flat=True)) == {"skipped"}
    assert len(mail.outbox) == fresh


def test_the_game_over_email_carries_the_final_scores(make_game):
    game = make_game(humans=1, bots=2)
    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        organise.resolve_now(game)
    over = [m for m in mail.outbox if m.anymail_test_params["tags"] == ["game-over"]]
    assert len(over) == 1
    assert "Final scores" in over[0].body and str(game.result[0]["score"]) in over[0].body


def test_a_failed_send_is_kept_and_retried(make_game, settings):
    settings.EMAIL_BACKEND = "tests.outgoing.test_emails.BrokenBackend"
    game = make_game(humans=3)
    assert set(OutboundEmail.objects.filter(game=game).values_list("status", flat=True)) == {"failed"}
    settings.EMAIL_BACKEND = "anymail.backends.test.EmailBackend"
    from games.outgoing import outbox

    assert outbox.retry_failed() == 3
    assert set(OutboundEmail.objects.filter(game=game).values_list("status", flat=True)) == {"sent"}


class BrokenBackend:
    def __init__(self, *args, **kwargs):
        pass

    def send_messages(self, messages):
        raise ConnectionError("provider down")

    def open(self):
        return True

    def close(self):
        return None


def test_reminders_name_the_deadline(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    mail.outbox.clear()
    sweep.run(now=phase.deadline - timedelta(hours=2))
    assert len(mail.outbox) == 3 and all("Reminder" in headline(m) for m in mail.outbox)


def sending_queries(game) -> tuple[int, int, int]:
    """(reads, other statements, statements recording a row sent) of sending a game's pending emails."""
    OutboundEmail.objects.filter(game=game).update(status="pending")
    with CaptureQueriesContext(connection) as queries:
        assert emails.send_pending(game.pk) == game.seats.count()
    statements = [q["sql"] for q in queries.captured_queries]
    reads = [sql for sql in statements if sql.startswith("SELECT")]
    records = [sql for sql in statements if sql.startswith("UPDATE") and "\"status\" = 'sent'" in sql]
    return len(reads), len(statements) - len(reads) - len(records), len(records)


def test_sending_a_phases_emails_reads_and_claims_the_same_for_three_or_six_players_and_records_each(make_game):
    """The reads are shared by the batch and its rows are claimed together; each email is recorded just after
    it went (so a worker killed mid-batch sends none twice), one small UPDATE each."""
    three, six = sending_queries(make_game(humans=3)), sending_queries(make_game(humans=6, seed=5))
    assert three[:2] == six[:2]
    assert (three[2], six[2]) == (3, 6)


@pytest.mark.parametrize("slug", ["genoa", "manila", "phoenician", "piraeus", "ports-of-call"])
def test_a_turn_email_says_how_to_reply_in_at_most_two_sentences_above_its_lines(make_game, settings, slug):
    """Where replies are taken, what the email says between its prompt and the reply lines is short: at most two
    sentences (the syntax's rules are the fields' help, beside them). Genoa's once read four."""
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    make_game(humans=2, bots=1, engine=slug)
    asked = [m for m in mail.outbox if "Or reply to this email" in str(m.body)]
    assert asked, [m.body[:200] for m in mail.outbox]
    for message in asked:
        above = str(message.body).split("Or reply to this email", 1)[1].split("\n    ", 1)[0]
        said = re.sub(r'"[^"]*"|\([^)]*\)', "", "Or reply to this email" + above)  # an example, an aside
        assert len(re.findall(r"[.:!?](?:\s|$)", said)) <= 2, above
        for html, _kind in message.alternatives:
            intro = html.split("Or reply to this email", 1)[1].split("<pre", 1)[0]
            assert len(re.findall(r"[.:!?](?:\s|<|$)", re.sub(r"\([^)]*\)", "", intro))) <= 2, intro
