"""Table talk by email. Each reader chooses (TalkSettings, on My games) to get the messages written to them:

- at once: after a message commits, its game's readers who chose this are emailed what they have not seen,
  but a reader gets at most one such email per game every BATCH_WINDOW: what comes in meanwhile waits for
  the next one, which the talk sweep sends once the window has passed;
- in their next turn email (the turn email lists every message its reader has not seen, whatever they
  chose: `unseen_threads`);
- in a daily digest, one email for all their games.

What an email shows is marked seen for its reader, so no message is emailed to a reader twice: each reader's
Mailbox row is locked while their email is built and sent, and only rows still unseen are taken. A message's
text is shown as text (escaped in HTML) and its links are broken up, so that no mail client makes them
clickable (`unlinkable`). Replying to a message email answers in its conversation (games/talk/inbound.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac

from games import extensions
from games.models import Game, Player, Seat
from games.outgoing import messages
from games.outgoing.emails import first_sent, game_link
from games.outgoing.facts import addressee
from games.outgoing.mailpolicy import Need, allows
from games.talk.letters import EmailThread, mark_emailed, threads_of, unseen
from games.talk.models import TABLE, Delivery, Mailbox, Participant, TalkSettings, thread_seats
from games.talk.page import thread_name

log = logging.getLogger(__name__)

BATCH_WINDOW = timedelta(minutes=5)
SWEEP_SINCE = timedelta(days=2)  # the sweep looks for messages waiting no older than this
DIGEST_MAX = 200  # messages in one digest at most; the rest are on the game pages

# --- Replies ---------------------------------------------------------------------------------------------------


def thread_mask(thread: str) -> int:
    return sum(1 << n for n in thread_seats(thread))


def mask_thread(mask: int) -> str:
    seats = [n for n in range(mask.bit_length()) if mask >> n & 1]
    return ",".join(map(str, seats)) if seats else TABLE


def reply_signature(seat: Seat, mask: int) -> str:
    # Bound to the seat's link key and player: a replaced player's reply addresses stop working.
    return salted_hmac("pbem.talk-reply", f"{seat.pk}:{mask}:{seat.link_key}:{seat.player_id}").hexdigest()[:16]


def reply_address(seat: Seat, thread: str) -> str | None:
    """Where a reply to a message email goes: the conversation `thread`, written as `seat`'s holder."""
    if not settings.PBEM_REPLY_ADDRESS:
        return None
    local, _, domain = settings.PBEM_REPLY_ADDRESS.partition("@")
    mask = thread_mask(thread)
    return f"{local}+t{seat.pk}x{mask:x}-{reply_signature(seat, mask)}@{domain}"


# --- Sending ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameTalk:
    """One game's part of a message email or digest."""

    title: str
    id: int
    threads: tuple[EmailThread, ...]
    link: str  # the reader's signed link to the game page


def build(
    seat: Seat, games: list[GameTalk], kind: str, reply_thread: tuple[str, str] | None = None
) -> EmailMultiAlternatives:
    """A message email (kind "talk") or a digest ("talk-digest") to `seat`'s player. `reply_thread`: the
    conversation (key, name) a reply answers in, for a message email."""
    assert seat.player is not None
    reply_to = reply_address(seat, reply_thread[0]) if reply_thread else None
    context: dict[str, Any] = {
        "player": addressee(seat.player),
        "games": games,
        "count": sum(len(thread.messages) for game in games for thread in game.threads),
        "reply_in": reply_thread[1] if reply_thread and reply_to else "",
        "my_games_url": settings.SITE_URL + reverse("games-mine"),
    }
    # The one mail pipeline's rendering and composing (games/outgoing/messages.py), in the reader's zone. Sending is
    # _send_to's and send_digests': under the reader's Mailbox lock, marking what it shows seen.
    zone, language = messages.zone_of(seat.player.time_zone), messages.language_of(seat.player)
    rendered = messages.render(f"emails/{kind}", context, zone, language=language)
    # A message email belongs to the reader's thread of its game (its first email sent to them); a digest,
    # of several games, starts its own.
    to = seat.player.email
    root = first_sent(seat.game_id, [to]).get(to) if kind == "talk" else None
    thread = messages.Thread(messages.message_id(), root=root)
    # Message emails are news the reader may decline: one click moves them into the next turn email.
    return messages.compose(rendered, to, kind=kind, thread=thread, reply_to=reply_to, declinable_by=seat.player)


def _labels(game: Game) -> dict[int, str]:
    return {s.number: s.label for s in Seat.objects.filter(game=game).select_related("player")}


def _held(game_id: int, seat_number: int, player_id: int) -> Seat | None:
    """The seat, if `player_id` still holds it: a reader who left is emailed nothing more from it."""
    seat = Seat.objects.select_related("game", "player").filter(game_id=game_id, number=seat_number).first()
    return seat if seat is not None and seat.player_id == player_id else None


def _send_to(game_id: int, seat_number: int, player_id: int, now: datetime) -> bool:
    """One message email to one reader of one game, if their window allows and anything is unseen."""
    Mailbox.objects.bulk_create(
        [Mailbox(game_id=game_id, seat_number=seat_number, player_id=player_id)], ignore_conflicts=True
    )
    with transaction.atomic():
        box = Mailbox.objects.select_for_update().get(game_id=game_id, seat_number=seat_number, player_id=player_id)
        if box.last_sent_at is not None and now - box.last_sent_at < BATCH_WINDOW:
            return False  # the sweep sends them once the window has passed
        seat = _held(game_id, seat_number, player_id)
        rows = list(unseen(seat_number, player_id).filter(message__game_id=game_id).select_related("message__sender"))
        # The reader chose these emails; an address that bounced or complained gets none (games/outgoing/mailpolicy.py).
        if seat is None or not rows or not allows(seat.player, Need.NEWS, wants_news=True):
            return False
        threads = threads_of(rows, seat, seat.game, _labels(seat.game))
        latest = max(rows, key=lambda row: row.message_id).message.thread
        name = thread_name(latest, _labels(seat.game), seat.number)
        game = GameTalk(seat.game.name_later, game_id, tuple(threads), game_link(seat, seat.game))
        build(seat, [game], "talk", (latest, name)).send()
        mark_emailed([row.pk for row in rows], now)
        box.last_sent_at = now
        box.emails_sent += 1
        box.save(update_fields=["last_sent_at", "emails_sent"])
    log.info("table talk email to seat %s of game %s: %s message(s)", seat_number + 1, game_id, len(rows))
    return True


def _wants(player_ids: Iterable[int], delivery: str) -> set[int]:
    """Of `player_ids`, those whose choice is `delivery` (no choice made: at once)."""
    ids = set(player_ids)
    chosen = dict(
        Player.objects.filter(pk__in=ids, talk_settings__isnull=False).values_list("pk", "talk_settings__delivery")
    )
    return {pid for pid in ids if chosen.get(pid, Delivery.NOW) == delivery}


def send_due(game_id: int, now: datetime | None = None) -> int:
    """Email each reader of the game who gets messages at once what they have not seen, where their batch
    window has passed. Returns how many emails went out. Safe to run twice at once (the Mailbox lock)."""
    now = now or timezone.now()
    readers = set(
        Participant.objects.filter(message__game_id=game_id, seen_at__isnull=True).values_list(
            "seat_number", "player_id"
        )
    )
    now_readers = _wants((player for _, player in readers), Delivery.NOW)
    sent = 0
    for seat_number, player_id in sorted(readers):
        if player_id in now_readers:
            try:
                sent += _send_to(game_id, seat_number, player_id, now)
            except Exception as error:  # noqa: BLE001  (a provider error: the rows stay unseen, the sweep retries)
                log.warning(
                    "table talk email to seat %s of game %s failed: %s", seat_number + 1, game_id, type(error).__name__
                )
    return sent


def sweep(now: datetime | None = None) -> int:
    """The games with messages waiting for a reader's email (written in the last SWEEP_SINCE): sent what is
    due. Run by beat every sweep interval; what the message's own task found inside a window goes here."""
    now = now or timezone.now()
    games = (
        Participant.objects.filter(seen_at__isnull=True, message__sent_at__gt=now - SWEEP_SINCE)
        .values_list("message__game_id", flat=True)
        .distinct()
    )
    return sum(send_due(game_id, now) for game_id in sorted(set(games)))


def send_digests(now: datetime | None = None) -> int:
    """Once a day: each reader who chose the digest gets one email with what they have not seen, every game."""
    now = now or timezone.now()
    waiting = Participant.objects.filter(seen_at__isnull=True, player__talk_settings__delivery=Delivery.DIGEST)
    sent = 0
    for player_id in sorted(set(waiting.values_list("player_id", flat=True))):
        with transaction.atomic():
            rows = list(
                waiting.filter(player_id=player_id)
                .select_for_update(of=("self",), skip_locked=True)
                .select_related("message__sender", "message__game")
                .order_by("message_id")[:DIGEST_MAX]
            )
            games: list[GameTalk] = []
            seat = None
            for game_id in sorted({row.message.game_id for row in rows}):
                of_game = [row for row in rows if row.message.game_id == game_id]
                held = _held(game_id, of_game[0].seat_number, player_id)
                if held is None or not allows(held.player, Need.NEWS, wants_news=True):
                    continue
                seat = seat or held
                threads = threads_of(of_game, held, held.game, _labels(held.game))
                games.append(GameTalk(held.game.name_later, game_id, tuple(threads), game_link(held, held.game)))
            if seat is None:
                continue
            build(seat, games, "talk-digest").send()
            # Rows of a seat the reader left are closed too: they would never be emailed.
            mark_emailed([row.pk for row in rows], now)
            sent += 1
    return sent


@receiver(extensions.news_declined, sender=Player)
def on_news_declined(player: Player, now: datetime, **kwargs: Any) -> bool:
    """A one-click unsubscribe: messages come inside the player's next turn email, the least mail that still
    lets them play and read their table."""
    changed = TalkSettings.objects.filter(player=player).exclude(delivery=Delivery.TURN).update(delivery=Delivery.TURN)
    _, created = TalkSettings.objects.get_or_create(player=player, defaults={"delivery": Delivery.TURN})
    return bool(changed or created)
