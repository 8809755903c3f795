"""Games and phases: create a game, resolve a phase exactly once, open the next one with its outbox rows.

Every path comes through here (the web, email replies, bots, the organisers' actions in games/play/organise.py,
the sweep's tasks), so each keeps the same guarantees: a phase resolves exactly once, under a row lock,
writing the new state, the log, the next phase and its outbox rows in one transaction. Orders are taken by
games/play/orders.py, one call per intent.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, FilteredRelation, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from games import extensions, words
from games.engines import get_engine
from games.engines.base import Engine, Standing
from games.extensions import split_options
from games.models import BotLevel, Event, Game, Order, OutboundEmail, Phase, Player, Seat, unique_row
from games.outgoing import mailpolicy
from games.outgoing.dispatch import PLAY_BOTS, after_commit
from games.outgoing.emails import wake_sender as wake_email_sender
from games.play import turn_sql

log = logging.getLogger(__name__)


def result_row(standing: Standing) -> dict[str, Any]:
    """A final standing as Game.result keeps it: `detail` in English, `detail_message` its message (rendered in
    each reader's language by games/outgoing/facts.py; a result stored before there were messages has none)."""
    return {
        "seat": standing.seat,
        "score": standing.score,
        "rank": standing.rank,
        "detail": str(standing.detail),
        "detail_message": words.message(standing.detail),
    }


def phase_rng(game: Game, phase_number: int) -> random.Random:
    # Seeding from a string is stable across runs and Python versions (it is hashed with SHA-512).
    return random.Random(f"{game.seed}:{phase_number}")


def engine_of(game: Game) -> Engine:
    return get_engine(game.engine)


# --- Creating games --------------------------------------------------------------------------------


def player_for(email: str, name: str = "") -> Player:
    player, created = Player.objects.get_or_create(email=email.strip().lower(), defaults={"name": name})
    if not created and name and not player.name:
        player.name = name
        player.save(update_fields=["name"])
    return player


def create_game(
    engine_slug: str,
    players: Sequence[Player | None],
    *,
    options: dict[str, Any] | None = None,
    phase_length: timedelta | None = None,
    reminder_before: timedelta | None = None,
    seed: int | None = None,
    title: str = "",
    autopilot: Collection[int] = (),
    bot_levels: Sequence[str] = (),
) -> Game:
    """A new game with one seat per entry of `players` (None is a bot), its first phase open and the
    first emails queued. Seats numbered in `autopilot` are played by the bot although a player sits
    there and receives the emails (simulations, a player who asked to be replaced by a bot). A bot seat
    plays at its level in `bot_levels` (by seat number; random where it names none).
    Raises ValueError for a bad player count or bad options."""
    engine = get_engine(engine_slug)
    if not engine.min_players <= len(players) <= engine.max_players:
        raise ValueError(
            gettext("%(game)s takes %(least)s to %(most)s players, not %(count)s.")
            % {
                "game": words.game_title(engine.title),
                "least": engine.min_players,
                "most": engine.max_players,
                "count": len(players),
            }
        )
    humans = [p.pk for p in players if p is not None]
    if len(humans) != len(set(humans)):
        raise ValueError(gettext("A player can sit only once at a table."))
    # The apps' options (table talk's press) are not the engine's (games/extensions.py, game_options): checked
    # here, stored beside the engine's as given (a game without them has the defaults).
    options = dict(options or {})
    seed = seed if seed is not None else secrets.randbits(62)
    try:
        engine_options, _ = split_options(options)
        state = engine.setup(len(players), engine_options, random.Random(f"{seed}:0"))
    except ValueError as error:  # the engine's refusal of an option: its message, in the active language
        raise ValueError(words.refusal(error)) from None
    if phase_length is None:
        phase_length = timedelta(hours=settings.PBEM_DEFAULT_DEADLINE_HOURS)
    if reminder_before is None:
        # The reminder's lead time, but never more than half the phase (see Phase.reminder_time).
        reminder_before = min(timedelta(hours=settings.PBEM_REMINDER_HOURS), phase_length / 2)
    with transaction.atomic():
        game = Game.objects.create(
            engine=engine_slug,
            title=title,  # blank: the game is called by its game's name in each reader's language
            options=options,
            seed=seed,
            state=state,
            phase_length=phase_length,
            reminder_before=reminder_before,
        )
        seats = Seat.objects.bulk_create(
            Seat(
                game=game,
                number=n,
                player=p,
                is_bot=p is None or n in autopilot,
                bot_level=bot_levels[n] if n < len(bot_levels) else BotLevel.RANDOM,
            )
            for n, p in enumerate(players)
        )
        _open_next_phase(game, seats, state, previous=None, now=timezone.now())
    return game


def submitted_seats(phase: Phase) -> set[int]:
    return set(Order.objects.filter(phase=phase).values_list("seat__number", flat=True))


# --- Resolution ------------------------------------------------------------------------------------


def resolve_phase(
    phase_id: int, *, use_defaults: bool = False, force: bool = False, overdue_at: datetime | None = None
) -> bool:
    """Resolve an open phase once. Without `use_defaults` it waits for every owed order; with it, missing
    orders become the engine's default orders. A paused game resolves only when `force`d (the organiser's
    "resolve now"). With `overdue_at` (the sweep's time) it resolves only a phase whose deadline had passed
    then: one extended since the sweep found it is left to its new deadline. Returns whether this call
    resolved the phase; calling it again, or concurrently, is harmless.

    A default order is a missed turn, unless its seat is not to blame: the organiser forced the phase before
    its deadline (or while the game was paused), or an app excuses the seat (a league member's vacation).
    Those default orders are marked `excused`: the same order is played, but it is no miss."""
    now = timezone.now()
    with transaction.atomic():
        phase = _locked_phase(phase_id)
        if phase is None or phase.status != Phase.Status.OPEN:
            return False
        if overdue_at is not None and phase.deadline > overdue_at:
            return False
        game = phase.game
        if game.status == Game.Status.FINISHED or (game.status == Game.Status.PAUSED and not force):
            return False
        engine = engine_of(game)
        # The seats with this phase's sealed orders in one read (a LEFT JOIN), not two.
        seats = turn_sql.seats(game, phase)
        if seats is None:
            seats = list(
                game.seats.select_related("player")
                .annotate(
                    sealed=FilteredRelation("orders", condition=Q(orders__phase=phase)),
                    sealed_id=F("sealed__id"),
                    sealed_data=F("sealed__data"),
                    sealed_default=F("sealed__is_default"),
                )
                .order_by("number")
            )
        by_seat: dict[int, dict[str, Any]] = {}
        defaults: list[Order] = []
        for number in phase.owed_seats:
            seat = seats[number]
            if seat.sealed_id is not None:
                by_seat[number] = seat.sealed_data
            elif use_defaults:
                by_seat[number] = engine.default_order(game.state, number)
                defaults.append(Order(phase=phase, seat=seat, data=by_seat[number], is_default=True))
            else:
                return False
        if defaults:
            missing = [order.seat.number for order in defaults]
            early = force and (now < phase.deadline or game.status == Game.Status.PAUSED)
            excused = set(missing) if early else extensions.excused(game, phase, missing, now)
            for order in defaults:
                order.excused = order.seat.number in excused
        Order.objects.bulk_create(defaults)
        state, events = engine.resolve(game.state, by_seat, phase_rng(game, phase.number))
        lines = [
            Event(
                game=game,
                phase_number=phase.number,
                seq=game.event_count + i,
                seat=event.seat,
                text=str(event.text),
                message=words.message(event.text),
                data=event.data,
            )
            for i, event in enumerate(events, start=1)
        ]
        game.event_count += len(events)
        phase.status = Phase.Status.RESOLVED
        phase.resolved_at = now
        # Default orders played in advance for an unreachable player count as missed too (leagues' substitutes).
        phase.used_defaults = bool(defaults) or any(seats[n].sealed_default for n in phase.owed_seats)
        # Nothing is due any more. Clearing them keeps the columns null but for the few phases due, so the
        # planner's estimates send the sweep through their partial indexes.
        phase.complete_at = phase.bots_due_at = phase.remind_at = None
        _open_next_phase(game, seats, state, previous=phase, now=now, lines=lines)
    log.info("phase resolved: game %s phase %s defaults=%s", game.pk, phase.number, len(defaults))
    return True


def _locked_phase(phase_id: int) -> Phase | None:
    """The open phase a resolution locks, with its game (both rows locked), and what the apps read with it: asked
    only of a game an app has rows about (Game.apps_attached); any other is handed their answers as
    extensions.unattached gives them. On PostgreSQL the lock is written by hand (games/play/turn_sql.py) and a
    marked game's apps are asked in a second read; elsewhere the ORM asks them with the lock."""
    handwritten, phase = turn_sql.locked_phase(phase_id)
    if handwritten and (phase is None or not phase.game.apps_attached):
        if phase is not None:
            extensions.unattached(phase.game)
        return phase
    annotations = extensions.phase_annotations()
    phase = unique_row(
        Phase.objects.select_for_update(no_key=True, of=("self", "game"))
        .select_related(*extensions.phase_related())  # only the phase and game rows are locked
        .annotate(**annotations)
        .filter(pk=phase_id)
    )
    if phase is not None:
        for name in annotations:  # on the game row the signals hand their receivers
            setattr(phase.game, name, getattr(phase, name))
        if not phase.game.apps_attached:
            extensions.unattached(phase.game)
    return phase


# What a resolution writes of the phase it resolved (resolve_phase).
RESOLVED = ["status", "resolved_at", "used_defaults", "complete_at", "bots_due_at", "remind_at"]


def _store(game: Game, fields: list[str], previous: Phase | None, lines: Sequence[Event], opened: Phase | None) -> None:
    """A turn's rows: the log's new `lines`, the resolved phase (`previous`: its RESOLVED fields), the game's
    `fields` and the phase `opened` (if any). A resolution's in two statements on PostgreSQL (turn_sql.write_turn),
    through the ORM elsewhere and for a new game's first phase."""
    if previous is not None and turn_sql.write_turn(game, fields, previous, RESOLVED, lines, opened):
        return
    Event.objects.bulk_create(lines)
    if previous is not None:
        previous.save(update_fields=RESOLVED)
    game.save(update_fields=fields)
    if opened is not None:
        opened.save(force_insert=True)


def _open_next_phase(
    game: Game,
    seats: Sequence[Seat],
    state: dict[str, Any],
    previous: Phase | None,
    now: datetime,
    lines: Sequence[Event] = (),
) -> None:
    """Store the new state, the log's new `lines` and the resolved phase `previous`; open the next phase (or finish
    the game); queue its emails and bots."""
    engine = engine_of(game)
    prompts = engine.prompts(state)
    game.state = state
    emails: list[OutboundEmail] = []
    # Seats with a player get email, including a player's seat on autopilot (a bot plays its orders).
    humans = [s for s in seats if s.player is not None]
    if not prompts:
        standings = engine.outcome(state) or []
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.result = [result_row(s) for s in standings]
        assert previous is not None, "a game cannot be over before its first phase"
        _store(game, ["state", "status", "finished_at", "result", "event_count"], previous, lines, None)
        emails = email_rows(game, previous, humans, OutboundEmail.Kind.GAME_OVER)
        queue_emails(previous, emails)
        extensions.game_finished.send(sender=Game, game=game, now=now)
        return
    game.phase_number += 1
    # Bots play at once; so do seats whose player's address bounced (their default orders:
    # games/incoming/mail/bounces.py).
    bots_owed = any(seats[n].is_bot or mailpolicy.unreachable(seats[n]) for n in prompts)
    name = engine.phase_name(state)
    phase = Phase(
        game=game,
        number=game.phase_number,
        name=name,
        message=words.message(name),
        prompts={str(seat): prompt.to_json() for seat, prompt in prompts.items()},
        opened_at=now,
        bots_due_at=now if bots_owed else None,
        paused=game.status == Game.Status.PAUSED,  # a resolution forced while paused: the game's row is locked
    )
    # An app may give the phase its own deadline (a league's daily time) before it is stored.
    phase.move_deadline(extensions.phase_deadline(game, phase) or now + game.phase_length, game.reminder_before)
    _store(game, ["state", "phase_number", "event_count"], previous, lines, phase)
    owed = [seat for seat in humans if seat.number in prompts and not seat.is_bot]
    emails += email_rows(game, phase, owed, OutboundEmail.Kind.TURN_STARTED)
    if previous is not None:
        # The news of the phase to the others (a seat on autopilot too), if they chose every phase: the mail
        # policy decides (games/outgoing/mailpolicy.py). An owed-order email carries the log since the last one sent.
        others = [s for s in humans if s not in owed]
        emails += email_rows(game, previous, others, OutboundEmail.Kind.PHASE_RESOLVED, opened=phase)
    emails.sort(key=lambda row: row.seat.number)  # one email per seat; written in the seats' order
    queue_emails(phase, emails)
    extensions.phase_opened.send(sender=Game, game=game, phase=phase, previous=previous, now=now)
    if bots_owed:
        after_commit(PLAY_BOTS, phase.pk)


def email_row(game: Game, phase: Phase, seat: Seat, kind: str) -> OutboundEmail:
    assert seat.player is not None
    return OutboundEmail(
        game=game, phase=phase, seat=seat, kind=kind, to=seat.player.email, events_upto=game.event_count
    )


def email_rows(
    game: Game, phase: Phase, seats: Sequence[Seat], kind: str, opened: Phase | None = None
) -> list[OutboundEmail]:
    """The outbox rows of `kind` for `seats`, but those the apps' preferences decline (games/outgoing/mailpolicy.py):
    asked before anything is written. `opened`: for the news of `phase`, the phase that opened after it."""
    players = tuple(seat.player for seat in seats if seat.player is not None)
    if not players:
        return []
    # The same notice to the apps' own channels (a player's webhooks), whatever emails the players chose.
    extensions.notice_due.send(
        sender=Game, kind=kind, game=game, players=players, phase=phase, opened=opened, now=timezone.now()
    )
    ask = extensions.EmailAsk(kind=kind, players=players, game=game, phase=phase, opened=opened)
    declined = mailpolicy.declined(ask)
    return [email_row(game, phase, seat, kind) for seat in seats if seat.player_id not in declined]


def queue_emails(phase: Phase, emails: list[OutboundEmail]) -> None:
    if not emails:
        return
    if not turn_sql.insert(emails, ignore_conflicts=True):
        OutboundEmail.objects.bulk_create(emails, ignore_conflicts=True)
    wake_email_sender()


# --- Bots ------------------------------------------------------------------------------------------


# --- Organisers' actions ---------------------------------------------------------------------------


def current_phase(game: Game) -> Phase | None:
    phase = unique_row(Phase.objects.filter(game=game, number=game.phase_number, status=Phase.Status.OPEN))
    if phase is not None:
        phase.game = game  # the caller's row: reading phase.game costs no query
    return phase


def visible_events(game: Game, seat_number: int | None) -> QuerySet[Event]:
    """The log as `seat_number` may read it: public lines and that seat's own."""
    events = Event.objects.filter(game=game)
    if seat_number is None:
        return events.filter(seat__isnull=True)
    return events.filter(Q(seat__isnull=True) | Q(seat=seat_number))
