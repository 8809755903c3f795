"""What a lobby page or email may know of a table, as plain frozen values (as games/outgoing/facts.py does for a
game): no model instance reaches a template. Invited addresses are shown to the table's creator only (who
typed them); everyone else sees "invited"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, ngettext

from games import extensions, words
from games.engines import get_engine
from games.engines.base import OptionSpec
from games.lobby.models import Table, TableSeat


@dataclass(frozen=True)
class SeatLine:
    number: int  # from 1, as people count
    label: str  # a player's name as the table sees it, or what the seat waits for
    state: str  # taken, invited, open or bot
    creator: bool = False
    you: bool = False


@dataclass(frozen=True)
class TableFacts:
    key: str
    url: str  # the table's page, absolute (emails carry it)
    title: str
    engine_title: str
    rules_url: str
    options: tuple[str, ...]  # "what: chosen" for each option
    deadlines: str
    start_by: datetime
    status: str
    creator: str
    private: bool
    bots_fill: bool
    size: int
    seats: tuple[SeatLine, ...]
    seats_left: int  # seats nobody holds yet: open or waiting for an invitee's answer
    open_seats: int  # seats anyone who may see the table can take now
    game_id: int | None
    why_cancelled: str


def table_url(table: Table) -> str:
    return settings.SITE_URL + reverse("lobby-table", args=[table.key])


def deadlines_text(table: Table) -> str:
    if table.daily_at is not None:
        at = f"{table.daily_at:%H:%M} ({table.time_zone})"
        return ngettext(
            "Each turn ends at %(at)s, at least %(hours)d hour after it opens",
            "Each turn ends at %(at)s, at least %(hours)d hours after it opens",
            hours(table),
        ) % {"at": at, "hours": hours(table)}
    return ngettext(
        "Each turn lasts %(hours)d hour (or less, when every order is in)",
        "Each turn lasts %(hours)d hours (or less, when every order is in)",
        hours(table),
    ) % {"hours": hours(table)}


def hours(table: Table) -> int:
    return int(table.phase_length.total_seconds() // 3600)


# The press options' labels are written for the admin's JSON box ("yes: every message..."): a player reads these.
SHORT_LABELS = {
    "press": gettext_lazy("Table talk"),
    "publish_press": gettext_lazy("Every message, private ones too, shown once the game is over"),
}


def option_label(spec: OptionSpec) -> str:
    """An option's name for a player: the press options' own, an engine's label without its parenthesis."""
    label = str(SHORT_LABELS.get(spec.name) or words.render(spec.label).split(" (")[0])
    return label[0].upper() + label[1:]


def option_lines(table: Table) -> tuple[str, ...]:
    """Each option the creator could set, as its label and the value chosen ("default" where left blank)."""
    engine = get_engine(table.engine)
    lines = []
    for spec in (*extensions.game_options(), *engine.options):
        value = table.options.get(spec.name)
        if spec.kind == "seat-list":
            lines.append(f"{option_label(spec)}: {seat_values(value)}")
            continue
        shown = {choice.value: words.render(choice.label) for choice in spec.choices}.get(str(value), value)
        if value in (None, ""):
            shown = gettext("default")  # (outside the f-string, where makemessages finds it)
        lines.append(f"{option_label(spec)}: {shown}")
    return tuple(lines)


def seat_values(chosen: object) -> str:
    """A per-seat option's values in words: "seat 1 Romans, seat 3 Persians, the others dealt at random"."""
    named = [
        gettext("seat %(number)s %(value)s") % {"number": n, "value": value}
        for n, value in enumerate(chosen if isinstance(chosen, list) else [], 1)
        if value
    ]
    if not named:
        return gettext("dealt at random")
    if isinstance(chosen, list) and len(named) < len(chosen):
        return gettext("%(seats)s, the others dealt at random") % {"seats": ", ".join(named)}
    return ", ".join(named)


def seat_label(seat: TableSeat, creator_view: bool, status: str = Table.Status.OPEN) -> str:
    if seat.state == TableSeat.State.TAKEN and seat.player is not None:
        return seat.player.display_name
    if status == Table.Status.CANCELLED:  # a cancelled table offers nothing: no seat to take, no answer awaited
        return gettext("Empty")
    if seat.state == TableSeat.State.INVITED:
        address = seat.invitation.address if creator_view and seat.invitation else ""
        if address:
            return gettext("Invited: %(address)s, waiting for an answer") % {"address": address}
        return gettext("Invited, waiting for an answer")
    if seat.state == TableSeat.State.BOT:
        return gettext("Bot")
    return gettext("Open: anyone signed in may take it")


def table_facts(table: Table, viewer_id: int | None = None) -> TableFacts:
    """The table as `viewer_id` (a Player's id, or None) may see it."""
    engine = get_engine(table.engine)
    seats = list(table.seats.select_related("player", "invitation").order_by("number"))
    creator_view = viewer_id == table.creator_id
    lines = tuple(
        SeatLine(
            number=seat.number + 1,
            label=seat_label(seat, creator_view, table.status),
            state=seat.state,
            creator=seat.player_id == table.creator_id and seat.player_id is not None,
            you=viewer_id is not None and seat.player_id == viewer_id,
        )
        for seat in seats
    )
    return TableFacts(
        key=table.key,
        url=table_url(table),
        title=table.title or words.game_title_later(engine.title),
        engine_title=words.game_title_later(engine.title),
        rules_url=settings.SITE_URL + reverse("games-rules", args=[table.engine]),
        options=option_lines(table),
        deadlines=deadlines_text(table),
        start_by=table.start_by,
        status=table.status,
        creator=table.creator.display_name,
        private=table.private,
        bots_fill=table.bots_fill,
        size=table.size,
        seats=lines,
        seats_left=sum(line.state in (TableSeat.State.OPEN, TableSeat.State.INVITED) for line in lines),
        open_seats=sum(line.state == TableSeat.State.OPEN for line in lines),
        game_id=table.game_id,
        why_cancelled=table.why_cancelled,
    )
