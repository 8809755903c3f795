"""Where another app extends the core: each point is declared here, an app fills it in from its
AppConfig.ready(), and the core reads it without naming the app. With nothing registered the core works the
same (tests/test_core_alone.py runs it with the leagues and table talk apps removed). The plug-in apps
(games/leagues, games/talk, games/api, ...) reach the core only this way and through its services; the core's
own two outboxes register here too (games/apps.py), so there is one list of outboxes.

Signals, sent by the service layer (games.play.turns, games.play.sweep):

- `phase_opened`, with `game`, `phase`, `previous` (None for the first phase) and `now`, inside the
  transaction that opens the phase, after its outbox rows are written (they are rendered when sent);
- `deadline_passed`, with `phase_id` and `now` (the sweep's time), by the task of a phase the sweep found
  past its deadline (games/play/sweep.py), before it is resolved with default orders: a receiver returning True
  has dealt with the phase (e.g. extended its deadline);
- `game_finished`, with `game` and `now`, inside the transaction that ends the game, once its result and
  last emails are stored: a receiver tidies up what the end makes moot;
- `seat_replaced`, with `seat` (held by the newcomer now), `previous` (the Player who held it, or None) and
  `now`, by games.play.organise.replace_player inside its transaction, whoever asked for it (an organiser in the
  admin, a league's substitute claim): a receiver records who holds the seat from which phase, or refuses
  the replacement by raising ValueError with the reason (it is rolled back and the reason shown);
- `notice_due`, with `kind`, `game`, `players`, `now` and, for a game email, `phase` and `opened` (as in
  EmailAsk), whenever the core writes a notice to players (games.play.turns.email_rows: a turn email, a moved
  deadline, a reminder, a turn's result, the game's end; asked before the mail policy, so every player it is
  about is named, whatever emails they chose), and by the talk app when a message is written to them (kind
  "talk", no phase); inside the transaction that makes the news, so an app can write its own outbox rows
  there (the webhooks app: the same notice to the player's webhooks);
- `news_declined`, with `player` and `now`, inside the transaction of a one-click unsubscribe
  (games/outgoing/mailpolicy.py): a receiver lowers its own mail choices for the player to the least that still
  lets them play, returning True if it changed any.

Declared with `register(app_label, Extension(...))`:

- `phase_related`: rows a resolution reads with the phase it locks (select_related paths from Phase, beyond
  its game: "game__..."), so a `phase_opened` receiver needs no query of its own;
- `phase_annotations`: what a resolution reads with the phase it locks as query expressions over Phase (name,
  a function making the expression, e.g. an Exists of the app's rows about the phase's game), in that same
  statement; the core sets each value on the game row it hands the resolution's signals (`game.<name>`), so
  a receiver with nothing to do there (no webhook concerns the game) learns it without a query of its own.
  Elsewhere (a reminder, an organiser's action) the attribute is missing: a receiver then looks for itself.
  Both are asked only of a game an app marked as having its rows (Game.apps_attached, games.models.attach_apps,
  in the transaction that attaches them): for any other game the resolution reads neither, and hands the game
  with each annotation False and each related row absent (`unattached`). An app whose annotation can be true, or
  whose related row can exist, for a game must have marked it;
- `games_of` / `players_of`: which games and which players a staff user is responsible for in the admin,
  beyond the games they started and those games' players (a Q over Game, a Q over Player);
- `phase_deadline`: asked when a phase opens, before it is stored: the deadline the app gives it (a
  league's daily time), or None for the game's own phase length;
- `declines`: asked before any outbox row is written (games/outgoing/mailpolicy.py): the ids of the players of an
  `EmailAsk` who must not be written that email (a member who chose fewer emails). The app may tell them
  the news its own way (the league's digest); the core writes no row for them;
- `excused`: asked when a phase resolves with default orders for missing ones: of those seats (numbers), the
  ones whose player is not to blame (a league member on a declared vacation). Their default orders are
  marked excused: not missed turns;
- `game_filters`: list filters (django.contrib.admin SimpleListFilter classes) the admin's game list adds to
  its own sidebar (a league's games, a round's);
- `outbox`: the app's own outbox table (a games.models.MailRow), so the sweep retries its failed rows and
  wakes its senders too;
- `game_options`: options every game may carry whatever its engine (OptionSpecs, as an engine declares its
  own), set in the same JSON object as the engine's: the core checks them (`split_options`) and hands the
  engine the rest (table talk's `press`);
- `game_panel`: asked by the game page (games/incoming/views.py) with the request, the game and the reader's seat
  (None for a spectator): a Panel (a template and its plain facts, games/outgoing/facts.py's rule) the page shows
  beside the table, or None (table talk's conversations; the lobby's rematch button once the game is over, games/lobby;
  the ending votes' panel, games/votes);
- `account_section`: asked when a signed-in player's My games page is drawn: an AccountSection (a template
  of one card and its context, plain values only: tests/outgoing/test_template_secrecy.py) the page shows among its
  settings, or None (how table talk reaches the player by email, the API's tokens, the webhooks, the lobby's
  tables waiting for the player);
- `seat_left`: asked by games.play.endings.leave_seat when a player gives up their seat, inside its transaction:
  True if the app found the seat a new holder its own way (a league offers it to a standby player);
  otherwise the core hands it to a bot playing the default orders;
- `ending_refused`: asked before a table may end its game early ("draw", "cancel") or a player leave it
  ("concede"): the reason the app does not allow it (a league whose organiser does not), or None;
- `guide_section`: the Markdown file the app adds at the end of every game's player's guide (/rules/<slug>/): rules
  of the app's own that hold in every game (how to start a game from the lobby, how to end one early); its
  GUIDE.<language>.md beside it, where there is one, in that language;
- `turn_email`: a section of the emails that ask a reader for an order (an `EmailSection`: table talk the
  reader has not read yet);
- `staff_time_zone`: the time zone a staff user's admin pages speak (a league organiser's: their leagues'),
  or None for the server's;
- `game_time_zones`: asked by the admin with game ids (a list's rows): the zone each of those games' times are
  shown in, by game id (a league game's: its league's), for the games the app has one for;
- `admin_home`: asked when the admin's home page is drawn, with the request: a Fragment (its template and
  context, handed as `section`) the page shows above the lists, or None (the consoles of the user's leagues).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet
from django.dispatch import Signal

from games.engines import localized
from games.engines.base import OptionSpec

if TYPE_CHECKING:  # apps import this module from their AppConfig, before the models can be
    from games.models import Game, MailRow, Phase, Player, Seat

phase_opened = Signal()
deadline_passed = Signal()
game_finished = Signal()
seat_replaced = Signal()
news_declined = Signal()
notice_due = Signal()

# A staff user (django.contrib.auth's user model) -> the rows they are responsible for.
Responsible = Callable[[Any], Q]


@dataclass(frozen=True)
class EmailAsk:
    """Emails of `kind` about to be written to `players`: for a game email, about `game` and `phase` (the
    phase it asks for or reports; for "phase-resolved", `opened` is the phase that opened after it). The
    core's mail policy answers first (games/outgoing/mailpolicy.py); the apps are asked about the players it lets
    through."""

    kind: str
    players: tuple[Player, ...]
    game: Game | None = None
    phase: Phase | None = None
    opened: Phase | None = None
    # What the email is for (games/outgoing/mailpolicy.py's Need), where its kind does not say (an app's kinds);
    # and, for news, the reader's choice where the app keeps its own (None: the player's own choice).
    need: str | None = None
    wants_news: bool | None = None


@dataclass(frozen=True)
class Outbox:
    """An outbox table and how to wake its sender after commit: `wake` is handed the `value` column of
    the rows to send (for game emails their game ids, a task per game). Rows matching `held` are kept
    pending on purpose (a digest's news) and are not stragglers; `held` may be a function of the sweep's
    time giving that condition (a webhook's retry waiting for its time). `due`, a function of the sweep's time
    and ordered by one indexed column, gives the rows whose own retry time has come and whose sender has not
    been woken since: a retry put back for less than a minute is then woken by the first sweep after its time
    if the call published for then is lost, not only by the stragglers' rule a minute after its last attempt."""

    model: type[MailRow]
    wake: Callable[[list[Any]], None]
    value: str = "pk"
    held: Q | Callable[[datetime], Q] | None = None
    due: Callable[[datetime], QuerySet[Any]] | None = None

    def held_at(self, at: datetime) -> Q:
        """The rows held at the sweep's time `at` (an empty Q, which excludes nothing, for none)."""
        return (self.held(at) if callable(self.held) else self.held) or Q()


@dataclass(frozen=True)
class Fragment:
    """A part of a page an app adds: its `template`, included with `context`. On the game page (a Panel) the
    context is plain frozen facts, handed as `panel`; on My games (an AccountSection) it is handed as `section`."""

    template: str
    context: Any
    # On My games: a card about games (the lobby's tables) stands right under the games list; the others after
    # the player's settings.
    beside_games: bool = False


Panel = Fragment
AccountSection = Fragment


@dataclass(frozen=True)
class EmailSection:
    """A section an app adds to the emails that ask for an order. `gather` reads, for the games of a batch of
    emails being sent (their ids), what each game's readers are owed, in one query for the batch; `content`
    takes a reader's part of a game's (given their seat, the game and the table's names by seat number): what
    the `html` and `text` templates show as `section.content` (nothing: no section), and tokens handed to
    `sent` once that email went out (what it showed is then seen)."""

    html: str
    text: str
    gather: Callable[[Collection[int]], dict[int, Any]]
    content: Callable[[Any, Seat, Game, dict[int, str]], tuple[Any, list[Any]]]
    sent: Callable[[list[Any]], Any]


@dataclass(frozen=True)
class SectionShown:
    """An app's section of one reader's email as its templates get it (`section`): the templates the body
    includes, and what they show."""

    html: str
    text: str
    content: Any


# An app's section of one email and the tokens it is told once that email went out (kept from the templates).
Told = tuple[EmailSection, list[Any]]


@dataclass(frozen=True)
class Extension:
    """What one app adds to the core (see the module's docstring)."""

    phase_related: tuple[str, ...] = ()
    phase_annotations: tuple[tuple[str, Callable[[], Any]], ...] = ()
    games_of: Responsible | None = None
    players_of: Responsible | None = None
    phase_deadline: Callable[[Game, Phase], datetime | None] | None = None
    declines: Callable[[EmailAsk], Collection[int]] | None = None
    excused: Callable[[Game, Phase, Collection[int], datetime], Collection[int]] | None = None
    outbox: Outbox | None = None
    game_filters: tuple[type, ...] = ()
    game_panel: Callable[[Any, Game, Seat | None], Panel | None] | None = None
    account_section: Callable[[Any, Player], AccountSection | None] | None = None
    guide_section: Path | None = None
    seat_left: Callable[[Seat, datetime], bool] | None = None
    ending_refused: Callable[[Game, str], str | None] | None = None
    game_options: tuple[OptionSpec, ...] = ()
    turn_email: EmailSection | None = None
    staff_time_zone: Callable[[Any], str | None] | None = None
    game_time_zones: Callable[[Collection[int]], dict[int, str]] | None = None
    admin_home: Callable[[Any], Fragment | None] | None = None


_registered: dict[str, Extension] = {}


def register(app_label: str, extension: Extension) -> None:
    """Called from the app's AppConfig.ready(). Registering the same app again replaces its extension."""
    _registered[app_label] = extension


def phase_related() -> list[str]:
    """What resolve_phase reads with the phase it locks: its game, and what the apps asked for."""
    return ["game", *(path for extension in _registered.values() for path in extension.phase_related)]


def phase_annotations() -> dict[str, Any]:
    """What resolve_phase annotates the phase it locks with, by name (see the module's docstring)."""
    return {name: make() for extension in _registered.values() for name, make in extension.phase_annotations}


def unattached(game: Game) -> None:
    """Give a game no app has marked (not Game.apps_attached) what the apps' questions would answer, without asking:
    each `phase_annotations` name False, and the first row of each `phase_related` path known absent (reading it
    raises DoesNotExist, with no query), as the resolution's read would have found."""
    for extension in _registered.values():
        for name, _ in extension.phase_annotations:
            setattr(game, name, False)
        for path in extension.phase_related:
            _, _, rest = path.partition("__")  # from the phase: "game__<the game's related row>__..."
            game._meta.get_field(rest.split("__")[0]).set_cached_value(game, None)  # type: ignore[union-attr]


def games_of(user: Any) -> list[Q]:
    """The apps' conditions for games `user` is responsible for (the core adds the games they started)."""
    return [extension.games_of(user) for extension in _registered.values() if extension.games_of]


def players_of(user: Any) -> list[Q]:
    """The apps' conditions for players `user` is responsible for (the core adds its games' players)."""
    return [extension.players_of(user) for extension in _registered.values() if extension.players_of]


def phase_deadline(game: Game, phase: Phase) -> datetime | None:
    """The deadline an app gives a phase that is opening (the first app's that answers), or None."""
    for extension in _registered.values():
        if extension.phase_deadline and (deadline := extension.phase_deadline(game, phase)) is not None:
            return deadline
    return None


def declines() -> list[Callable[[EmailAsk], Collection[int]]]:
    return [extension.declines for extension in _registered.values() if extension.declines]


def excused(game: Game, phase: Phase, missing: Collection[int], now: datetime) -> set[int]:
    """The seats of `missing` (numbers) whose missing order an app excuses (see the module's docstring)."""
    found: set[int] = set()
    for extension in _registered.values():
        if extension.excused and missing:
            found |= set(extension.excused(game, phase, missing, now))
    return found


def game_filters() -> list[type]:
    return [f for extension in _registered.values() for f in extension.game_filters]


def outboxes() -> list[Outbox]:
    return [extension.outbox for extension in _registered.values() if extension.outbox]


def game_options() -> list[OptionSpec]:
    """The options every game may carry beside its engine's, the apps' (the Add game form lists them)."""
    return [spec for extension in _registered.values() for spec in extension.game_options]


def read_option(spec: OptionSpec, value: Any) -> str:
    """An app's choice option as stored: its default when left out, yes/no for a boolean; ValueError (with the
    spec's message for the organiser) for a value that is not one of its choices."""
    if value is None or value == "":
        return str(spec.default)
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if not isinstance(value, str) or value not in {choice.value for choice in spec.choices}:
        raise ValueError(spec.error)
    return value


def split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the engine's options, the apps' options read with their defaults) of a game's options. ValueError,
    with a message for the organiser, for an app's option given a value that is not one of its choices."""
    specs = game_options()
    names = {spec.name for spec in specs}
    engine_options = {name: value for name, value in options.items() if name not in names}
    return engine_options, {spec.name: read_option(spec, options.get(spec.name)) for spec in specs}


def game_panels(request: Any, game: Game, seat: Seat | None) -> list[Panel]:
    """The apps' panels for the game page, as `seat`'s reader (None: a spectator) may see them."""
    found = (extension.game_panel(request, game, seat) for extension in _registered.values() if extension.game_panel)
    return [panel for panel in found if panel is not None]


def account_sections(request: Any, player: Player) -> list[AccountSection]:
    """The apps' cards for `player`'s My games page (`request` is the page's), in the apps' order."""
    found = (
        extension.account_section(request, player) for extension in _registered.values() if extension.account_section
    )
    return [section for section in found if section is not None]


def seat_left(seat: Seat, now: datetime) -> bool:
    """Whether an app found a new holder for the seat its player gave up (see the module's docstring)."""
    return any(extension.seat_left(seat, now) for extension in _registered.values() if extension.seat_left)


def ending_refused(game: Game, kind: str) -> str | None:
    """Why an app does not allow `game` to end early by `kind` ("draw", "cancel", "concede"), or None."""
    for extension in _registered.values():
        if extension.ending_refused and (reason := extension.ending_refused(game, kind)):
            return reason
    return None


def guide_sections(language: str = "") -> list[str]:
    """The apps' sections of every guide, each in `language` where the app wrote one (GUIDE.<language>.md)."""
    files = [extension.guide_section for extension in _registered.values() if extension.guide_section]
    return [localized(path, language).read_text(encoding="utf-8") for path in files]


def turn_email_sections() -> list[EmailSection]:
    return [extension.turn_email for extension in _registered.values() if extension.turn_email]


def staff_time_zone(user: Any) -> str | None:
    """The time zone an app gives a staff user's admin pages (the first app's that answers), or None."""
    for extension in _registered.values():
        if extension.staff_time_zone and (zone := extension.staff_time_zone(user)):
            return zone
    return None


def game_time_zones(game_ids: Collection[int]) -> dict[int, str]:
    """The zone the apps give each of `game_ids`' times (the first app's that answers for a game)."""
    zones: dict[int, str] = {}
    for extension in _registered.values():
        if extension.game_time_zones and game_ids:
            zones = {**extension.game_time_zones(game_ids), **zones}
    return zones


def admin_home(request: Any) -> list[Fragment]:
    """The apps' cards for the admin's home page, as `request`'s user may see them."""
    found = (extension.admin_home(request) for extension in _registered.values() if extension.admin_home)
    return [fragment for fragment in found if fragment is not None]
