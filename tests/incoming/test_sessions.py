"""Sessions: a seat link opens one seat, the emailed sign-in link opens the account, settings need the
account, sign out everywhere, and every kind of session ends on time."""

from __future__ import annotations

import importlib
import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core import mail, signing
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games.engines import get_engine
from games.incoming import sessions
from games.models import Order, Phase, Player
from games.outgoing import mailpolicy
from games.outgoing.links import SIGN_IN_SALT, make_token
from games.play import orders, organise
from tests.support.accounts import emailed_sign_in_link, sign_in_by_email
from tests.support.leagues import first_game, make_league, started_round
from tests.support.phases import open_phase

pytestmark = pytest.mark.django_db(transaction=True)

ANN = "player1@example.com"


def link(game, seat_number: int = 0) -> str:
    return reverse("games-link", args=[make_token(game.seats.get(number=seat_number), open_phase(game))])


def two_games_of_ann(make_game):
    """Ann (player1) sits at seat 0 of two tables."""
    return make_game(humans=3), make_game(humans=3, seed=99)


def page(client, game):
    return client.get(reverse("games-game", args=[game.pk]))


def sign_ins_to() -> list[list[str]]:
    return [m.to for m in mail.outbox if getattr(m, "tags", None) == ["sign-in"]]


def clock_at(monkeypatch, seconds_from_now: float) -> None:
    """Move the clock the session checks read (not the database's) by `seconds_from_now`."""
    later = time.time() + seconds_from_now
    monkeypatch.setattr(sessions, "time", SimpleNamespace(time=lambda: later))


# --- A seat link opens its seat only ----------------------------------------------------------------


def test_a_forwarded_seat_link_cannot_see_or_play_the_players_other_games(client, make_game):
    first, second = two_games_of_ann(make_game)
    friend = client  # Ann forwarded her turn email of the first game
    assert friend.get(link(first)).status_code == 302
    assert page(friend, first).context["seat"].number == 0
    other = page(friend, second)
    assert other.context["seat"] is None and other.context["prompt"] is None
    engine = get_engine(second.engine)
    second.refresh_from_db()
    assert other.context["view"] == engine.view(second.state, None)  # the public board, not Ann's
    refused = friend.post(reverse("games-order", args=[second.pk]), {"phase": 1, "role": "buyer"})
    assert refused.status_code == 403
    assert not Order.objects.filter(phase__game=second).exists()
    listed = friend.get(reverse("games-mine")).context["rows"]
    assert [r.seat.game_id for r in listed] == [first.pk]


def test_a_seat_link_cannot_change_the_players_settings(client, make_game):
    game = make_game(humans=3)
    client.get(link(game))
    mine = client.get(reverse("games-mine"))
    assert mine.context["settings_form"] is None and mine.context["sign_in_form"] is not None
    response = client.post(reverse("games-mine"), {"name": "Mallory", "time_zone": "Asia/Tokyo", "notify": "all"})
    assert response.status_code == 403 and b"Nothing was changed" in response.content
    ann = Player.objects.get(email=ANN)
    assert (ann.name, ann.time_zone, ann.notify) == ("Player 1", "UTC", "owed")


def test_a_seat_grant_ends_with_its_link(client, make_game, monkeypatch, settings):
    game = make_game(humans=3)
    client.get(link(game))
    assert page(client, game).context["seat"] is not None
    # The link works until the deadline plus the grace; so does what it opened, however long the session.
    phase = open_phase(game)
    expiry = phase.deadline + timedelta(hours=settings.PBEM_LINK_GRACE_HOURS)
    clock_at(monkeypatch, (expiry - timezone.now()).total_seconds() + 60)
    assert page(client, game).context["seat"] is None


def test_replacing_the_player_ends_the_seat_grant(client, make_game):
    game = make_game(humans=3)
    client.get(link(game, 1))
    organise.replace_player(game.seats.get(number=1), "newcomer@example.com")
    assert page(client, game).context["seat"] is None
    assert client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "buyer"}).status_code == 403


# --- The emailed sign-in link -----------------------------------------------------------------------


def test_the_emailed_sign_in_link_signs_in_to_every_game_once(client, make_game):
    first, second = two_games_of_ann(make_game)
    url = emailed_sign_in_link(client)
    assert mail.outbox[-1].to == [ANN]
    shown = client.get(url)  # a mail scanner opening it signs nobody in and spends nothing
    assert shown.status_code == 200 and b"Sign in" in shown.content
    assert sessions.SESSION_ACCOUNT not in client.session
    assert client.post(url).status_code == 302
    mine = client.get(reverse("games-mine"))
    assert {r.seat.game_id for r in mine.context["rows"]} == {first.pk, second.pk}
    assert mine.context["settings_form"] is not None
    assert page(client, second).context["seat"].number == 0
    # The link is spent: another browser cannot use it again.
    other = Client()
    again = other.post(url)
    assert again.status_code == 403 and b"already been used" in again.content
    assert sessions.SESSION_ACCOUNT not in other.session


def test_an_expired_sign_in_link_says_so_and_signs_nobody_in(client, make_game, monkeypatch):
    make_game(humans=3)
    url = emailed_sign_in_link(client)
    later = time.time() + 31 * 60
    monkeypatch.setattr(signing, "time", SimpleNamespace(time=lambda: later))
    for response in (client.get(url), client.post(url)):
        assert response.status_code == 403 and b"expired" in response.content
    assert sessions.SESSION_ACCOUNT not in client.session
    assert Player.objects.get(email=ANN).sign_in_sent_at is not None  # not spent


def test_forged_sign_in_links_change_nothing(client, make_game):
    game = make_game(humans=3)
    url = emailed_sign_in_link(client)
    token = url.rstrip("/").rsplit("/", 1)[1]
    ann = Player.objects.get(email=ANN)
    forged = [
        token[:-2] + ("AA" if not token.endswith("AA") else "BB"),  # signature altered
        signing.dumps({"p": ann.pk, "t": ann.sign_in_sent_at.isoformat(), "v": 0}, salt="pbem.seat-link"),
        signing.dumps({"p": ann.pk, "t": ann.sign_in_sent_at.isoformat(), "v": 0}, key="guess", salt=SIGN_IN_SALT),
        make_token(game.seats.get(number=0), open_phase(game)),  # a seat link is not a sign-in link
        "not-a-token",
    ]
    for bad in forged:
        response = client.post(reverse("games-sign-in", args=[bad]))
        assert response.status_code == 403 and b"not valid" in response.content
    assert sessions.SESSION_ACCOUNT not in client.session
    assert Player.objects.get(pk=ann.pk).sign_in_sent_at == ann.sign_in_sent_at


def test_a_newer_sign_in_link_replaces_the_older_one(client, make_game):
    make_game(humans=3)
    older = emailed_sign_in_link(client)
    newer = emailed_sign_in_link(client)
    assert client.post(older).status_code == 403
    assert client.post(newer).status_code == 302


def test_the_sign_in_form_does_not_tell_who_plays_here(client, make_game):
    make_game(humans=3)
    answers = []
    for address in (ANN, "stranger@example.com", "PLAYER1@example.com "):
        response = Client().post(reverse("games-mine"), {"email": address}, follow=True)
        answers.append((response.status_code, [str(m) for m in response.context["messages"]]))
    assert answers[0] == answers[1] == answers[2]
    assert sign_ins_to() == [[ANN], [ANN]]  # any spelling of her address reaches her, and only her


def test_sign_in_emails_are_throttled_per_address(client, make_game):
    make_game(humans=3)
    for _ in range(10):
        client.post(reverse("games-mine"), {"email": ANN})
    assert sign_ins_to() == [[ANN]] * mailpolicy.SIGN_IN_BURST
    # A quota per address, not per form: another player still gets theirs.
    client.post(reverse("games-mine"), {"email": "player2@example.com"})
    assert sign_ins_to()[-1] == ["player2@example.com"]
    # Then one per interval: after it, exactly one more.
    Player.objects.filter(email=ANN).update(sign_in_quota_at=timezone.now() + 2 * mailpolicy.SIGN_IN_EVERY)
    client.post(reverse("games-mine"), {"email": ANN})
    client.post(reverse("games-mine"), {"email": ANN})
    assert sign_ins_to().count([ANN]) == mailpolicy.SIGN_IN_BURST + 1


def test_a_bad_address_in_the_sign_in_form_is_explained(client, db):
    response = client.post(reverse("games-mine"), {"email": "not an address"})
    assert response.status_code == 400 and b"valid email" in response.content
    assert not mail.outbox


# --- Sign out everywhere, and how long sessions last ------------------------------------------------


def test_sign_out_everywhere_ends_every_session_of_the_player(make_game):
    first, second = two_games_of_ann(make_game)
    laptop, phone, friend = Client(), Client(), Client()
    sign_in_by_email(laptop)
    sign_in_by_email(phone)
    friend.get(link(first))
    assert page(phone, second).context["seat"] is not None and page(friend, first).context["seat"] is not None
    assert laptop.post(reverse("games-sign-out-everywhere")).status_code == 302
    for browser in (laptop, phone, friend):
        assert page(browser, first).context["seat"] is None
        assert page(browser, second).context["seat"] is None
        mine = browser.get(reverse("games-mine"))
        assert mine.context["settings_form"] is None and not mine.context["rows"]
    refused = friend.post(reverse("games-order", args=[first.pk]), {"phase": 1, "role": "buyer"})
    assert refused.status_code == 403 and not Order.objects.exists()
    # A turn link itself still opens its seat until its deadline has passed (README).
    assert friend.get(link(first)).status_code == 302 and page(friend, first).context["seat"] is not None


def test_sign_out_everywhere_needs_the_account(client, make_game):
    game = make_game(humans=3)
    client.get(link(game))
    assert client.post(reverse("games-sign-out-everywhere")).status_code == 403
    assert Player.objects.get(email=ANN).session_epoch == 0


def test_sessions_last_as_long_as_the_setting_says(monkeypatch):
    import pbem.settings as project_settings

    monkeypatch.delenv("SESSION_COOKIE_AGE", raising=False)
    assert importlib.reload(project_settings).SESSION_COOKIE_AGE == 14 * 24 * 60 * 60
    monkeypatch.setenv("SESSION_COOKIE_AGE", "3600")
    assert importlib.reload(project_settings).SESSION_COOKIE_AGE == 3600
    monkeypatch.delenv("SESSION_COOKIE_AGE")
    importlib.reload(project_settings)


def test_an_account_session_ends_after_the_cookie_age(client, make_game, monkeypatch, settings):
    settings.SESSION_COOKIE_AGE = 3600
    game = make_game(humans=3)
    sign_in_by_email(client)
    assert client.cookies["sessionid"]["max-age"] == 3600
    assert page(client, game).context["seat"] is not None
    # Even a session kept alive (saved again and again) speaks for nobody after the age.
    clock_at(monkeypatch, 3601)
    assert page(client, game).context["seat"] is None
    assert client.get(reverse("games-mine")).context["settings_form"] is None


# --- What the checks cost ---------------------------------------------------------------------------


def statements(client, method: str, url: str, data: dict | None = None) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        getattr(client, method)(url, data or {})
        sql = [q["sql"] for q in captured.captured_queries]  # read now: every request resets the log
    return sql


def test_the_session_checks_add_no_query_to_the_game_page_or_an_order(make_game):
    game = make_game(humans=3)
    orders.submit_order(game.seats.get(number=0), 1, {"role": "buyer"})
    by_link, by_account = Client(), Client()
    by_link.get(link(game))
    sign_in_by_email(by_account)
    order = reverse("games-order", args=[game.pk])
    counts = []
    for client in (by_link, by_account):
        page(client, game)  # warm: the first request after signing in may save the session
        shown = statements(client, "get", reverse("games-game", args=[game.pk]))
        posted = statements(client, "post", order, {"phase": 1, "role": "seller"})
        # The grant or account is checked on the seat's own row, read with its player in one statement.
        assert not [q for q in shown + posted if 'FROM "games_player"' in q]
        assert sum('FROM "games_seat"' in q and '"games_player"' in q for q in posted) == 1
        counts.append((len(shown), len(posted)))
    assert counts[0] == counts[1]
    assert Order.objects.get().revision == 3


# --- Open phases' links ----------------------------------------------------------------------------


def test_an_open_phases_link_expires_at_its_deadline_plus_grace(client, make_game):
    game = make_game(humans=3)
    url = link(game)
    Phase.objects.filter(pk=open_phase(game).pk).update(deadline=timezone.now() - timedelta(days=3))
    response = client.get(url)
    assert response.status_code == 403 and b"expired" in response.content
    assert sessions.SESSION_SEATS not in client.session


def test_a_paused_games_open_phase_link_works_past_its_deadline(client, make_game):
    game = make_game(humans=3)
    url = link(game)
    organise.pause_game(game)
    Phase.objects.filter(pk=open_phase(game).pk).update(deadline=timezone.now() - timedelta(days=3))
    assert client.get(url).status_code == 302
    assert page(client, game).context["seat"].number == 0


# --- League settings links -------------------------------------------------------------------------


def test_a_league_settings_link_opens_that_membership_only(client):
    from games.leagues import emails
    from games.leagues.models import League, Membership

    league = make_league(players=4)
    game = first_game(started_round(league))
    mine = Membership.objects.select_related("league").get(league=league, player__email="p1@example.com")
    other_league = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    Membership.objects.create(league=other_league, player=mine.player)
    client.get(emails.settings_url(mine).removeprefix("https://pbem.example"))
    assert client.get(reverse("leagues-member", args=[league.slug])).status_code == 200
    # Not the member's games, their account settings, or their other league's page.
    seat = game.seats.get(player=mine.player)
    assert page(client, game).context["seat"] is None
    refused = client.post(reverse("games-order", args=[game.pk]), {"phase": 1, "role": "buyer"})
    assert refused.status_code == 403 and not Order.objects.filter(seat=seat, is_default=False).exists()
    listed = client.get(reverse("games-mine"))
    assert not listed.context["rows"] and listed.context["settings_form"] is None
    assert client.get(reverse("leagues-member", args=[other_league.slug])).status_code == 403


def test_the_account_opens_every_league_page_of_the_player(client):
    from games.leagues.models import League, Membership

    league = make_league(players=4)
    other_league = League.objects.create(name="Autumn Cup", slug="autumn", engine="piraeus")
    Membership.objects.create(league=other_league, player=Player.objects.get(email="p1@example.com"))
    assert client.get(reverse("leagues-member", args=[league.slug])).status_code == 403
    sign_in_by_email(client, "p1@example.com")
    for slug in (league.slug, other_league.slug):
        shown = client.get(reverse("leagues-member", args=[slug])).context["membership"]
        assert shown.player.email == "p1@example.com"
    # A league the player is not in has no page for them.
    League.objects.create(name="Winter Cup", slug="winter", engine="piraeus")
    assert client.get(reverse("leagues-member", args=["winter"])).status_code == 403
