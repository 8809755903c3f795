"""What an email offers to its reader's mail client (its one-click unsubscribe targets), and one email of every
kind, as tests/outgoing/test_email_looks.py and tests/test_pseudo_locale.py read them."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from typing import Any

from django.core import mail

from games.engines import all_engines
from games.incoming.sessions import email_sign_in_link
from games.leagues import services as league_services
from games.lobby import emails as lobby_emails_module
from games.lobby import tables as lobby_tables
from games.models import Player
from games.play import addresses
from games.talk import services as talk
from games.votes import services as votes
from tests.support.game_renders import PLAYERS, emails_due, points
from tests.support.leagues import make_league
from tests.support.lobby import spec as lobby_spec


def unsubscribe_targets(message: Any) -> tuple[str, str]:
    header = message.extra_headers["List-Unsubscribe"]
    url = re.search(r"<(https://[^>]+)>", header)
    mailto = re.search(r"<mailto:([^>?]+)\?subject=unsubscribe>", header)
    assert url and mailto, header
    return url.group(1), mailto.group(1)


def kind_of(message: Any) -> str:
    return str(message.anymail_test_params.get("tags", ["?"])[0])


def game_emails(make_game: Any, on_commit: Any, skipped: Collection[str] = ()) -> Iterator[tuple[str, Any]]:
    """(what, message) for one email of every kind of every engine (but the `skipped` slugs), then table talk, a
    sign-in link, an address's confirmation, a league's sign-up, a vote's two emails and the lobby's three."""
    for engine in all_engines():
        if engine.slug in skipped:
            continue
        game = make_game(humans=PLAYERS, engine=engine.slug, seed=5)
        Player.objects.update(notify=Player.Notify.ALL)  # phase news too
        seen: set[str] = set()
        for stop, phase in enumerate(points(game, seed=f"looks:{engine.slug}")):
            emails_due(game, phase, remind=stop == 0)
            for message in mail.outbox:
                if kind_of(message) not in seen:
                    seen.add(kind_of(message))
                    yield f"{engine.slug} {kind_of(message)}", message
        assert {"turn-started", "reminder", "deadline-moved", "phase-resolved", "game-over"} <= seen, seen
    game = make_game(humans=PLAYERS, engine="piraeus", seed=5)
    mail.outbox.clear()
    seat = game.seats.select_related("player").get(number=0)
    with on_commit(execute=True):  # their emails go out after the commit, which a test's transaction never does
        talk.post(seat, seat.player, "Shall we trade Furs for Spices tomorrow?", to=[1])
        email_sign_in_link(seat.player.email)
        addresses.ask_to_change(seat.player, "moved@example.com")  # the new address's confirmation
        league_services.request_signup(make_league(players=0), "new@example.com", "Newcomer", "UTC")
    yield from ((kind_of(message), message) for message in mail.outbox)
    # A vote to end the game (games/votes): the vote's email to the others, then its failure to the table.
    mail.outbox.clear()
    first, second = (game.seats.get(number=n) for n in (0, 1))
    with on_commit(execute=True):
        proposed = votes.propose(first.pk, first.player_id or 0, "draw")
    with on_commit(execute=True):
        votes.vote(second.pk, second.player_id or 0, proposed.proposal_id, yes=False)
    yield from ((kind_of(message), message) for message in mail.outbox if kind_of(message).startswith("vote-"))
    yield from lobby_emails(seat.player, on_commit)


def lobby_emails(host: Player, on_commit: Any) -> Iterator[tuple[str, Any]]:
    """The lobby's kinds (games/lobby/emails.py): an invitation, a table's start for a seat not asked first,
    a cancelled table."""
    mail.outbox.clear()
    with on_commit(execute=True):
        table = lobby_tables.create_table(host, lobby_spec(engine="piraeus", size=4), ["friend@example.com"])
    with on_commit(execute=True):  # (an invitation withdrawn before it is sent is not sent)
        lobby_emails_module.queue(table, lobby_emails_module.STARTED, host, game_id=1)
        lobby_tables.cancel(table.pk, host)
    kinds = [kind_of(message) for message in mail.outbox]
    assert kinds == ["lobby-invitation", "lobby-started", "lobby-cancelled"], kinds
    yield from ((kind_of(message), message) for message in mail.outbox)
