"""Threads as mail clients show them: for each reader, a game's emails are one thread both in a client that
threads by References (RFC 5322: a message joins the thread of every Message-ID it references) and in one
that threads by subject (Gmail's way: the subject without its Re:/Fwd:), over a seeded game of every engine;
league news is one thread per league and season, a deadline moved joins its game's thread, and the daily
digests are one thread. Every message says it is automatic and has its Message-ID at the site's domain."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from typing import Any

import pytest
from django.core import mail as outbox

from games.engines import all_engines
from games.leagues import services, substitutes
from games.leagues.models import LeagueEmail, Membership
from games.leagues.tasks import send_digests_task, sweep_leagues
from games.models import Game, OutboundEmail, Seat
from games.outgoing import emails
from games.play import orders, turns
from tests.support.accounts import emailed_sign_in_link
from tests.support.leagues import autopilot, first_game, make_league, play_phase, started_round

MESSAGE_ID = re.compile(r"<[^<>\s]+>")
SITE_ID = re.compile(r"<[^<>\s@]+@pbem\.example>")  # tests' SITE_URL is https://pbem.example
# What a client that threads by subject takes off before comparing: any chain of Re:/RE:/Aw:/Fwd: prefixes.
REPLY_PREFIXES = re.compile(r"^\s*(?:(?:re|aw|fwd?)\s*(?:\[\d+\])?\s*:\s*)+", re.IGNORECASE)
# What each reader's threads were, per case: printed with -s, for the notes.
FIGURES: dict[str, str] = {}


def sent() -> list[Any]:
    return list(outbox.outbox)  # anymail's test backend keeps Django's messages, with its parameters


def threads_by_references(messages: list[Any]) -> int:
    """Threads a client that follows Message-ID, References and In-Reply-To shows: messages that reference one
    another, directly or through others, are one thread."""
    parent: dict[str, str] = {}

    def find(node: str) -> str:
        while parent.setdefault(node, node) != node:
            node = parent[node]
        return node

    for message in messages:
        own = message.extra_headers["Message-ID"]
        linked = MESSAGE_ID.findall(
            message.extra_headers.get("References", "") + message.extra_headers.get("In-Reply-To", "")
        )
        for other in linked:
            parent[find(other)] = find(own)
    return len({find(message.extra_headers["Message-ID"]) for message in messages})


def threads_by_subject(messages: list[Any]) -> int:
    return len({" ".join(REPLY_PREFIXES.sub("", message.subject).split()).lower() for message in messages})


def per_reader(messages: list[Any]) -> dict[str, list[Any]]:
    readers: dict[str, list[Any]] = defaultdict(list)
    for message in messages:
        readers[message.to[0]].append(message)
    return readers


def assert_headers_of_every_message(messages: list[Any]) -> None:
    for message in messages:
        assert SITE_ID.fullmatch(message.extra_headers["Message-ID"]), message.extra_headers
        assert message.extra_headers["Auto-Submitted"] == "auto-generated"


def play_to_the_end(game: Game, seed: str) -> None:
    """Random legal orders for every owed seat, phase after phase, sending each phase's emails as the worker
    would after commit; a reminder in the first phase too."""
    engine = turns.engine_of(game)
    rng = random.Random(seed)
    first = True
    while (phase := turns.current_phase(game)) is not None:
        if first:
            seat = Seat.objects.select_related("player").get(game=game, number=phase.owed_seats[0])
            assert seat.player is not None
            OutboundEmail.objects.create(
                game=game, phase=phase, seat=seat, kind="reminder", to=seat.player.email, events_upto=game.event_count
            )
            first = False
        emails.send_pending(game.pk)
        for number in phase.owed_seats:
            seat = Seat.objects.get(game=game, number=number)
            orders.submit_order(seat, phase.number, engine.random_order(game.state, number, rng))
        turns.resolve_phase(phase.pk)
        game.refresh_from_db()
    emails.send_pending(game.pk)


@pytest.mark.parametrize("slug", [engine.slug for engine in all_engines()])
def test_each_readers_emails_of_a_game_are_one_thread_in_either_kind_of_client(slug, make_game):
    game = make_game(humans=3, engine=slug, seed=31)
    play_to_the_end(game, seed=f"threads:{slug}")
    messages = sent()
    assert_headers_of_every_message(messages)
    readers = per_reader(messages)
    assert len(readers) == 3 and {len(m) for m in readers.values()} != {1}
    kinds = {message.tags[0] for message in messages}
    assert {"turn-started", "reminder", "game-over"} <= kinds
    for reader, theirs in readers.items():
        assert (threads_by_references(theirs), threads_by_subject(theirs)) == (1, 1), reader
    # The first email a reader got starts the thread; each later one points at it.
    for theirs in readers.values():
        root = theirs[0].extra_headers["Message-ID"]
        assert "References" not in theirs[0].extra_headers
        assert all(m.extra_headers["References"] == m.extra_headers["In-Reply-To"] == root for m in theirs[1:])
    FIGURES[slug] = (
        f"{len(messages)} emails ({', '.join(sorted(kinds))}) to 3 readers: "
        f"{max(len(m) for m in readers.values())} at most to one; threads per reader 1 (References), 1 (subject)"
    )


def thread_of(message: Any) -> str:
    """Which thread a message belongs in, from what the server stored for it (not from its headers)."""
    local = message.extra_headers["Message-ID"][1:].split("@")[0]
    kind, _, number = local.removeprefix("pbem.").partition(".")
    if kind == "league":  # news of a game joins its thread; any other stands alone
        return LeagueEmail.objects.get(pk=int(number)).thread.replace("game.", "game ") or f"league email {number}"
    if kind == "digest":
        return "digest"
    return f"game {kind}"  # a game email: pbem.<game>.<row>


@pytest.mark.django_db(transaction=True)
def test_league_news_stands_alone_under_a_subject_naming_it_and_a_moved_deadline_joins_its_game():
    league = make_league(players=8, standby=1, substitute_after=2)
    Membership.objects.filter(league=league, player__email="p2@example.com").update(digest=True)
    services.request_signup(league, "new@example.com", "New", "UTC", standby=True)
    round_ = started_round(league)
    game = first_game(round_)
    absent = 1
    for _ in range(3):  # a missed deadline: grace, then the seat goes to the standby player
        play_phase(game, absent=[absent])
    substitutes.expire_offers()
    for each in services.round_games(round_):
        each.refresh_from_db()
        if each.status != Game.Status.FINISHED:
            autopilot(each)
    sweep_leagues.delay().get()
    send_digests_task.delay().get()
    messages = sent()
    assert_headers_of_every_message(messages)
    kinds = {message.tags[0] for message in messages}
    assert {"round-started", "deadline-moved", "member-inactive", "substitute-offer", "standings", "digest"} <= kinds
    figures = []
    for reader, theirs in sorted(per_reader(messages).items()):
        expected = len({thread_of(message) for message in theirs})
        assert threads_by_references(theirs) == threads_by_subject(theirs) == expected, reader
        threads = ", ".join(sorted({thread_of(m) for m in theirs}))
        figures.append(f"{reader}: {len(theirs)} emails in {expected} threads ({threads})")
    assert any("league email" in line and "game" in line for line in figures)
    FIGURES["league"] = "; ".join(figures)


@pytest.mark.django_db(transaction=True)  # it is sent after commit
def test_the_sign_in_email_stands_alone_with_its_id_at_the_site(client):
    turns.player_for("player1@example.com")
    emailed_sign_in_link(client)
    [message] = sent()
    assert_headers_of_every_message([message])
    assert "References" not in message.extra_headers and "sign-in" in message.subject


@pytest.fixture(scope="module", autouse=True)
def _print_figures() -> Any:
    yield
    for case, figure in FIGURES.items():
        print(f"\n{case}: {figure}")
