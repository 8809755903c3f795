"""What a webhook is told, and when: the deliveries are written in the transaction that makes the news.

- A player's hooks get the notices they chose of those the core emails them (extensions.notice_due: their
  turn, a moved deadline, a reminder, each turn's result, the game's end) and table talk written to them.
- A game's or a league's hooks get its public news (extensions.phase_opened, game_finished): a turn resolved
  and what opened, it ended, with the standings; a league's hooks, that one of its games started (the
  league app's Table saved with its game: this app depends on the leagues app, whose leagues its hooks name); a
  game's hook, that the game started, when it is added during the game's first turn (it cannot exist before).

A notice says only what anyone may read: the game's name and its page's address (never a signed link: a chat
channel is read by others), the phase's name and deadline, the log's public lines, the final standings. Never
an order, a hand, a private log line, a message's text or who wrote privately to whom; a channel may be public.
Nothing is read unless some enabled hook wants the news: one query on the hooks' partial indexes otherwise. In a
resolution not even that: a game an enabled hook may concern is marked (Game.apps_attached: `attach`, as a hook is
saved or enabled, a game starts with a hooked player, a seat passes to one), and only a marked game's resolution
asks, in its own read of the phase it locks, whether any enabled hook concerns it (`concerned`, through extensions'
phase_annotations). A game no hook concerns costs the app no statement there (tests/hooks/test_idle.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse
from django.utils import dateformat, timezone
from django.utils.translation import gettext as _

from games import extensions
from games.hooks.models import Delivery, Hook, Notice
from games.leagues.models import Round, Season, Table
from games.models import Event, Game, Phase, Player, Seat, attach_apps, phase_label, unique_row
from games.outgoing.dispatch import after_commit, task_name
from games.outgoing.messages import zone_of

SEND_HOOKS = task_name("hooks.tasks.send_due")
MAX_LINES = 12

# The core's email kinds, as a player's hook chooses them.
NOTICE_OF = {
    "turn-started": Notice.TURN,
    "deadline-moved": Notice.TURN,
    "reminder": Notice.REMINDER,
    "phase-resolved": Notice.RESULT,
    "game-over": Notice.RESULT,
    "talk": Notice.TALK,
}


CONCERNED = "hooks_concerned"  # set on the game by a resolution (games/extensions.py, phase_annotations)


@cache
def _concerned_sql() -> str:
    names = {
        "phase": Phase._meta.db_table,
        "hook": Hook._meta.db_table,
        "seat": Seat._meta.db_table,
        "table": Table._meta.db_table,
        "round": Round._meta.db_table,
        "season": Season._meta.db_table,
    }
    q = {key: connection.ops.quote_name(name) for key, name in names.items()}
    game = f'{q["phase"]}."game_id"'
    # Table names from the models, quoted; nothing from outside.
    return (
        f'(EXISTS (SELECT 1 FROM {q["hook"]} h WHERE h."enabled" AND h."game_id" = {game})'  # noqa: S608
        f' OR EXISTS (SELECT 1 FROM {q["hook"]} h WHERE h."enabled" AND h."player_id" IN'
        f' (SELECT s."player_id" FROM {q["seat"]} s WHERE s."game_id" = {game}))'
        f' OR EXISTS (SELECT 1 FROM {q["hook"]} h WHERE h."enabled" AND h."league_id" IN'
        f' (SELECT se."league_id" FROM {q["table"]} t JOIN {q["round"]} r ON r."id" = t."round_id"'
        f' JOIN {q["season"]} se ON se."id" = r."season_id" WHERE t."game_id" = {game})))'
    )


def concerned() -> RawSQL:
    """Over the phase a resolution locks (the query's base table, so its own name): whether any enabled hook
    concerns its game (the game's own, its league's, or a seated player's), three EXISTS on the hooks' partial
    indexes. Written in SQL once: the same EXISTS built by the ORM cost each resolution about 1.3 ms of Python
    to compile, more than the two lookups it saves (measured 2026-12-06)."""
    return RawSQL(_concerned_sql(), (), output_field=BooleanField())  # noqa: S611 (no parameter at all)


def unconcerned(game: Game) -> bool:
    """The resolution handing us `game` read that no enabled hook concerns it; False where nobody read it (a
    reminder, a message, an organiser's action: the receiver looks for itself)."""
    return getattr(game, CONCERNED, None) is False


def game_url(game: Game) -> str:
    return settings.SITE_URL + reverse("games-game", args=[game.pk])


def when(moment: datetime, zone_name: str | None) -> str:
    local = moment.astimezone(zone_of(zone_name))
    return f"{dateformat.format(local, 'D d M Y, H:i')} {local.tzname()}"


def public_lines(game: Game, phase_number: int) -> list[str]:
    """The log's public lines of a phase (never a seat's own), capped, with how many more the page has."""
    lines = list(
        Event.objects.filter(game=game, phase_number=phase_number, seat__isnull=True)
        .order_by("seq")
        .values_list("text", flat=True)[: MAX_LINES + 1]
    )
    if len(lines) > MAX_LINES:
        return [*lines[: MAX_LINES - 1], _("... and more on the game's page.")]
    return lines


def standings(game: Game) -> list[str]:
    labels = {seat.number: seat.label for seat in Seat.objects.filter(game=game).select_related("player")}
    return [f"{row['rank']}. {labels.get(row['seat'], row['seat'])}: {row['score']}" for row in game.result]


def notice(event: str, game: Game, headline: str, lines: Sequence[str], now: datetime) -> dict[str, Any]:
    """A notice as stored with its deliveries (games/hooks/shapes.py shapes it for each kind of hook)."""
    return {
        "event": event,
        "game": {"id": game.pk, "title": game.name, "url": game_url(game)},
        "headline": headline,
        "lines": list(lines),
        "at": now.isoformat(),
    }


def player_headline(kind: str, game: Game, phase: Phase | None, opened: Phase | None, zone: str | None) -> str:
    title = game.name
    if phase is None:  # table talk
        return _("A new table-talk message for you in %(title)s: read it on the game's page.") % {"title": title}
    if kind == "turn-started":
        return _("Your turn in %(title)s: %(phase_name)s. Orders by %(when)s.") % {
            "title": title,
            "phase_name": phase.label,
            "when": when(phase.deadline, zone),
        }
    if kind == "deadline-moved":
        return _("New deadline in %(title)s: your order for %(phase_name)s is owed by %(when)s.") % {
            "title": title,
            "phase_name": phase.label,
            "when": when(phase.deadline, zone),
        }
    if kind == "reminder":
        return _("Reminder: your order in %(title)s (%(phase_name)s) is owed by %(when)s.") % {
            "title": title,
            "phase_name": phase.label,
            "when": when(phase.deadline, zone),
        }
    if kind == "phase-resolved":
        return _("%(title)s: %(phase_name)s is resolved.") % {"title": title, "phase_name": phase.label} + (
            " " + _("Now: %(phase)s.") % {"phase": opened.label} if opened else ""
        )
    if kind == "game-over":
        return _("%(title)s is over.") % {"title": title}
    return _("News in %(title)s.") % {"title": title}


def test_notice(hook: Hook) -> dict[str, Any]:
    """What "Send a test" sends: the hook's name, and My games for the link."""
    return {
        "event": "test",
        "game": {"id": 0, "title": "pbem", "url": settings.SITE_URL + reverse("games-mine")},
        "headline": _("A test from pbem: webhook %(hook_name)s works.") % {"hook_name": hook.name},
        "lines": [],
        "at": timezone.now().isoformat(),
    }


def write(hooks: Sequence[Hook], notices: dict[int, dict[str, Any]]) -> None:
    """The deliveries (`notices` by hook id), in the caller's transaction; the sender is woken after commit."""
    if not hooks:
        return
    Delivery.objects.bulk_create(Delivery(hook=hook, notice=notices[hook.pk]) for hook in hooks)
    after_commit(SEND_HOOKS)


@receiver(extensions.notice_due, dispatch_uid="hooks-player-notices")
def player_notices(
    sender: object,
    kind: str,
    game: Game,
    players: Sequence[Player],
    now: datetime,
    phase: Phase | None = None,
    opened: Phase | None = None,
    **kwargs: object,
) -> None:
    chosen = NOTICE_OF.get(kind)
    if chosen is None or not players or unconcerned(game):
        return
    found = Hook.objects.filter(player_id__in=[p.pk for p in players], enabled=True).select_related("player")
    hooks = [hook for hook in found if chosen in hook.notices]
    if not hooks:
        return
    lines: list[str] = []
    if kind == "phase-resolved" and phase is not None:
        lines = public_lines(game, phase.number)
    elif kind == "game-over":
        lines = standings(game)
    notices = {}
    for hook in hooks:
        zone = hook.player.time_zone if hook.player else None
        notices[hook.pk] = notice(kind, game, player_headline(kind, game, phase, opened, zone), lines, now)
    write(hooks, notices)


def news_hooks(game: Game) -> list[Hook]:
    """The enabled hooks of `game` and of the league it is played in."""
    league_game = Q(league__seasons__rounds__tables__game=game)
    return list(Hook.objects.filter(Q(game=game) | league_game, enabled=True).distinct())


@receiver(extensions.phase_opened, dispatch_uid="hooks-public-news")
def phase_news(sender: object, game: Game, phase: Phase, previous: Phase | None, now: datetime, **kw: object) -> None:
    if previous is None or unconcerned(game):  # a new game: no hook can name it yet (`league_game_started` tells)
        return
    hooks = news_hooks(game)
    if hooks:
        headline = _("%(game_title)s: %(previous_name)s is resolved. Now: %(phase_name)s, orders by %(when)s.") % {
            "game_title": game.name,
            "previous_name": previous.label,
            "phase_name": phase.label,
            "when": when(phase.deadline, None),
        }
        item = notice("resolved", game, headline, public_lines(game, previous.number), now)
        write(hooks, {hook.pk: item for hook in hooks})


@receiver(post_save, sender=Table, dispatch_uid="hooks-league-game-started")
def league_game_started(sender: object, instance: Table, update_fields: Any = None, **kwargs: object) -> None:
    """A league's table got its game (games/leagues/services.py start_round, in its transaction): the league's
    hooks are told it started. Its first deadline is the league's to set after this, so it is not said."""
    if instance.game is None or not update_fields or "game" not in update_fields:
        return
    hooks = list(Hook.objects.filter(league__seasons__rounds=instance.round_id, enabled=True))
    if hooks:
        game = instance.game
        row = Phase.objects.filter(game=game, number=game.phase_number).values_list("name", "message").first()
        first = phase_label(*row) if row else None
        item = notice(
            "started",
            game,
            _("%(game_title)s has started: %(first)s.") % {"game_title": game.name, "first": first},
            [],
            timezone.now(),
        )
        write(hooks, {hook.pk: item for hook in hooks})


@receiver(post_save, sender=Hook, dispatch_uid="hooks-game-hook-added")
def game_hook_added(sender: object, instance: Hook, created: bool, **kwargs: object) -> None:
    """A game's hook is added by its organiser (the admin) once the game exists, so it cannot hear the game start
    as a league's hooks do: added while the game's first turn is still open, it is told the game started, with
    that turn and its deadline (UTC). Added later, it gets the news from then on."""
    if not created or instance.game_id is None or not instance.enabled:
        return
    phase = unique_row(
        Phase.objects.select_related("game").filter(
            game_id=instance.game_id, number=1, status=Phase.Status.OPEN, game__status=Game.Status.ACTIVE
        )
    )
    if phase is not None:
        game = phase.game
        headline = _("%(game_title)s has started: %(phase_name)s, orders by %(when)s.") % {
            "game_title": game.name,
            "phase_name": phase.label,
            "when": when(phase.deadline, None),
        }
        write([instance], {instance.pk: notice("started", game, headline, [], timezone.now())})


def attach(hook: Hook) -> None:
    """Mark the games `hook` may concern as having this app's rows (Game.apps_attached), so their resolutions ask
    `concerned`: its game, or its player's games not over yet, or its league's games (the leagues app marks those
    already, as their tables get them)."""
    if hook.game_id is not None:
        games = Game.objects.filter(pk=hook.game_id)
    elif hook.player_id is not None:
        games = Game.objects.filter(seats__player_id=hook.player_id).exclude(status=Game.Status.FINISHED)
    elif hook.league_id is not None:
        games = Game.objects.filter(league_table__round__season__league_id=hook.league_id)
    else:
        return
    attach_apps(games)


@receiver(post_save, sender=Hook, dispatch_uid="hooks-games-attached")
def hook_saved(sender: object, instance: Hook, **kwargs: object) -> None:
    if instance.enabled:
        attach(instance)


def attach_if_hooked(game_id: int, players_hooks: QuerySet[Hook]) -> None:
    """A game gained players (it started, a seat changed hands): marked if one of them has an enabled hook."""
    if players_hooks.filter(enabled=True).exists():
        attach_apps(Game.objects.filter(pk=game_id))


@receiver(extensions.phase_opened, dispatch_uid="hooks-new-game-attached")
def new_game(sender: object, game: Game, previous: Phase | None, **kwargs: object) -> None:
    if previous is None:
        attach_if_hooked(game.pk, Hook.objects.filter(player__seats__game=game))


@receiver(extensions.seat_replaced, dispatch_uid="hooks-seat-attached")
def seat_replaced(sender: object, seat: Seat, **kwargs: object) -> None:
    if seat.player_id is not None:
        attach_if_hooked(seat.game_id, Hook.objects.filter(player_id=seat.player_id))


@receiver(extensions.game_finished, dispatch_uid="hooks-game-over")
def game_over(sender: object, game: Game, now: datetime, **kwargs: object) -> None:
    if unconcerned(game):
        return
    hooks = news_hooks(game)
    if hooks:
        item = notice("over", game, _("%(game_title)s is over.") % {"game_title": game.name}, standings(game), now)
        write(hooks, {hook.pk: item for hook in hooks})
