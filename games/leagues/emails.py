"""League emails: one small function per kind over templates/emails/leagues/<kind>-subject.txt, -body.txt
and -body.html, rendered (games/outgoing/messages.py) when the news happens and kept as a LeagueEmail row: league news
tells what happened then, unlike a turn email, which shows the game as it is when sent. A row is sent after
commit, or, for players who chose the daily digest, gathered with the day's other news into one email; both
through the pipeline's claim/send/record path, so a failed send is retried by the sweep like a game email."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games.extensions import EmailAsk, Outbox
from games.leagues.models import League, LeagueEmail, Membership
from games.models import Game, Phase, Player, Seat
from games.outgoing import mailpolicy, messages, outbox, signed
from games.outgoing.dispatch import after_commit, task_name
from games.outgoing.emails import GAME_SUBJECT, first_sent
from games.outgoing.facts import addressee, game_facts, phase_facts
from games.outgoing.links import seat_url
from games.outgoing.mailpolicy import Need
from games.play import turns

log = logging.getLogger(__name__)
# Time-critical news never waits for the digest: a confirmation link, a seat to claim.
NEVER_DIGESTED = {"signup-confirm", "signup-welcome", "substitute-offer", "seat-welcome", "member-dropped"}
# News of one game, in that game's thread.
GAME_NEWS = {"deadline-moved", "phase-news"}
DIGEST_SUBJECT = "emails/leagues/digest-thread-subject.txt"
NEWS_SUBJECT = "emails/leagues/news-subject.txt"
SETTINGS_SALT = "pbem.league-settings"
SETTINGS_LINK_DAYS = 90  # a few rounds' worth: every round's emails bring a fresh one
# The league's wake-up call for its emails (bound in games/leagues/tasks.py).
SEND_LEAGUE_EMAILS = task_name("leagues.tasks.send_emails")


@dataclass(frozen=True)
class LeagueFacts:
    """What a league email says of its league (games/outgoing/facts.py: templates get no model instance)."""

    name: str


@dataclass(frozen=True)
class DigestItem:
    """One piece of news in a digest, as it was rendered when it happened."""

    subject: str
    text: str
    html: str


def settings_url(membership: Membership) -> str:
    """A member's settings page (email choices, vacations, calendar), signed: the link opens that page, not
    the member's games (games/incoming/sessions.py)."""
    token = signed.dumps(membership.pk, salt=SETTINGS_SALT)
    return settings.SITE_URL + reverse("leagues-member", args=[membership.league.slug]) + f"?k={token}"


def read_settings_token(token: str) -> int | None:
    try:
        return int(signed.loads(token, salt=SETTINGS_SALT, max_age=timedelta(days=SETTINGS_LINK_DAYS)))
    except (signing.BadSignature, TypeError, ValueError):
        return None


# What each kind is for (games/outgoing/mailpolicy.py); any other kind is league news, which a member may decline.
LEAGUE_NEEDS = {
    "signup-confirm": Need.REQUESTED,
    "signup-welcome": Need.REQUESTED,
    "vacation-confirmed": Need.REQUESTED,
    "substitute-offer": Need.PLAY,
    "member-inactive": Need.PLAY,
    "seat-replaced": Need.PLAY,
    "seat-welcome": Need.PLAY,
    "member-dropped": Need.PLAY,
}


def need_of(kind: str, context: dict[str, Any]) -> Need:
    """A deadline-moved email that brings the seat's link asks for an owed order; without it, it is news."""
    if kind == "deadline-moved" and context.get("link"):
        return Need.OWED
    return LEAGUE_NEEDS.get(kind, Need.NEWS)


def wants_news(membership: Membership | None) -> bool | None:
    """A member's choice of league news: every turn email, or the digest (None outside the league: the
    player's own choice counts)."""
    if membership is None:
        return None
    return membership.notify == Membership.Notify.ALL or membership.digest


def queue(league: League, kind: str, context: dict[str, Any], *, player: Player | None = None, to: str = "") -> None:
    """Render a league email now and send it after commit (or keep it for the player's digest), unless the
    pipeline declines it (games/outgoing/mailpolicy.py: the mail policy, then the league's own preferences)."""
    to = to or (player.email if player else "")
    membership = Membership.objects.filter(league=league, player=player).first() if player else None
    need = need_of(kind, context)
    ask = EmailAsk(kind=kind, players=(player,) if player else (), need=need.value, wants_news=wants_news(membership))
    if player is not None and mailpolicy.declined(ask):
        return
    digest = bool(membership and membership.digest and kind not in NEVER_DIGESTED)
    context = {"league": LeagueFacts(name=league.name), "player": addressee(player), **context}
    if membership is not None:
        context["settings_url"] = settings_url(membership)
    thread, subject = thread_of(league, kind, context)
    zone = messages.zone_of(player.time_zone if player else None)
    # Kept without its thread's subject and headline, as a digest shows it; both are added when sent alone.
    rendered = messages.render(f"emails/leagues/{kind}", context, zone, language=messages.language_of(player))
    LeagueEmail.objects.create(
        league=league,
        player=player,
        to=to,
        kind=kind,
        subject=messages.render_line(subject, {**context, "headline": rendered.subject}, zone, rendered.language)[:250],
        headline=rendered.subject[:250],
        text=rendered.text,
        html=rendered.html,
        digest=digest,
        declinable=need is Need.NEWS,
        thread=thread,
    )
    if not digest:
        after_commit(SEND_LEAGUE_EMAILS)


def thread_of(league: League, kind: str, context: dict[str, Any]) -> tuple[str, str]:
    """The thread a piece of news joins for its reader, and its subject template: news of one game (a deadline
    moved) joins the game's own emails, under the game's subject; any other stands alone, its subject naming
    what it is, after the league's name ("[Spring Cup] Please confirm your sign-up")."""
    if kind in GAME_NEWS:
        return f"game.{context['game'].id}", GAME_SUBJECT
    return "", NEWS_SUBJECT


def deadline_moved(league: League, game: Game, phase: Phase, *, away: Player | None = None) -> None:
    """Tell the players of `game` that its open phase's deadline moved: `away` is on vacation (and knows),
    or, without `away`, the league's grace after a missed deadline. Members who chose "only when I owe an
    order" hear of it only if they still owe one (a seat that owes gets its link again)."""
    owing = set(phase.owed_seats) - turns.submitted_seats(phase)
    only_owed = set(
        Membership.objects.filter(league=league, notify=Membership.Notify.OWED).values_list("player_id", flat=True)
    )
    seats = Seat.objects.filter(game=game, player__isnull=False).select_related("player").order_by("number")
    facts = game_facts(game)
    for seat in seats.exclude(player=away) if away else seats:
        owes = seat.number in owing and not seat.is_bot
        if seat.player_id in only_owed and not owes:
            continue
        context = {
            "game": facts,
            "phase": phase_facts(phase),
            "away": away.display_name if away else "",
            "link": seat_url(seat, phase) if owes else "",
        }
        queue(league, "deadline-moved", context, player=seat.player)


def send_pending() -> int:
    """Send every pending league email that is not waiting for a digest, each in its reader's thread."""
    rows = list(
        LeagueEmail.objects.filter(status=LeagueEmail.Status.PENDING, digest=False)
        .select_related("player")
        .order_by("pk")
    )
    news = (
        outbox.Outgoing([row.pk], compose(row) if still_wanted(row) else None)  # None: skipped
        for row in rows
    )
    return outbox.deliver(LeagueEmail, news)


def compose(row: LeagueEmail) -> Any:
    """The row's message in its reader's thread. Rows kept before headlines were kept carry their subject
    as it was sent then."""
    language = messages.language_of(row.player)
    if row.headline:
        headline = messages.Rendered(row.headline, row.text, row.html, language=language)
        rendered = messages.headlined(headline, row.subject)
    else:
        rendered = messages.Rendered(row.subject, row.text, row.html, language=language)
    thread = messages.Thread(messages.message_id(f"pbem.league.{row.pk}"), root=thread_root(row))
    return messages.compose(
        rendered, row.to, kind=row.kind, thread=thread, declinable_by=row.player if row.declinable else None
    )


def still_wanted(row: LeagueEmail) -> bool:
    """Asked again just before sending: the address may have bounced, or its player declined, since."""
    if row.player is None:
        return True
    need = Need.NEWS if row.declinable else need_of(row.kind, {"link": row.kind == "deadline-moved"})
    membership = Membership.objects.filter(league_id=row.league_id, player=row.player).first()
    return mailpolicy.allows(row.player, need, wants_news=wants_news(membership))


def thread_root(row: LeagueEmail) -> str | None:
    """The Message-ID of the first email of the row's thread actually sent to its reader (a game's thread:
    the game's first email to them), or None: this row starts the thread."""
    if row.thread.startswith("game."):
        return first_sent(int(row.thread.removeprefix("game.")), [row.to]).get(row.to)
    sent = LeagueEmail.objects.filter(thread=row.thread, to=row.to, status=LeagueEmail.Status.SENT)
    return (
        sent.exclude(message_id="").order_by("pk").values_list("message_id", flat=True).first() if row.thread else None
    )


def send_digests(now: datetime | None = None) -> int:
    """One email per player with every piece of league news kept for their digest (the daily beat task), in
    one thread of digests per reader. A digest that fails leaves its rows failed: the sweep puts them back,
    for the next day's digest."""
    now = now or timezone.now()
    rows = list(
        LeagueEmail.objects.filter(status=LeagueEmail.Status.PENDING, digest=True)
        .select_related("player")
        .order_by("pk")
    )
    by_address: dict[str, list[LeagueEmail]] = defaultdict(list)
    unwanted = [row.pk for row in rows if not still_wanted(row)]
    for row in rows:
        if row.pk not in unwanted:
            by_address[row.to].append(row)

    def digests() -> Iterator[outbox.Outgoing]:
        if unwanted:
            yield outbox.Outgoing(unwanted, None)  # skipped
        for to, items in by_address.items():
            player = items[0].player
            news = [DigestItem(subject=row.headline or row.subject, text=row.text, html=row.html) for row in items]
            context = {"items": news, "player": addressee(player), "now": now}
            zone = messages.zone_of(player.time_zone if player else None)
            language = messages.language_of(player)
            rendered = messages.render(
                "emails/leagues/digest", context, zone, thread_subject=DIGEST_SUBJECT, language=language
            )
            sent = LeagueEmail.objects.filter(to=to, digest=True, status=LeagueEmail.Status.SENT).exclude(message_id="")
            root = sent.order_by("pk").values_list("message_id", flat=True).first()
            thread = messages.Thread(messages.message_id(f"pbem.digest.{items[0].pk}"), root=root)
            # Declinable if any of its news is: the one-click then leaves only what lets them play.
            declinable = player if any(row.declinable for row in items) else None
            message = messages.compose(rendered, to, kind="digest", thread=thread, declinable_by=declinable)
            yield outbox.Outgoing([row.pk for row in items], message)

    return outbox.deliver(LeagueEmail, digests())


def wake_sender(league_ids: list[int]) -> None:
    after_commit(SEND_LEAGUE_EMAILS)


# For the sweep (games/outgoing/outbox.py): failed rows retried, lost ones sent; a digest's rows wait for the daily
# task.
OUTBOX = Outbox(model=LeagueEmail, wake=wake_sender, value="league_id", held=Q(digest=True, status="pending"))
