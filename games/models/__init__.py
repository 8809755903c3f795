"""What the server stores, one module per kind of row, all of the app `games` (the tables and migrations are those of
the single models.py this package replaced): games.py (players, games, seats, phases, sealed orders, the log),
mail.py (the outboxes, the replies already read, the senders' wake-up calls, the IMAP mailbox's cursor) and
queries.py (one row or none; a seat with its open phase; claiming due rows in batches). Import them from here: `from
games.models import Game, claim`."""

from games.models.games import (
    BotLevel,
    Event,
    Game,
    Order,
    Phase,
    Player,
    Seat,
    SweepMark,
    new_link_key,
    phase_label,
)
from games.models.mail import (
    MAX_ATTEMPTS,
    MailboxCursor,
    MailRow,
    MailStatus,
    OutboundEmail,
    ReadReply,
    Receipt,
    Wake,
    WrittenEmail,
    owed,
    unsent_index,
)
from games.models.queries import attach_apps, carried_phase, claim, posted_id, unique_row, with_open_phase

__all__ = [
    "BotLevel",
    "Event",
    "Game",
    "MAX_ATTEMPTS",
    "MailboxCursor",
    "MailRow",
    "MailStatus",
    "Order",
    "OutboundEmail",
    "Phase",
    "Player",
    "ReadReply",
    "Receipt",
    "Seat",
    "SweepMark",
    "Wake",
    "WrittenEmail",
    "attach_apps",
    "carried_phase",
    "claim",
    "new_link_key",
    "owed",
    "phase_label",
    "posted_id",
    "unique_row",
    "unsent_index",
    "with_open_phase",
]
