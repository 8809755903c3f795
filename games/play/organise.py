"""What an organiser does to a running game, from the admin or a league: move its deadline, pause and
resume it, resolve the open phase now with default orders, give a seat to someone else. Each goes through
the turn services (games.play.turns), so its rows, emails and signals are those of an ordinary turn."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib import messages
from django.db import transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import extensions
from games.models import Game, OutboundEmail, Phase, Seat, new_link_key
from games.outgoing.dispatch import RESOLVE_PHASE, after_commit
from games.play import endings, turns

# What an action did to several games: those it changed, and the others with why it left them.
Outcome = tuple[list[Game], list[tuple[Game, str]]]
StrOrPromise = str | Promise


@dataclass(frozen=True)
class Said:
    """One line of what an organiser's action did, at a django.contrib.messages level, for the page to show."""

    level: int
    text: str


@dataclass(frozen=True)
class Verb:
    """What an action did, said three ways (with %(count)s and %(rows)s where they name them), so that each
    language words its own sentence: 'Extended 2: #4 …; #5 ….', 'Not extended (1): #6 … (the game is over).',
    'Nothing extended: no games.'."""

    done: StrOrPromise
    not_done: StrOrPromise
    nothing: StrOrPromise


EXTENDED = Verb(
    gettext_lazy("Extended %(count)s: %(rows)s."),
    gettext_lazy("Not extended (%(count)s): %(rows)s."),
    gettext_lazy("Nothing extended: no games."),
)
PAUSED = Verb(
    gettext_lazy("Paused %(count)s: %(rows)s."),
    gettext_lazy("Not paused (%(count)s): %(rows)s."),
    gettext_lazy("Nothing paused: no games."),
)
RESUMED = Verb(
    gettext_lazy("Resumed %(count)s: %(rows)s."),
    gettext_lazy("Not resumed (%(count)s): %(rows)s."),
    gettext_lazy("Nothing resumed: no games."),
)
RESOLVED = Verb(
    gettext_lazy("Resolved %(count)s: %(rows)s."),
    gettext_lazy("Not resolved (%(count)s): %(rows)s."),
    gettext_lazy("Nothing resolved: no games."),
)


def outcome(verb: Verb, done: Sequence[object], left: Sequence[tuple[object, str]]) -> list[Said]:
    """'Extended 2: #4 …; #5 ….' and 'Not extended (1): #6 … (the game is over).': every row by name."""
    said = []
    if done:
        rows = "; ".join(map(str, done))
        said.append(Said(messages.SUCCESS, str(verb.done) % {"count": len(done), "rows": rows}))
    if left:
        rows = "; ".join(f"{row} ({why})" for row, why in left)
        said.append(Said(messages.WARNING, str(verb.not_done) % {"count": len(left), "rows": rows}))
    if not done and not left:
        said.append(Said(messages.WARNING, str(verb.nothing)))
    return said


STATE = {
    "active": gettext_lazy("it is running"),
    "paused": gettext_lazy("it is paused"),
    "finished": gettext_lazy("the game is over"),
}


def state_of(game: Game) -> str:
    """Why an action left a game as it was, in the reader's language."""
    return str(STATE.get(game.status, game.status))


def each(games: Iterable[Game], action: Callable[[Game], object]) -> Outcome:
    """Run `action` on each game (in id order); a falsy answer means it did nothing, and the game's state
    now says why (paused already, over...)."""
    done: list[Game] = []
    left: list[tuple[Game, str]] = []
    for game in sorted(games, key=lambda g: g.pk):
        if action(game):
            done.append(game)
        else:
            game.refresh_from_db(fields=["status"])
            left.append((game, state_of(game)))
    return done, left


@dataclass(frozen=True)
class Shown:
    """What an organiser's confirmation page showed of a game: its open phase, by number, and that phase's
    deadline. Yes acts on exactly that, or on nothing."""

    number: int
    deadline: datetime


class Moved(Exception):
    """The game is no longer as the organiser's page showed it: nothing was done (the message says why)."""


def extend_deadline(game: Game, by: timedelta, shown: Shown | None = None) -> Phase | None:
    """Move the open phase's deadline on by `by`. In a running game, each seat that still owes an order is
    emailed the new deadline with its link (a paused game's players hear of it when it resumes). None if the game
    has no open phase. With `shown`, what the organiser confirmed: only that phase, and only from that deadline,
    so two Extends confirmed from pages showing one deadline move it once, and one confirmed for a phase that
    resolved since moves nothing (Moved, with why). The game is locked as a resolution locks it (games.play.endings),
    so the check and the move are one step."""
    with transaction.atomic():
        locked, phase = endings.lock(game.pk)
        if locked is None or phase is None:
            return None
        if shown is not None:
            check_shown(phase, shown)
        _move(locked, phase, by)
    return phase


def check_shown(phase: Phase, shown: Shown) -> None:
    """Moved unless the open `phase` (locked) is the one the page showed, with the deadline it showed."""
    if phase.number != shown.number:
        raise Moved(
            _("phase %(number)s is no longer open (it is now %(now)s): nothing was changed; ask again")
            % {"number": shown.number, "now": phase.label}
        )
    if phase.deadline != shown.deadline:
        raise Moved(_("its deadline was moved meanwhile: nothing was changed; ask again to see the new one"))


def _move(game: Game, phase: Phase, by: timedelta) -> None:
    phase.save(update_fields=phase.move_deadline(phase.deadline + by, game.reminder_before))
    if game.status == Game.Status.ACTIVE:
        owing = set(phase.owed_seats) - turns.submitted_seats(phase)
        seats = game.seats.filter(number__in=owing, is_bot=False, player__isnull=False).select_related("player")
        turns.queue_emails(phase, turns.email_rows(game, phase, list(seats), OutboundEmail.Kind.DEADLINE_MOVED))


def extend_as_shown(games: Iterable[Game], by: timedelta, shown: Mapping[int, Shown]) -> Outcome:
    """The organiser's confirmed Extend of several games (in id order): each by `by` from what its page showed
    (`shown`, by game id); a game the page did not show, or that moved since, is left with why."""
    done: list[Game] = []
    left: list[tuple[Game, str]] = []
    for game in sorted(games, key=lambda g: g.pk):
        asked = shown.get(game.pk)
        if asked is None:
            game.refresh_from_db(fields=["status"])
            over = game.status == Game.Status.FINISHED
            left.append(
                (game, str(STATE["finished"]) if over else _("it was not on the page you confirmed: ask again"))
            )
            continue
        try:
            extended = extend_deadline(game, by, asked)
        except Moved as moved:
            left.append((game, str(moved)))
            continue
        if extended is not None:
            done.append(game)
        else:
            left.append((game, moved_on(game, asked.number)))
    return done, left


def pause_game(game: Game) -> bool:
    """Stop a running game's deadlines; False (nothing done) for a game paused already or over. Locked as a
    resolution locks the game, so its open phase is marked paused (the sweep leaves it alone) and a phase
    that a resolution opens meanwhile is opened paused (turns reads the game's status under the same lock)."""
    with transaction.atomic():
        locked, phase = endings.lock(game.pk)
        if locked is None or locked.status != Game.Status.ACTIVE:
            return False
        locked.status = Game.Status.PAUSED
        locked.paused_at = timezone.now()
        locked.save(update_fields=["status", "paused_at"])
        if phase is not None:
            phase.paused = True
            phase.save(update_fields=["paused"])
    return True


def resume_game(game: Game) -> bool:
    """Resume, giving the open phase back the time it was paused for; resolve it if it is complete. False
    (nothing done) for a game that was not paused. Locked as a resolution locks the game, so a resume and an
    Extend (or a second resume) run one after the other."""
    with transaction.atomic():
        locked, phase = endings.lock(game.pk)
        if locked is None or locked.status != Game.Status.PAUSED:
            return False
        paused_for = timezone.now() - (locked.paused_at or timezone.now())
        locked.status = Game.Status.ACTIVE
        locked.paused_at = None
        locked.save(update_fields=["status", "paused_at"])
        if phase is not None:
            phase.paused = False
            phase.save(update_fields=["paused"])
            _move(locked, phase, paused_for)
            if phase.complete_at is not None:
                after_commit(RESOLVE_PHASE, phase.pk)
    return True


def owing(game: Game, phase: Phase | None = None) -> list[Seat]:
    """The seats (with their players) that still owe an order in the game's open phase: who keeps the table
    waiting, for an organiser (never what anyone ordered). Bots play at once and are not listed."""
    phase = phase or turns.current_phase(game)
    if phase is None:
        return []
    waiting = set(phase.owed_seats) - turns.submitted_seats(phase)
    seats = game.seats.filter(number__in=waiting, is_bot=False).select_related("player")
    return list(seats.order_by("number"))


def resolve_now(game: Game, number: int | None = None) -> bool:
    """Resolve the open phase at once, the missing orders replaced by the engine's defaults. Before the
    deadline (or while paused), those defaults are excused: no seat is counted as having missed a turn
    (games.play.turns.resolve_phase). With `number`, the phase the organiser confirmed: only that one, and only
    while it is still open (False if it resolved meanwhile: the next one, whose orders are still coming, is
    left alone). The phase is pinned by its id, so a resolution finishing between the check and the call
    makes this one a no-op, never a resolution of the phase after."""
    if number is None:
        phase = turns.current_phase(game)
    else:
        phase = Phase.objects.filter(game=game, number=number, status=Phase.Status.OPEN).first()
    return phase is not None and turns.resolve_phase(phase.pk, use_defaults=True, force=True)


def moved_on(game: Game, number: int) -> str:
    """Why a confirmed "resolve now" (or Extend) did nothing: the phase confirmed is no longer the open one."""
    phase = turns.current_phase(game)
    if phase is None:
        return _("phase %(number)s is no longer open: the game is over") % {"number": number}
    return _(
        "phase %(number)s is no longer open (it is now %(now)s): nothing was resolved; ask again to resolve it"
    ) % {
        "number": number,
        "now": phase.label,
    }


def holder_of(seat: Seat) -> str:
    """Who holds the seat, as the seat's page names it to the organiser replacing them (its hidden `holder`)."""
    return str(seat.player_id) if seat.player_id else "none"


def replace_player(seat: Seat, email: str, name: str = "", shown_holder: str | None = None) -> Seat:
    """Give the seat to another person. The seat's link key changes, so links already sent stop working;
    the newcomer gets the current turn's email if the seat owes an order. `shown_holder`: the holder the
    organiser's page showed (holder_of); if the seat changed hands since (another organiser, a standby
    player's claim), ValueError and nothing changes, so two replacements at once give the seat once."""
    with transaction.atomic():
        seat = Seat.objects.select_for_update().select_related("game").get(pk=seat.pk)
        if shown_holder is not None and holder_of(seat) != shown_holder:
            now = seat.player.display_name if seat.player else _("nobody")
            raise ValueError(
                _(
                    "Seat %(seat)s changed hands after this page was shown (%(holder)s holds it now): nothing was "
                    "changed; look at the seat again"
                )
                % {"seat": seat.number + 1, "holder": now}
            )
        player = turns.player_for(email, name)
        if seat.player_id == player.pk:
            raise ValueError(_("%(email)s already holds this seat: nothing was changed.") % {"email": email})
        if Seat.objects.filter(game=seat.game, player=player).exclude(pk=seat.pk).exists():
            raise ValueError(_("%(email)s already sits in this game.") % {"email": email})
        previous, seat.player = seat.player, player
        seat.is_bot = seat.bot_plays_defaults = False
        seat.link_key = new_link_key()
        seat.save(update_fields=["player", "is_bot", "bot_plays_defaults", "link_key"])
        extensions.seat_replaced.send(sender=Seat, seat=seat, previous=previous, now=timezone.now())
        phase = turns.current_phase(seat.game)
        if phase is not None and phase.owes(seat.number):
            # A fresh row even if the seat was emailed before: the old email's links are dead.
            OutboundEmail.objects.filter(phase=phase, seat=seat, kind=OutboundEmail.Kind.TURN_STARTED).delete()
            turns.queue_emails(phase, turns.email_rows(seat.game, phase, [seat], OutboundEmail.Kind.TURN_STARTED))
    return seat
