"""League emails: each member's choice per league (every turn email, or only when an order is owed; a daily
digest instead of one email per piece of news), the standings at each round's end, and every email in the
reader's own time zone."""

from __future__ import annotations

import re
from datetime import time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.urls import reverse

from games.leagues import emails, services, substitutes
from games.leagues.models import League, LeagueEmail, Membership
from games.leagues.tasks import send_digests_task, sweep_leagues
from games.models import Game, OutboundEmail, Phase, Player
from games.play import orders, turns
from tests.support.leagues import autopilot, first_game, make_league, open_phase_of, seat, started_round
from tests.support.phases import headline

pytestmark = pytest.mark.django_db(transaction=True)


def choose(league: League, email: str, **prefs: object) -> None:
    Membership.objects.filter(league=league, player__email=email).update(**prefs)


def seat_of(game: Game, email: str) -> int:
    return game.seats.get(player__email=email).number


def kind(message: object) -> str:
    return str(getattr(message, "tags", [""])[0])  # anymail's test backend keeps the tags


def sent_to(email: str) -> list[str]:
    return [kind(m) for m in mail.outbox if m.to == [email]]


def first_phase_with_one_seller(league: League) -> tuple[Game, Phase]:
    """Round 1 started; its first phase resolved with p4 the only seller, so the next phase asks only p4."""
    game = first_game(started_round(league))
    phase = open_phase_of(game)
    seller = seat_of(game, "p4@example.com")
    for number in range(4):
        orders.submit_order(seat(game, number), phase.number, {"role": "seller" if number == seller else "buyer"})
    following = open_phase_of(game)
    assert following.owed_seats == [seller]
    return game, phase


def test_each_member_chooses_every_turn_email_or_only_when_an_order_is_owed():
    league = make_league(players=4)
    choose(league, "p1@example.com", notify=Membership.Notify.OWED)
    game, resolved = first_phase_with_one_seller(league)
    assert "turn-started" in sent_to("p1@example.com")  # owed in the first phase: emailed at once
    assert "phase-resolved" not in sent_to("p1@example.com")  # not owed now: nothing
    assert "phase-resolved" in sent_to("p2@example.com")  # every turn: the news of the phase
    assert sent_to("p4@example.com").count("turn-started") == 2  # owed again: the sale
    kept = OutboundEmail.objects.filter(phase=resolved, kind="phase-resolved")
    assert sorted(kept.values_list("to", flat=True)) == ["p2@example.com", "p3@example.com"]


def test_the_choice_is_per_league():
    league = make_league(players=4)
    other = League.objects.create(name="Other", slug="other", engine="piraeus")
    Membership.objects.create(league=other, player=turns.player_for("p1@example.com"), notify=Membership.Notify.OWED)
    first_phase_with_one_seller(league)
    assert "phase-resolved" in sent_to("p1@example.com")  # "only when owed" was chosen in the other league


def test_digest_members_get_news_once_a_day_and_turn_emails_at_once():
    league = make_league(players=4)
    choose(league, "p2@example.com", digest=True)
    game, resolved = first_phase_with_one_seller(league)
    assert sent_to("p2@example.com") == ["turn-started"]  # the order owed went out at once; no news
    kept = LeagueEmail.objects.filter(player__email="p2@example.com", status=LeagueEmail.Status.PENDING)
    assert sorted(kept.values_list("kind", flat=True)) == ["phase-news", "round-started"]
    assert all(kept.values_list("digest", flat=True))

    assert send_digests_task.delay().get() == 1
    [digest] = [m for m in mail.outbox if m.to == ["p2@example.com"] and "digest" in m.subject]
    assert "2 items" in headline(digest)
    body = str(digest.body)
    assert "Season 1, round 1 has started" in body and f"{resolved.name} resolved" in body
    assert not LeagueEmail.objects.filter(status=LeagueEmail.Status.PENDING).exists()
    assert emails.send_digests() == 0  # nothing twice


def test_a_digest_never_holds_back_a_claim_offer_or_a_confirmation():
    league = make_league(players=4, standby=1)
    choose(league, "s1@example.com", digest=True)
    game = first_game(started_round(league))
    substitutes.drop_member(Membership.objects.get(league=league, player=game.seats.get(number=0).player))
    assert "substitute-offer" in sent_to("s1@example.com")
    assert not LeagueEmail.objects.filter(kind="substitute-offer", status=LeagueEmail.Status.PENDING).exists()


def test_every_member_gets_the_season_standings_when_a_round_ends():
    league = make_league(players=8, standby=1)
    round_ = started_round(league)
    games = list(services.round_games(round_))
    autopilot(games[0])
    assert sweep_leagues.delay().get()["finished"] == 0  # one table still playing
    assert not [m for m in mail.outbox if "Standings" in headline(m)]
    autopilot(games[1])  # the last game's end closes the round (after its commit, tasks inline)
    assert sweep_leagues.delay().get()["finished"] == 0
    standings = [m for m in mail.outbox if "Standings after round 1" in headline(m)]
    assert sorted(m.to[0] for m in standings) == sorted(
        Membership.objects.filter(league=league).values_list("player__email", flat=True)
    )  # players and the standby list
    leader = services.named_standings(round_.season)[0][1]
    mine = next(m for m in standings if m.to == [leader.email])
    assert "<- you" in str(mine.body) and str(mine.body).index(leader.display_name) < str(mine.body).index(" pts")
    assert sweep_leagues.delay().get()["finished"] == 0  # once per round


def test_emails_show_deadlines_in_each_players_own_time_zone():
    league = make_league(
        players=4, deadline_mode=League.DeadlineMode.DAILY, daily_time=time(20, 0), time_zone="Europe/Paris"
    )
    tokyo = turns.player_for("p1@example.com")
    tokyo.time_zone = "Asia/Tokyo"
    tokyo.save()
    choose(league, "p1@example.com", digest=True)
    game = first_game(started_round(league))
    deadline = open_phase_of(game).deadline
    assert deadline.astimezone(ZoneInfo("Europe/Paris")).time() == time(20, 0)
    in_tokyo = deadline.astimezone(ZoneInfo("Asia/Tokyo"))
    in_utc = deadline.astimezone(ZoneInfo("UTC"))
    turn = next(m for m in mail.outbox if m.to == ["p1@example.com"] and kind(m) == "turn-started")
    assert in_tokyo.strftime("%H:%M") in str(turn.body) and "Asia/Tokyo" in str(turn.body)
    other = next(m for m in mail.outbox if m.to == ["p2@example.com"] and kind(m) == "turn-started")
    assert in_utc.strftime("%H:%M") in str(other.body)
    # League news too: the digest's phase news carries the next deadline in Tokyo time.
    phase, seller = open_phase_of(game), seat_of(game, "p2@example.com")
    for number in range(4):
        orders.submit_order(seat(game, number), phase.number, {"role": "seller" if number == seller else "buyer"})
    news = LeagueEmail.objects.get(player=tokyo, kind="phase-news")
    following = open_phase_of(game)
    assert following.deadline - following.opened_at >= league.phase_length - timedelta(seconds=1)
    assert following.deadline.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%H:%M") in news.text


def test_league_emails_carry_a_signed_settings_link_that_signs_the_member_in(client):
    league = make_league(players=4)
    started_round(league)
    message = next(m for m in mail.outbox if m.to == ["p1@example.com"] and kind(m) == "round-started")
    found = re.search(r"https://pbem\.example(/leagues/spring/me/\?k=\S+)", str(message.body))
    assert found is not None
    settings_page = reverse("leagues-member", args=[league.slug])
    assert client.get(settings_page).status_code == 403  # not signed in yet
    assert client.get(found.group(1))["Location"] == settings_page  # the token leaves the address bar
    page = client.get(settings_page)
    assert page.status_code == 200 and "vacation" in page.content.decode().lower()
    assert "no-store" in page["Cache-Control"]  # it shows the calendar feed's secret link
    response = client.post(settings_page, {"save": "1", "notify": "owed", "digest": "on"})
    assert response.status_code == 302
    chosen = Membership.objects.get(league=league, player__email="p1@example.com")
    assert chosen.notify == Membership.Notify.OWED and chosen.digest


def test_a_forged_settings_link_signs_nobody_in(client):
    league = make_league(players=4)
    other = Membership.objects.get(league=league, player__email="p2@example.com")
    forged = f"{reverse('leagues-member', args=[league.slug])}?k={other.pk}:forged"
    response = client.get(forged)
    assert response.status_code == 403 and "not valid" in response.content.decode()
    assert client.get(reverse("leagues-member", args=[league.slug])).status_code == 403


def test_a_german_member_reads_the_leagues_emails_in_german():
    """The league's emails (templates/emails/leagues) speak the catalogue: no sentence of the English template."""
    league = make_league(players=4)
    Player.objects.filter(email="p1@example.com").update(language="de")
    started_round(league)
    message = next(m for m in mail.outbox if m.to == ["p1@example.com"] and kind(m) == "round-started")
    text, page = str(message.body), message.alternatives[0][0]
    assert "Runde 1 von" in text and "hat begonnen. Dein Tisch:" in text and "Tisch 1 (" in text
    assert "Die erste Zug-E-Mail für jeden Tisch kommt separat." in page
    assert "Deine Einstellungen für diese Liga" in page
    for english in ("Hello", "has started", "Your table", "Your first turn email", "Your settings for this league"):
        assert english not in text and english not in page, english
