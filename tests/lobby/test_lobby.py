"""Players start their own games (games/lobby): a table proposed with invitations, answered from the emails'
links, started by the ready check or cancelled at its start time; the limits on who may be invited and how
often; bad and forged links; a rematch. Run through the pages a person uses, with tasks inline."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core import mail, signing
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.lobby import invitations, links, ready, tables
from games.lobby.forms import LOCAL_FORMAT
from games.lobby.limits import LobbyError
from games.lobby.models import Block, Invitation, Table, TableSeat
from games.models import Game, Phase, Player, Seat
from tests.support.accounts import sign_in_by_email
from tests.support.lobby import creator, invitation_links, propose, spec

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_table_with_two_invitations_starts_when_both_accept_from_their_emails(client):
    host = creator()
    table = propose(host, ["ann@example.com", "bob@example.com"])
    assert not Game.objects.exists() and table.status == Table.Status.OPEN
    assert not Player.objects.filter(email__in=["ann@example.com", "bob@example.com"]).exists()  # nothing stored
    for address, name in (("ann@example.com", "Ann"), ("bob@example.com", "Bob")):
        join, _ = invitation_links(address)
        other = client_class_of(client)
        assert other.get(join).status_code == 302
        page = other.get(reverse("lobby-table", args=[table.key]))
        assert b"You are invited" in page.content
        assert other.post(reverse("lobby-accept", args=[table.key]), {"name": name}).status_code == 302
    table.refresh_from_db()
    assert table.status == Table.Status.STARTED and table.game is not None
    game = table.game
    assert sorted(s.player.name for s in Seat.objects.filter(game=game).select_related("player")) == [
        "Ann",
        "Bob",
        "Host",
    ]
    assert Phase.objects.filter(game=game, status=Phase.Status.OPEN).count() == 1
    turn_emails = [m for m in mail.outbox if m.anymail_test_params["tags"] == ["turn-started"]]
    assert {m.to[0] for m in turn_emails} <= {"ann@example.com", "bob@example.com", "host@example.com"}
    assert turn_emails, "the first turn's emails went out"
    assert Invitation.objects.filter(answer=Invitation.Answer.ACCEPTED).count() == 2
    # Those the first turn asks nothing are told it started, with their seat's link and the guide.
    started = [m for m in mail.outbox if m.anymail_test_params["tags"] == ["lobby-started"]]
    assert started and {m.to[0] for m in started}.isdisjoint({m.to[0] for m in turn_emails})
    for message in started:
        html = message.alternatives[0][0]
        seat_link = re.search(r"https://pbem\.example(/l/\S+/)", str(message.body))
        assert seat_link and f'href="https://pbem.example{seat_link.group(1)}"' in html
        guide = "https://pbem.example" + reverse("games-rules", args=["genoa"])
        assert guide in str(message.body) and f'href="{guide}"' in html
        reader = client_class_of(client)
        reader.get(seat_link.group(1))
        assert b"You are watching" not in reader.get(reverse("games-game", args=[game.pk])).content


def client_class_of(client):
    """A fresh browser: another person's."""
    return type(client)()


def test_an_invitation_email_is_its_own_kind_with_a_one_click_decline():
    host = creator()
    propose(host, ["ann@example.com"])
    message = next(m for m in mail.outbox if m.to == ["ann@example.com"])
    assert message.anymail_test_params["tags"] == ["lobby-invitation"]
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    _, decline = invitation_links("ann@example.com")
    header = message.extra_headers["List-Unsubscribe"]
    assert header.startswith("<https://pbem.example/lobby/decline/") and header.endswith("/>")
    token_of = lambda path: path.rstrip("/>").rsplit("/", 1)[1]  # noqa: E731
    assert links.read(token_of(header)) == links.read(token_of(decline)) == Invitation.objects.get()
    assert "ann@example.com" not in message.body.replace("To: ann@example.com", "")  # no address of others
    assert "host@example.com" not in message.body


def test_the_one_click_decline_needs_no_session_and_blocks_the_inviter(client):
    host = creator()
    table = propose(host, ["ann@example.com"])
    _, decline = invitation_links("ann@example.com")
    assert client.get(decline).status_code == 200  # a scanner's GET declines nothing
    assert Invitation.objects.get().answer == Invitation.Answer.PENDING
    response = client.post(decline, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert Invitation.objects.get().answer == Invitation.Answer.DECLINED
    assert table.seats.get(number=1).state == TableSeat.State.OPEN
    assert client.post(decline).status_code == 200  # again: the same answer, nothing else
    with pytest.raises(LobbyError, match="declined an invitation of yours"):
        invitations.invite_more(table.pk, host, "ann@example.com")
    # Another player may still invite the address (it declined this inviter only).
    other = creator("other@example.com", "Other")
    propose(other, ["ann@example.com"])
    assert Invitation.objects.filter(inviter=other).count() == 1


def test_forged_expired_and_answered_links_change_nothing(client):
    host = creator()
    table = propose(host, ["ann@example.com"])
    join, _ = invitation_links("ann@example.com")
    invitation = Invitation.objects.get()
    forged = signing.dumps({"i": invitation.pk, "k": "not-the-key"}, salt="pbem.lobby-invitation")
    for path in (reverse("lobby-join-link", args=[forged]), "/lobby/i/garbage/", reverse("lobby-decline", args=["x"])):
        response = client.post(path) if "decline" in path else client.get(path)
        assert response.status_code == 403
    assert client.post(reverse("lobby-accept", args=[table.key])).status_code == 302  # no grant: refused
    assert Invitation.objects.get().answer == Invitation.Answer.PENDING
    client.get(join)
    client.post(reverse("lobby-accept", args=[table.key]), {"name": "Ann"})
    assert client.post(reverse("lobby-accept", args=[table.key]), {"name": "Again"}).status_code == 302
    assert Player.objects.get(email="ann@example.com").name == "Ann"  # the double accept changed nothing
    with pytest.raises(LobbyError, match="accepted this invitation already"):
        invitations.accept(invitation.pk, None, "")


def test_the_daily_cap_on_invitations_has_a_clear_message(settings):
    settings.PBEM_LOBBY_INVITES_PER_DAY = 3
    host = creator()
    propose(host, ["a@example.com", "b@example.com"], size=5)
    with pytest.raises(LobbyError, match="a player may send 3 a day"):
        propose(host, ["c@example.com", "d@example.com"], size=5)
    assert Table.objects.count() == 1 and Invitation.objects.count() == 2  # the refusal stored nothing
    propose(host, ["c@example.com"], size=5)
    assert Invitation.objects.count() == 3


def test_an_address_gets_few_invitations_a_day_from_everyone_together(settings):
    settings.PBEM_LOBBY_INVITES_PER_ADDRESS = 2
    for n in range(2):
        propose(creator(f"host{n}@example.com"), ["target@example.com"])
    with pytest.raises(LobbyError, match="the most an address may get"):
        propose(creator("host9@example.com"), ["target@example.com"])


def test_a_bounced_invitation_opens_its_seat_and_the_inviter_cannot_write_again():
    host = creator()
    table = propose(host, ["dead@example.com"])
    assert invitations.bounced("dead@example.com", Player.MailProblem.BOUNCED) == 1
    assert table.seats.get(number=1).state == TableSeat.State.OPEN
    assert Block.objects.get().reason == Block.Reason.BOUNCED
    with pytest.raises(LobbyError, match="bounced or was marked as spam"):
        invitations.invite_more(table.pk, host, "dead@example.com")


def test_an_open_seat_is_joined_by_a_signed_in_player_and_the_last_seat_starts_the_game(client):
    host = creator()
    table = propose(host, [], size=2)
    creator("p@example.com", "Pat")
    assert client.post(reverse("lobby-join", args=[table.key])).status_code == 403  # not signed in
    sign_in_by_email(client, "p@example.com")
    assert table.key.encode() in client.get(reverse("lobby-open")).content
    client.post(reverse("lobby-join", args=[table.key]))
    table.refresh_from_db()
    assert table.status == Table.Status.STARTED
    response = client.post(reverse("lobby-join", args=[table.key]), follow=True)
    assert b"no longer waiting for players" in response.content


def test_a_private_table_is_not_listed_but_its_link_works(client):
    table = propose(creator(), [], size=3, private=True)
    assert table.key.encode() not in client.get(reverse("lobby-open")).content
    assert client.get(reverse("lobby-table", args=[table.key])).status_code == 200


def test_the_start_time_starts_with_whoever_accepted_if_enough(client):
    host = creator()
    table = propose(host, ["ann@example.com", "bob@example.com"], size=3, engine="genoa")  # Genoa: 2 to 5
    join, _ = invitation_links("ann@example.com")
    client.get(join)
    client.post(reverse("lobby-accept", args=[table.key]), {"name": "Ann"})
    assert ready.settle_due(timezone.now()) == 0
    assert ready.settle_due(timezone.now() + timedelta(days=3)) == 1
    table.refresh_from_db()
    assert table.status == Table.Status.STARTED and table.game is not None
    assert Seat.objects.filter(game=table.game).count() == 2  # bob's empty seat is left out: no missed turns
    assert Invitation.objects.get(address="bob@example.com").answer == Invitation.Answer.WITHDRAWN


def test_the_start_time_cancels_a_table_short_of_players_and_tells_everyone():
    host = creator()
    table = propose(host, ["ann@example.com", "bob@example.com"], size=3, engine="piraeus")  # Piraeus: 3 to 6
    invitations.accept(Invitation.objects.get(address="ann@example.com").pk, None, "Ann")
    mail.outbox.clear()
    ready.settle_due(timezone.now() + timedelta(days=3))
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED and not Game.objects.exists()
    told = sorted(m.to[0] for m in mail.outbox)
    assert told == ["ann@example.com", "bob@example.com", "host@example.com"]
    assert all(m.anymail_test_params["tags"] == ["lobby-cancelled"] for m in mail.outbox)


def test_empty_seats_become_bots_at_the_start_time_if_allowed():
    host = creator()
    table = propose(host, ["ann@example.com"], size=4, engine="piraeus", bots_fill=True)
    invitations.accept(Invitation.objects.get().pk, None, "Ann")
    ready.settle_due(timezone.now() + timedelta(days=3))
    table.refresh_from_db()
    assert table.game is not None
    assert sorted(s.is_bot for s in Seat.objects.filter(game=table.game)) == [False, False, True, True]


def test_creator_and_bots_only_start_at_once():
    table = propose(creator(), [], size=3, bots=2)
    table.refresh_from_db()
    assert table.status == Table.Status.STARTED
    assert list(Seat.objects.filter(game=table.game, is_bot=True).values_list("bot_level", flat=True)) == [
        "strong",
        "strong",
    ]  # the default: bots that play to win


def test_a_table_of_easy_bots_for_a_first_game():
    table = propose(creator(), [], size=3, bots=2, bot_level="easy")
    table.refresh_from_db()
    assert table.bot_level == "easy"
    assert set(Seat.objects.filter(game=table.game, is_bot=True).values_list("bot_level", flat=True)) == {"easy"}


def test_each_bot_seat_at_its_own_level_and_the_seats_bots_fill_at_the_tables():
    host = creator()
    table = propose(host, ["ann@example.com"], size=5, engine="piraeus", bots=2, bot_levels=("easy", "random"))
    assert [s.bot_level for s in table.seats.order_by("number")] == ["", "", "easy", "random", ""]
    table.bots_fill = True
    table.save(update_fields=["bots_fill"])
    invitations.accept(Invitation.objects.get().pk, None, "Ann")
    ready.settle_due(timezone.now() + timedelta(days=3))
    table.refresh_from_db()
    levels = Seat.objects.filter(game=table.game, is_bot=True).values_list("bot_level", flat=True)
    assert sorted(levels) == ["easy", "random", "strong"]  # the seat a bot filled: the table's level


def test_the_lobby_page_takes_a_level_for_each_bot_seat_and_refuses_a_wrong_count():
    creator()
    host = sign_in_by_email(Client(), "host@example.com")
    start = (timezone.now() + timedelta(days=2)).strftime(LOCAL_FORMAT)
    data = {"game": "genoa", "name": "Host", "title": "", "size": "4", "invite": "", "bots": "3", "start_by": start}
    data |= {"deadline": "length", "phase_hours": "48", "daily_at": "", "bot_level": "strong"}
    data |= {"option_press": "full", "option_publish_press": "no"}
    page = host.get(reverse("lobby-new"), {"game": "genoa"}).content.decode()
    assert 'name="bot_levels"' in page and "Or a level for each bot seat" in page
    refused = host.post(reverse("lobby-new"), data | {"bot_levels": "easy, random"})
    assert refused.status_code == 400 and "Bot levels given: 2, bot seats: 3" in refused.content.decode()
    assert not Table.objects.exists()
    made = host.post(reverse("lobby-new"), data | {"bot_levels": "Easy, random, strong"})
    assert made.status_code == 302, re.findall(r'class="errorlist[^>]*>.*?</ul>', made.content.decode())
    table = Table.objects.get()
    assert [s.bot_level for s in table.seats.order_by("number")] == ["", "easy", "random", "strong"]


def test_a_daily_time_sets_each_turn_deadline_in_the_creators_zone():
    from datetime import time

    host = creator()
    table = propose(host, [], size=2, bots=1, daily_at=time(20, 0), time_zone="Europe/Paris")
    table.refresh_from_db()
    phase = Phase.objects.get(game=table.game, status=Phase.Status.OPEN)
    from zoneinfo import ZoneInfo

    local = phase.deadline.astimezone(ZoneInfo("Europe/Paris"))
    assert (local.hour, local.minute) == (20, 0) and phase.deadline - phase.opened_at >= timedelta(hours=24)


def test_options_are_checked_by_the_engine_at_creation():
    with pytest.raises(LobbyError, match="rounds"):
        propose(creator(), [], options={"rounds": 99})
    with pytest.raises(LobbyError, match="takes 2 to 5"):
        propose(creator(), [], size=9)
    assert not Table.objects.exists()


def test_the_creator_cancels_and_the_invitees_are_told(client):
    host = creator()
    table = propose(host, ["ann@example.com"])
    sign_in_by_email(client, "host@example.com")
    before = len(mail.outbox)
    client.post(reverse("lobby-cancel", args=[table.key]))
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert [m.to for m in mail.outbox[before:]] == [["ann@example.com"]]
    join, _ = invitation_links("ann@example.com")
    response = type(client)().get(join, follow=True)
    assert b"This table was cancelled" in response.content
    # A cancelled table offers nothing: no seat open to take, no invitation waiting, no button.
    for page in (response, client.get(reverse("lobby-table", args=[table.key]))):
        shown = page.content.decode().split("<main", 1)[1].split("</main>", 1)[0]  # the page, not the language switcher
        assert "Open:" not in shown and "Invited" not in shown and "<button" not in shown
        assert shown.count("<td>Empty</td>") == 2


def test_a_rematch_invites_the_same_players_once(client):
    host = creator()
    table = propose(host, ["ann@example.com"], size=2)
    invitations.accept(Invitation.objects.get().pk, None, "Ann")
    table.refresh_from_db()
    game = table.game
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    ann = Player.objects.get(email="ann@example.com")
    rematch = tables.rematch(game, ann)
    assert rematch.rematch_of == game and rematch.private
    assert list(rematch.invitations.values_list("address", flat=True)) == ["host@example.com"]
    assert tables.rematch(game, ann) == rematch  # a second click invites nobody twice
    assert Invitation.objects.filter(table=rematch).count() == 1


def test_a_rematch_seats_each_bot_at_the_level_it_played():
    host = creator()
    table = propose(host, [], size=3, bots=2, bot_levels=("easy", "strong"))
    table.refresh_from_db()
    game = table.game
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    rematch = tables.rematch(game, host)
    assert rematch.game is not None and rematch.game != game  # the host and two bots: it starts at once
    # (Each start deals the seats: the bots' order is the draw's, their levels the ones they played.)
    for played in (game, rematch.game):
        assert sorted(played.seats.filter(is_bot=True).values_list("bot_level", flat=True)) == ["easy", "strong"]


def test_a_finished_games_page_offers_its_players_a_rematch_in_one_click(client):
    host = creator()
    table = propose(host, [], size=2, bots=1)
    table.refresh_from_db()
    game = table.game
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    assert b"Offer a rematch" not in client.get(reverse("games-game", args=[game.pk])).content  # a visitor
    assert client.post(reverse("lobby-rematch", args=[game.pk])).status_code == 403
    sign_in_by_email(client, "host@example.com")
    assert b"Offer a rematch" in client.get(reverse("games-game", args=[game.pk])).content
    response = client.post(reverse("lobby-rematch", args=[game.pk]))
    rematch = Table.objects.get(rematch_of=game)
    assert response["Location"] == reverse("lobby-table", args=[rematch.key])
    rematch.refresh_from_db()
    assert rematch.status == Table.Status.STARTED  # the host and the bot again: nobody to wait for
    page = client.get(reverse("games-mine")).content
    assert b"Start a game" in page
    # Starting a game stands right under the games list, before the settings and the other apps' cards.
    assert page.index(b"<th>Game</th>") < page.index(b"<h2>Start a game") < page.index(b"<h2>Settings")
    assert page.index(b"<h2>Settings") < page.index(b"<h2>API tokens") < page.index(b"<h2>Sign out everywhere")


@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("Cheap pills at www.spam.example", ""),
        ("Ann", "Visit https://spam.example"),
        ("mail me@spam.example", ""),
        # IDNA's other full stops separate a domain's labels too: a mail client links each of these
        ("evil\u3002example\u3002com", ""),
        ("Ann", "evil\uff0eexample\uff0ecom"),
        ("evil\uff61example\uff61com", ""),
        ("mail me\uff20spam.example", ""),
        ("\u0441\u0430\u0439\u0442.\u0440\u0444", ""),
    ],
)
def test_an_invitation_quotes_no_link_a_spammer_typed_as_a_name(name, title):
    with pytest.raises(LobbyError, match="may not hold a web or email address"):
        tables.create_table(creator(), spec(title=title), ["ann@example.com"], name=name)
    assert not Table.objects.exists() and not mail.outbox


def test_the_admin_lists_player_created_games_like_the_others_and_the_tables_read_only(admin_client, client):
    from tests.support.leagues import make_league, organiser_of

    table = propose(creator(), [], size=2, bots=1)
    table.refresh_from_db()
    games = reverse("admin:games_game_changelist")
    listed = admin_client.get(games + "?started_by=players")
    assert listed.status_code == 200 and listed.context["cl"].result_count == 1
    assert admin_client.get(games + "?started_by=organisers").context["cl"].result_count == 0
    assert admin_client.get(reverse("admin:games_game_change", args=[table.game_id])).status_code == 200
    page = admin_client.get(reverse("admin:lobby_table_change", args=[table.pk]))
    assert page.status_code == 200 and b"Save" not in page.content  # read only: nothing of it needs the admin
    client.force_login(organiser_of(make_league(players=0)))  # the Organiser role: no player's game is theirs
    assert client.get(games).context["cl"].result_count == 0
