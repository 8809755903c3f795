"""Table talk as emails show it, for the message emails and digests (games/talk/mail.py) and the turn emails
(their section, `SECTION`, which the core's game emails read through games/extensions.py): the messages a
reader has not seen, by conversation, their text with its links broken up so that no mail client makes them
clickable."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from games import words
from games.engines import get_engine
from games.extensions import EmailSection
from games.models import Game, Seat
from games.talk.models import TABLE, Participant
from games.talk.page import MessageLine, thread_name

# What a mail client turns into a link: an address with a scheme, www., a domain name, an email address.
LINKISH = re.compile(
    r"(?i)\b(?:[a-z][a-z0-9+.-]*://\S+|www\.\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b\S*)"
)
BREAK = "\u200b"  # a zero-width space: invisible, and no client links across it


def unlinkable(text: str) -> str:
    """`text` with every link-like word broken after its dots, colons and @, so that no mail client links it."""

    def broken(match: re.Match[str]) -> str:
        return re.sub(r"([.:@])", lambda m: m.group(1) + BREAK, match.group())

    return LINKISH.sub(broken, text)


@dataclass(frozen=True)
class EmailThread:
    name: str
    messages: tuple[MessageLine, ...]


def unseen(seat_number: int, player_id: int) -> QuerySet[Participant]:
    return Participant.objects.filter(seat_number=seat_number, player_id=player_id, seen_at__isnull=True)


def threads_of(rows: Iterable[Participant], seat: Seat, game: Game, labels: dict[int, str]) -> list[EmailThread]:
    """The messages of `rows` (with their message and its sender) by conversation, the table first, each
    oldest first, as the reader at `seat` of `game` sees them (`labels`: the table's names by seat number)."""
    engine = get_engine(game.engine)
    by_thread: dict[str, list[MessageLine]] = {}
    for row in sorted(rows, key=lambda r: r.message_id):
        message = row.message
        line = MessageLine(
            id=message.pk,
            author=message.sender.name or gettext("Seat %(number)s") % {"number": message.sender_seat + 1},
            author_title=words.render(engine.seat_name(game.state, message.sender_seat)),
            text=unlinkable(message.text),
            sent_at=message.sent_at,
            mine=False,
            reportable=True,
        )
        by_thread.setdefault(message.thread, []).append(line)
    keys = sorted(by_thread, key=lambda key: (key != TABLE, by_thread[key][-1].id))
    return [EmailThread(thread_name(key, labels, seat.number), tuple(by_thread[key])) for key in keys]


Unseen = dict[tuple[int, int], list[Participant]]


def unseen_in(game_ids: Collection[int]) -> dict[int, Unseen]:
    """Every reader's messages not seen yet, by game and then by (seat number, player id): one query for a
    batch of turn emails, whatever its size and however many games it spans."""
    found: dict[int, Unseen] = {}
    if not game_ids:
        return found
    rows = Participant.objects.filter(message__game_id__in=game_ids, seen_at__isnull=True).select_related(
        "message__sender"
    )
    for row in rows:
        found.setdefault(row.message.game_id, {}).setdefault((row.seat_number, row.player_id), []).append(row)
    return found


def unseen_threads(
    unseen_rows: Unseen, seat: Seat, game: Game, labels: dict[int, str]
) -> tuple[list[EmailThread], list[int]]:
    """What a turn email lists of table talk: the messages its reader has not seen yet (of `unseen_rows`,
    `unseen_in(game)`), and their inbox rows (`mark_emailed` once the email is sent)."""
    rows = unseen_rows.get((seat.number, seat.player_id or 0), [])
    return threads_of(rows, seat, game, labels), [row.pk for row in rows]


def mark_emailed(row_ids: list[int], at: datetime | None = None) -> int:
    if not row_ids:
        return 0
    return Participant.objects.filter(pk__in=row_ids, seen_at__isnull=True).update(seen_at=at or timezone.now())


# The turn emails' section of table talk not read yet (registered with games/extensions.py, `turn_email`).
SECTION = EmailSection(
    html="emails/_talk-section.html",
    text="emails/_talk-section.txt",
    gather=unseen_in,
    content=unseen_threads,
    sent=mark_emailed,
)
