"""Writing and reading table talk. Every refusal is a Refused whose message the writer reads as it is, and
stores nothing; no refusal and no log line quotes a message's text or names a private thread's seats to
anyone but its writer."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Collection
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import extensions
from games.models import Game, Player, Seat
from games.outgoing.dispatch import after_commit, task_name
from games.talk.models import TABLE, Message, Participant, Report, Share, thread_key, thread_seats
from games.talk.options import NONE, press_of

log = logging.getLogger(__name__)
# Emails the game's readers who get messages at once (games/talk/mail.py; bound in games/talk/tasks.py).
SEND_TALK = task_name("talk.tasks.send_talk")

MAX_LENGTH = 2000
# Per seat: at most RATE_COUNT messages in any RATE_WINDOW, so one seat cannot flood the table's inboxes.
RATE_COUNT = 10
RATE_WINDOW = timedelta(minutes=10)
# Text only: tabs and line breaks, no other control or formatting character (they can hide or reorder text).
FORBIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
TABLE_ONLY = gettext_lazy("In this game messages go to the whole table; private messages are not allowed.")


class Refused(Exception):
    """A message that was not stored, or a report or share that was not made; the reason is for its writer.
    `field` names the form's field at fault ("text", "to"), if one is."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.field = field


def clean_text(text: str) -> str:
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n")).strip()
    if not text:
        raise Refused(_("A message needs some text."), "text")
    if len(text) > MAX_LENGTH:
        raise Refused(
            _("A message can be at most %(MAX_LENGTH)s characters; this one has %(count)s.")
            % {"MAX_LENGTH": MAX_LENGTH, "count": len(text)},
            "text",
        )
    if FORBIDDEN.search(text) or any(unicodedata.category(c) == "Cf" for c in text):
        raise Refused(_("A message is plain text: it may not hold control or formatting characters."), "text")
    return text


def _recipients(seats: dict[int, Seat], sender: int, to: Collection[int]) -> set[int]:
    chosen = set(to)
    for number in sorted(chosen):
        seat = seats.get(number)
        if seat is None:
            raise Refused(_("There is no seat %(number)s at this table.") % {"number": number + 1}, "to")
        if number == sender:
            raise Refused(_("You cannot write privately to yourself."), "to")
        if seat.is_bot or seat.player_id is None:
            raise Refused(
                _("%(label)s is not held by a player, so nobody would read your message.") % {"label": seat.label}, "to"
            )
    return chosen


def post(
    seat: Seat, player: Player | None, text: str, to: Collection[int] = (), now: datetime | None = None
) -> Message:
    """Write `text` from `seat` (held by `player`) to the table, or privately to the seats numbered `to`.
    Refused, having stored nothing, when the game is over or allows no such message, the writer no longer
    holds the seat, the text is empty, too long or not plain text, a recipient is not a player at the table,
    or the seat wrote RATE_COUNT messages in the last RATE_WINDOW."""
    now = now or timezone.now()
    with transaction.atomic():
        # The seat's row lock puts a seat's messages one after the other, so the rate limit holds under
        # concurrent posts, and a replacement (which locks it too) cannot slip in between check and write.
        locked = Seat.objects.select_for_update(of=("self",)).select_related("game", "player").get(pk=seat.pk)
        game = locked.game
        if game.status == Game.Status.FINISHED:
            raise Refused(_("This game is over: no more messages can be written."))
        if player is None or locked.player_id != player.pk:
            raise Refused(_("You no longer hold this seat, so you cannot write for it."))
        press = press_of(game.options)
        if press.mode == NONE:
            raise Refused(_("This game is played without table talk."))
        if to and not press.private_allowed:
            raise Refused(str(TABLE_ONLY), "to")
        text = clean_text(text)
        seats = {s.number: s for s in Seat.objects.filter(game=game).select_related("player")}
        recipients = _recipients(seats, locked.number, to)
        recent = Message.objects.filter(game=game, sender_seat=locked.number, sent_at__gt=now - RATE_WINDOW)
        if recent.count() >= RATE_COUNT:
            minutes = int(RATE_WINDOW.total_seconds() // 60)
            raise Refused(
                _("You can write at most %(RATE_COUNT)s messages in %(minutes)s minutes; try again shortly.")
                % {"RATE_COUNT": RATE_COUNT, "minutes": minutes}
            )
        thread = thread_key(recipients | {locked.number}) if recipients else TABLE
        message = Message.objects.create(
            game=game, thread=thread, sender_seat=locked.number, sender=player, text=text, sent_at=now
        )
        readers = recipients | {locked.number} if recipients else set(seats)
        Participant.objects.bulk_create(
            Participant(
                message=message,
                seat_number=n,
                player=seats[n].player,
                seen_at=now if n == locked.number else None,  # the writer has read their own message
            )
            for n in sorted(readers)
            if seats[n].player_id is not None and not seats[n].is_bot
        )
        after_commit(SEND_TALK, game.pk)
        # The notice of it to its readers' own channels (games.extensions), never its text nor its writer.
        told = tuple(s.player for n, s in seats.items() if n in readers and n != locked.number and s.player)
        extensions.notice_due.send(sender=Game, kind="talk", game=game, players=told, now=now)
    log.info("message %s written in game %s", message.pk, game.pk)  # never the text nor the thread
    return message


def _reads(seat_number: int, player_id: int) -> Q:
    """The messages the player at `seat_number` may read: table talk, those written to or by them while
    they held the seat, and those shared with them."""
    participant = Participant.objects.filter(message=OuterRef("pk"), seat_number=seat_number, player_id=player_id)
    sharer_read = Participant.objects.filter(
        message=OuterRef(OuterRef("pk")), seat_number=OuterRef("by_seat"), player_id=OuterRef("by_player")
    )
    shared = Share.objects.filter(
        game=OuterRef("game"),
        thread=OuterRef("thread"),
        seat_number=seat_number,
        player_id=player_id,
        upto__gte=OuterRef("pk"),
    ).filter(Exists(sharer_read))
    return Q(thread=TABLE) | Exists(participant) | Exists(shared)


def visible(game: Game, seat: Seat | None) -> QuerySet[Message]:
    """Every message of `game` the reader may read: `seat` is the seat this browser or email speaks for
    (with its current player), None for a spectator. Once a game with publish_press is over, everyone
    reads everything; otherwise a spectator reads the table's messages only."""
    messages = Message.objects.filter(game=game)
    if game.status == Game.Status.FINISHED and press_of(game.options).published_at_end:
        return messages
    if seat is None or seat.player_id is None:
        return messages.filter(thread=TABLE)
    return messages.filter(_reads(seat.number, seat.player_id))


def mark_seen(seat: Seat, messages: Collection[int], now: datetime | None = None) -> int:
    """The reader was shown `messages` (their ids): they are no longer news for their emails."""
    if seat.player_id is None or not messages:
        return 0
    unseen = Participant.objects.filter(
        message_id__in=list(messages), seat_number=seat.number, player_id=seat.player_id, seen_at__isnull=True
    )
    return unseen.update(seen_at=now or timezone.now())


def report(seat: Seat, message_id: int, reason: str = "") -> Report:
    """The reader at `seat` asks the organisers to read a message written to them (not one of their own):
    from then on the admin shows it. Refused for a message they may not read or wrote themselves."""
    assert seat.player_id is not None
    message = visible(seat.game, seat).filter(pk=message_id).first()
    if message is None:
        raise Refused(_("There is no such message for you to report."))
    if message.sender_seat == seat.number and message.sender_id == seat.player_id:
        raise Refused(_("You cannot report your own message."))
    reason = reason.strip()[:200]
    try:
        with transaction.atomic():
            return Report.objects.create(
                message=message, by_seat=seat.number, by_player_id=seat.player_id, reason=reason
            )
    except IntegrityError:
        raise Refused(_("You have reported this message already; the organisers can read it.")) from None


def newcomers(seat: Seat, thread: str) -> list[Seat]:
    """The seats of a private thread of `seat`'s held now by a player other than the one who wrote or read
    its messages there, and who cannot read them yet: `seat`'s holder may share the thread with them."""
    numbers = [n for n in thread_seats(thread) if n != seat.number]
    if seat.player_id is None or seat.number not in thread_seats(thread):
        return []
    mine = Participant.objects.filter(
        message__game=seat.game, message__thread=thread, seat_number=seat.number, player_id=seat.player_id
    )
    found = []
    for other in Seat.objects.filter(game=seat.game, number__in=numbers, player__isnull=False).select_related("player"):
        unread = mine.exclude(
            message__participants__seat_number=other.number, message__participants__player=other.player
        )
        already = Share.objects.filter(
            game=seat.game, thread=thread, seat_number=other.number, player=other.player, by_player_id=seat.player_id
        )
        if unread.exists() and not already.exists():
            found.append(other)
    return found


def share(seat: Seat, thread: str, with_seat: int) -> Share:
    """The holder of `seat` lets the player now at `with_seat` read the messages of `thread` they could read
    themselves up to now (written before that player sat). Refused unless that seat is a newcomer to it."""
    newcomer = next((s for s in newcomers(seat, thread) if s.number == with_seat), None)
    if newcomer is None or seat.player_id is None or newcomer.player_id is None:
        raise Refused(_("There is nothing of this conversation to share with that seat."))
    upto = Message.objects.filter(game=seat.game, thread=thread).order_by("-pk").values_list("pk", flat=True).first()
    return Share.objects.create(
        game=seat.game,
        thread=thread,
        seat_number=with_seat,
        player_id=newcomer.player_id,
        by_seat=seat.number,
        by_player_id=seat.player_id,
        upto=upto or 0,
    )
