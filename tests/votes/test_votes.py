"""Ending a game early (games/votes): a draw or a cancel by unanimous secret vote, and conceding a seat, each
taken the way a player takes it (the game page's forms, from a seat link), with the emails that go out and
what every other reader sees meanwhile. Bad input is refused with a clear message and changes nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.models import Event, Game, Order, OutboundEmail, Phase, Seat
from games.play import orders, sweep, turns
from games.votes import services
from games.votes.models import Ballot, Proposal, VoteEmail
from tests.support.phases import open_phase
from tests.support.votes import emails_to, page, player_at, post, said, seat_of, text_of

pytestmark = pytest.mark.django_db(transaction=True)


def snapshot(game: Game) -> tuple[object, ...]:
    """What a refused action must leave as it was."""
    game.refresh_from_db()
    return (
        game.status,
        game.event_count,
        list(Proposal.objects.filter(game=game).values_list("status", "reason")),
        list(Ballot.objects.filter(proposal__game=game).values_list("seat_number", "player_id", "yes")),
        list(Seat.objects.filter(game=game).values_list("player_id", "is_bot", "link_key")),
        VoteEmail.objects.filter(game=game).count(),
    )


def test_three_players_draw_by_vote_and_the_proposer_stays_secret(make_game):
    game = make_game(humans=3)
    phase = open_phase(game)
    one, two, three = (player_at(game, n) for n in range(3))
    # Seat 2 sealed an order for the turn in progress: a draw throws it away unread.
    engine = turns.engine_of(game)
    orders.submit_order(seat_of(game, 1), phase.number, engine.default_order(game.state, 1))
    mail.outbox.clear()

    assert "You proposed a draw" not in page(one, game)
    response = post(one, game, "propose", kind="draw")
    assert said(response) == ["Proposed: every other player is asked to vote. Nobody is told who proposed it."]
    assert "You proposed a draw" in response.content.decode()
    for other, address in ((two, "player2@example.com"), (three, "player3@example.com")):
        shown = page(other, game)
        assert "A player proposes a draw" in shown and "Player 1" not in shown.split('id="votes"')[1].split("</div>")[0]
        (opened,) = emails_to(address)
        assert "A player at" in opened.body and "Player 1" not in text_of(opened).replace("Player 1,", "")
    assert emails_to("player1@example.com") == []  # the proposer knows

    assert said(post(two, game, "vote", proposal=str(Proposal.objects.get().pk), vote="yes")) == [
        "Your vote is in: yes. Nobody else sees it."
    ]
    assert "Your vote: yes" in page(two, game) and "Your vote: yes" not in page(three, game)
    response = post(three, game, "vote", proposal=str(Proposal.objects.get().pk), vote="yes")
    assert said(response) == ["Every player agreed: the game ended in a draw."]

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert [row["rank"] for row in game.result] == [1, 1, 1]
    assert not Order.objects.filter(phase=phase).exists()
    assert Phase.objects.get(pk=phase.pk).status == Phase.Status.RESOLVED
    line = Event.objects.filter(game=game).order_by("-seq").first()
    assert line is not None and "agreed to a draw: Player 1, Player 2 and Player 3 share the win" in line.text
    for n in (1, 2, 3):
        (over,) = [m for m in emails_to(f"player{n}@example.com") if "The game is over" in m.body]
        assert "agreed to a draw" in over.body
    assert OutboundEmail.objects.filter(game=game, kind="game-over").count() == 3
    # The earlier turns still read: the turn that was not played shows as the board it was left at.
    history = one.get(reverse("games-history", args=[game.pk]) + f"?phase={phase.number}")
    assert history.status_code == 200
    # Once it is over, nothing more: a late vote is refused and changes nothing.
    before = snapshot(game)
    assert said(post(two, game, "vote", proposal=str(Proposal.objects.get().pk), vote="no")) == [services.GAME_OVER]
    assert snapshot(game) == before


def test_a_no_closes_the_vote_at_once_and_nobody_learns_who(make_game):
    game = make_game(humans=3)
    one, two, three = (player_at(game, n) for n in range(3))
    post(one, game, "propose", kind="cancel")
    proposal = Proposal.objects.get()
    post(two, game, "vote", proposal=str(proposal.pk), vote="yes")
    mail.outbox.clear()
    response = post(three, game, "vote", proposal=str(proposal.pk), vote="no")
    assert said(response) == ["The proposal failed. Nobody is told who voted how."]
    proposal.refresh_from_db()
    assert (proposal.status, proposal.reason) == (Proposal.Status.FAILED, Proposal.Reason.REFUSED)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    for n in (1, 2, 3):
        (failed,) = emails_to(f"player{n}@example.com")
        assert "a player voted no" in failed.body
        assert "Player 3" not in text_of(failed).replace("Player 3,", "") or n == 3
    # The same proposal waits for the next turn; the other kind may be proposed now.
    before = snapshot(game)
    refused = said(post(two, game, "propose", kind="cancel"))
    assert refused == ["A vote on cancelling the game failed in this turn: it may be proposed again from the next."]
    assert snapshot(game) == before
    sweep.run(now=open_phase(game).deadline + timedelta(seconds=1))
    assert said(post(two, game, "propose", kind="cancel"))[0].startswith("Proposed")


def test_a_missing_vote_at_the_deadline_is_a_no_and_a_phase_resolving_meanwhile_changes_nothing(make_game):
    game = make_game(humans=2, engine="phoenician")
    one = player_at(game, 0)
    post(one, game, "propose", kind="draw")
    proposal = Proposal.objects.get()
    sweep.run(now=open_phase(game).deadline + timedelta(seconds=1))  # a turn resolves: the vote stays open
    proposal.refresh_from_db()
    assert proposal.status == Proposal.Status.OPEN
    assert services.close_due(now=proposal.closes_at - timedelta(seconds=1)) == 0
    assert services.close_due(now=proposal.closes_at) == 1
    proposal.refresh_from_db()
    assert (proposal.status, proposal.reason) == (Proposal.Status.FAILED, Proposal.Reason.DEADLINE)


def test_a_cancelled_game_ends_without_a_result(make_game):
    game = make_game(humans=2, engine="phoenician")
    one, two = player_at(game, 0), player_at(game, 1)
    post(one, game, "propose", kind="cancel")
    post(two, game, "vote", proposal=str(Proposal.objects.get().pk), vote="yes")
    game.refresh_from_db()
    assert (game.status, game.result) == (Game.Status.FINISHED, [])
    over = [m for m in emails_to("player2@example.com") if "The game is over" in m.body]
    assert over and "ended without a result" in over[0].body and "agreed to cancel" in over[0].body


def test_bad_input_is_refused_with_a_message_and_changes_nothing(make_game, client):
    game, other = make_game(humans=3), make_game(humans=2, seed=99, engine="phoenician")
    one, two = player_at(game, 0), player_at(game, 1)
    post(one, game, "propose", kind="draw")
    post(player_at(other, 0), other, "propose", kind="draw")
    mine, theirs = Proposal.objects.get(game=game), Proposal.objects.get(game=other)
    before = snapshot(game)
    cases = [
        (two, "propose", {"kind": "surrender"}, "There is no such proposal"),
        (two, "propose", {"kind": "cancel"}, "A vote is open at this table already"),
        (two, "vote", {"proposal": str(mine.pk), "vote": "maybe"}, "Choose yes or no."),
        (two, "vote", {"proposal": "1; DROP", "vote": "yes"}, "There is no such vote at this table."),
        (two, "vote", {"proposal": str(theirs.pk), "vote": "yes"}, "There is no such vote at this table."),
        (one, "vote", {"proposal": str(mine.pk), "vote": "yes"}, "You have voted yes already."),
        (two, "concede", {}, "Tick the box"),
    ]
    for browser, action, data, message in cases:
        shown = said(post(browser, game, action, **data))
        assert len(shown) == 1 and shown[0].startswith(message), (action, data, shown)
        assert snapshot(game) == before, (action, data)
    # A yes twice: the second is refused.
    post(two, game, "vote", proposal=str(mine.pk), vote="yes")
    before = snapshot(game)
    assert said(post(two, game, "vote", proposal=str(mine.pk), vote="yes")) == [
        "You have voted yes already. Nothing was changed."
    ]
    assert snapshot(game) == before
    # Nobody who holds no seat here can act: a stranger, or an organiser signed in to the admin.
    staff = get_user_model().objects.create_user("organiser", "o@example.org", "pw", is_staff=True)
    organiser = Client()
    organiser.force_login(staff)
    for browser in (client, organiser):
        for action, data in (("vote", {"proposal": str(mine.pk), "vote": "no"}), ("propose", {"kind": "cancel"})):
            response = browser.post(reverse(f"votes-{action}", args=[game.pk]), data)
            assert response.status_code == 403 and b"not signed in as a player" in response.content
            assert snapshot(game) == before
    # A GET changes nothing (mail scanners follow links).
    assert one.get(reverse("votes-vote", args=[game.pk])).status_code == 405


def test_a_yes_may_become_a_no_and_a_vote_on_a_closed_proposal_is_refused(make_game):
    game = make_game(humans=3)
    one, two = player_at(game, 0), player_at(game, 1)
    post(one, game, "propose", kind="draw")
    proposal = Proposal.objects.get()
    post(two, game, "vote", proposal=str(proposal.pk), vote="yes")
    assert said(post(two, game, "vote", proposal=str(proposal.pk), vote="no"))[0].startswith("The proposal failed")
    before = snapshot(game)
    shown = said(post(player_at(game, 2), game, "vote", proposal=str(proposal.pk), vote="yes"))
    assert shown == ["This vote has closed (a player voted no): your vote was not counted."]
    assert snapshot(game) == before


def test_conceding_hands_the_seat_to_a_bot_and_the_last_player_cannot(make_game):
    game = make_game(humans=2, bots=1)
    one, two = player_at(game, 0), player_at(game, 1)
    old_key = seat_of(game, 1).link_key
    response = post(two, game, "concede", confirm="yes")
    assert said(response)[0].startswith("You have left this game")
    seat = seat_of(game, 1)
    assert (seat.player_id, seat.is_bot, seat.bot_plays_defaults) == (None, True, True)
    assert seat.link_key != old_key
    assert "Player 2 conceded" in Event.objects.filter(game=game).order_by("-seq")[0].text
    # The bot plays on: the game is not held up by the seat.
    assert Order.objects.filter(seat=seat, phase=open_phase(game)).exists() or not open_phase(game).prompt_for(1)
    before = snapshot(game)
    assert said(post(one, game, "concede", confirm="yes"))[0].startswith("You are the last player at this table")
    assert snapshot(game) == before
    # Alone, a cancel passes at once.
    assert said(post(one, game, "propose", kind="cancel")) == ["Every player agreed: the game is cancelled."]


def test_a_vote_open_when_the_game_ends_otherwise_is_void(make_game):
    game = make_game(humans=2, engine="phoenician")
    post(player_at(game, 0), game, "propose", kind="draw")
    from games.play.endings import finish_early

    assert finish_early(game.pk, [], "The organiser ended the game.", open_phase(game).opened_at)
    proposal = Proposal.objects.get()
    assert (proposal.status, proposal.reason) == (Proposal.Status.VOID, Proposal.Reason.GAME_OVER)
    assert not finish_early(game.pk, [], "again", proposal.opened_at)  # a game ends once


def test_a_replaced_voter_no_longer_counts_and_the_newcomer_may_vote(make_game):
    from games.play.organise import replace_player

    game = make_game(humans=3)
    one, two = player_at(game, 0), player_at(game, 1)
    post(one, game, "propose", kind="draw")
    proposal = Proposal.objects.get()
    post(two, game, "vote", proposal=str(proposal.pk), vote="yes")
    replace_player(seat_of(game, 1), "newcomer@example.com", "Newcomer")
    proposal.refresh_from_db()
    assert proposal.status == Proposal.Status.OPEN
    post(player_at(game, 2), game, "vote", proposal=str(proposal.pk), vote="yes")
    proposal.refresh_from_db()
    assert proposal.status == Proposal.Status.OPEN  # the newcomer has not voted yet
    post(player_at(game, 1), game, "vote", proposal=str(proposal.pk), vote="yes")
    proposal.refresh_from_db()
    assert proposal.status == Proposal.Status.PASSED


def test_the_links_land_on_their_section_and_the_vote_box(make_game):
    """The panel's and the vote email's link to how ending a game early works open the guide at that section
    (an id its heading carries), not at its top; the email's button opens the game page at the vote box."""
    game = make_game(humans=3, engine="genoa")
    guide = Client().get(reverse("games-rules", args=["genoa"])).content.decode()
    assert '<h2 id="ending-a-game-early">Ending a game early</h2>' in guide
    section = reverse("games-rules", args=["genoa"]) + "#ending-a-game-early"
    one, two = player_at(game, 0), player_at(game, 1)
    assert f'<a href="{section}">' in page(one, game)
    mail.outbox.clear()
    post(one, game, "propose", kind="draw")
    (opened,) = emails_to("player2@example.com")
    html = opened.alternatives[0][0]
    assert f"https://pbem.example{section}" in opened.body and f'href="https://pbem.example{section}"' in html
    button = re.search(r"Vote on the game page: (\S+)", opened.body)
    assert button is not None and button.group(1).endswith("/#votes") and f'href="{button.group(1)}"' in html
    landed = two.get(button.group(1).removeprefix("https://pbem.example").removesuffix("#votes"), follow=True)
    assert landed.redirect_chain[-1][0] == reverse("games-game", args=[game.pk])  # the browser keeps the #votes
    assert '<div class="card" id="votes">' in landed.content.decode()


def test_the_guide_has_the_rules_and_the_admin_shows_no_ballot(make_game, admin_client):
    guide = Client().get(reverse("games-rules", args=["piraeus"])).content.decode()
    assert "Ending a game early" in guide and "Secret ballot" in guide
    game = make_game(humans=2, engine="phoenician")
    post(player_at(game, 0), game, "propose", kind="draw")
    proposal = Proposal.objects.get()
    shown = admin_client.get(reverse("admin:votes_proposal_change", args=[proposal.pk])).content.decode()
    assert "a draw" in shown and "Player 1" not in shown and "player1@" not in shown
    assert admin_client.get("/admin/votes/ballot/").status_code == 404


def test_the_votes_log_lines_are_messages_each_reader_reads_in_their_language(make_game):
    """A proposal, a failed vote, a concession and a draw are logged as messages (Event.message), so the German
    reader reads them in German and the French in French; their English stays the stored text."""
    game = make_game(humans=3)
    one, two, three = (player_at(game, n) for n in range(3))
    post(one, game, "propose", kind="cancel")
    post(two, game, "vote", proposal=str(Proposal.objects.get().pk), vote="no")
    post(three, game, "concede", confirm="yes")
    sweep.run(now=open_phase(game).deadline + timedelta(seconds=1))
    post(one, game, "propose", kind="draw")
    post(two, game, "vote", proposal=str(Proposal.objects.get(status="open").pk), vote="yes")
    lines = [event for event in Event.objects.filter(game=game).order_by("seq") if event.data or "vote" in event.text]
    assert all(event.message for event in lines), [event.text for event in lines]
    english = [event.text for event in lines]
    assert "A player proposed cancelling the game: every player votes." in english
    assert "The vote on cancelling the game failed: a player voted no." in english
    assert "Player 3 conceded and left the game; someone else plays the seat from now on." in english
    with translation.override("de"):
        german = [event.words for event in lines]
    with translation.override("fr"):
        french = [event.words for event in lines]
    assert "Ein Spieler hat den Abbruch des Spiels vorgeschlagen: Alle stimmen ab." in german
    assert "Die Abstimmung über den Abbruch des Spiels ist gescheitert: ein Spieler hat mit Nein gestimmt." in german
    assert "Player 3 hat aufgegeben und das Spiel verlassen; ab jetzt spielt jemand anderes den Platz." in german
    assert any(
        line.startswith("Der Tisch hat sich auf ein Unentschieden geeinigt: Player 1 und Player 2") for line in german
    )
    assert "Le vote sur l’annulation de la partie a échoué\u00a0: un joueur a voté non." in french
