"""Who is sent which email: the one question every outbox (games and leagues) asks before it writes a row
(through `declined`, below), and again just before it sends one (the address may have gone bad, or
its player declined, meanwhile).

An email is asked for by what it is for (`Need`), not by its kind: a turn email and a reminder ask for an
order the reader owes, a game-over email tells the game's end, a claim offer or "you were made inactive"
keeps a player in play, a sign-in link or a sign-up confirmation was asked for a moment ago, and everything
else is news a player may decline. The player's choice (`Player.notify`, a league's `Membership.notify`) and
what the provider told us of the address (`Player.mail_problem`, games/incoming/mail/bounces.py) decide:

- news goes only to a player who chose every phase (`wants_news`);
- a complaint (the player marked our mail as spam) stops everything but the emails asking for an owed
  order: those let them play, and a turn nobody hears of costs the whole table;
- a hard bounce stops everything: the seats play their default orders instead (games/play/bots.py);
- what the reader has just asked for goes whatever the mark says: a sign-in link that arrives is how an
  address shows it works again (using it clears the mark), and a sign-up names an address that may be new.

Only news can be declined, so only news carries the one-click unsubscribe (`List-Unsubscribe`,
`unsubscribe_headers`); the emails asking for an owed order never do (README, "Emails a player gets").
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from enum import Enum

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import extensions
from games.extensions import EmailAsk
from games.models import OutboundEmail, Player, Seat
from games.outgoing import mailpolicy
from games.outgoing.links import unsubscribe_mailto, unsubscribe_url


class Need(Enum):
    OWED = "owed"  # an order the reader owes
    END = "end"  # a game's end
    PLAY = "play"  # what keeps a player in play (a seat to claim, told they were made inactive)
    REQUESTED = "requested"  # what the reader has just asked for
    NEWS = "news"  # news the reader may decline


GAME_NEEDS = {
    OutboundEmail.Kind.TURN_STARTED: Need.OWED,
    OutboundEmail.Kind.REMINDER: Need.OWED,
    OutboundEmail.Kind.DEADLINE_MOVED: Need.OWED,
    OutboundEmail.Kind.GAME_OVER: Need.END,
    OutboundEmail.Kind.PHASE_RESOLVED: Need.NEWS,
}


def allows(player: Player | None, need: Need, *, wants_news: bool | None = None) -> bool:
    """Whether `player` (None: an address that is nobody's yet) is sent an email for `need`. `wants_news`
    is the reader's choice for this news where an app keeps its own (a league membership); without it, the
    player's own choice."""
    if player is None or need is Need.REQUESTED:
        return True
    if player.mail_problem == Player.MailProblem.BOUNCED:
        return False
    if player.mail_problem == Player.MailProblem.COMPLAINED:
        return need is Need.OWED
    if need is Need.NEWS:
        return player.notify == Player.Notify.ALL if wants_news is None else wants_news
    return True


def need_of(kind: str, need: str | None = None) -> Need:
    """What an email of `kind` is for: the game kinds' own, or what the app said (`need`); news otherwise."""
    if need is not None:
        return Need(need)
    return GAME_NEEDS.get(kind, Need.NEWS)  # type: ignore[call-overload]


def refused(ask: EmailAsk) -> set[int]:
    """The players of `ask` the policy does not let be written this email (`declined`)."""
    need = need_of(ask.kind, ask.need)
    return {player.pk for player in ask.players if not allows(player, need, wants_news=ask.wants_news)}


def emails_seat(seat: Seat, kind: str) -> bool:
    """Asked again just before a game email is sent: the address may have bounced, or its player declined."""
    return seat.player is not None and allows(seat.player, need_of(kind))


def unreachable(seat: Seat) -> bool:
    """A seat whose player's address bounced: it plays its default orders at once (games/play/turns.py)."""
    return not seat.is_bot and seat.player is not None and seat.player.mail_problem == Player.MailProblem.BOUNCED


def declinable(kind: str, need: str | None = None) -> bool:
    return need_of(kind, need) is Need.NEWS


def unsubscribe_headers(player: Player | None) -> dict[str, str]:
    """RFC 2369 and RFC 8058 headers for news to `player`: a signed one-click URL (a POST needing no session)
    and, where replies are taken, a signed mailto: address (games/incoming/mail/inbound.py)."""
    if player is None:
        return {}
    targets = [f"<{unsubscribe_url(player)}>"]
    if settings.PBEM_REPLY_ADDRESS:
        targets.append(f"<mailto:{unsubscribe_mailto(player)}?subject=unsubscribe>")
    return {"List-Unsubscribe": ", ".join(targets), "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def decline_news(player: Player) -> bool:
    """The one-click unsubscribe: the least mail that still lets the player play (an email when an order
    is owed, and a game's end), here and in every app's own choices (extensions.news_declined). Returns
    whether anything changed."""
    with transaction.atomic():
        changed = bool(Player.objects.filter(pk=player.pk, notify=Player.Notify.ALL).update(notify=Player.Notify.OWED))
        answers = extensions.news_declined.send(sender=Player, player=player, now=timezone.now())
    return changed or any(bool(answer) for _, answer in answers)


def declined(ask: EmailAsk) -> set[int]:
    """The players of `ask` who must not be written this email: by the core's mail policy (their choice,
    their address's bounces and complaints: games/outgoing/mailpolicy.py), then by the apps' preferences for the
    players it lets through. An app may tell those the news its own way (the league's daily digest)."""
    refused = mailpolicy.refused(ask)
    left = replace(ask, players=tuple(player for player in ask.players if player.pk not in refused))
    if not left.players:
        return refused
    return refused | {player_id for declines in extensions.declines() for player_id in declines(left)}


# Sign-in emails per address: up to SIGN_IN_BURST at once, then one per SIGN_IN_EVERY (6 a day at most),
# so the form cannot be used to flood someone's inbox.
SIGN_IN_BURST = 3


SIGN_IN_EVERY = timedelta(hours=4)


def take_email_quota(player: Player, now: datetime) -> bool:
    """Count one more email a person asked us to send for `player` (a sign-in link, an address confirmation),
    if the quota allows it; the caller saves `sign_in_quota_at`. A generic cell rate: the quota time runs
    SIGN_IN_EVERY ahead per email, and no email goes out while it is more than the burst ahead of now."""
    quota = max(player.sign_in_quota_at or now, now)
    if quota - now > (SIGN_IN_BURST - 1) * SIGN_IN_EVERY:
        return False
    player.sign_in_quota_at = quota + SIGN_IN_EVERY
    return True
