"""League service layer: sign-ups, seasons, rounds (draw, start, finish) and the organisers' bulk actions.

Views, the admin and tasks come through here. Games are created and changed only through games.play.turns.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engines import get_engine
from games.leagues import emails, scheduling
from games.leagues.away import days_away
from games.leagues.models import League, Membership, Round, Season, Seating, Table
from games.leagues.results import season_standings
from games.leagues.standings import Standing
from games.models import Game, Phase, Player, attach_apps
from games.outgoing import signed
from games.outgoing.dispatch import task_name
from games.outgoing.messages import zone_of
from games.play import organise, turns
from games.play.deadlines import add_local_days, daily_deadline

log = logging.getLogger(__name__)
# The wake-up call that closes a round once a game of it ends (bound in games/leagues/tasks.py).
FINISH_ROUND = task_name("leagues.tasks.finish_round")
SIGNUP_SALT = "pbem.league-signup"
SIGNUP_MAX_AGE = timedelta(days=3)


class LeagueError(Exception):
    """Something a player or organiser asked for that cannot be done; the message says why. Raised
    before anything was changed."""


# --- Sign-up -----------------------------------------------------------------------------------------


def invite_url(league: League) -> str:
    return settings.SITE_URL + reverse("leagues-join", args=[league.slug, league.invite_key])


def check_invite(league: League, key: str) -> None:
    if not secrets.compare_digest(key, league.invite_key):
        raise LeagueError(_("This invite link is not valid (the organiser may have changed it)."))


def request_signup(league: League, email: str, name: str, time_zone: str, *, standby: bool = False) -> None:
    """Email a confirmation link; nothing is stored until the address is confirmed."""
    if not standby and not league.signups_open:
        raise LeagueError(_("Sign-ups for this league are closed. You can still join the standby list."))
    email = email.strip().lower()
    # Dropped and inactive members may sign up again: confirming makes them active (or standby) again.
    comeback = [Membership.Status.DROPPED, Membership.Status.INACTIVE]
    if Membership.objects.filter(league=league, player__email=email).exclude(status__in=comeback).exists():
        raise LeagueError(_("That address is already signed up for this league."))
    token = signed.dumps({"l": league.pk, "e": email, "n": name, "z": time_zone, "s": standby}, salt=SIGNUP_SALT)
    link = settings.SITE_URL + reverse("leagues-confirm", args=[token])
    emails.queue(league, "signup-confirm", {"link": link, "name": name, "standby": standby}, to=email)


def confirm_signup(token: str) -> Membership:
    try:
        data = signed.loads(token, salt=SIGNUP_SALT, max_age=SIGNUP_MAX_AGE)
        league = League.objects.get(pk=data["l"])
        email, name, time_zone, standby = data["e"], data["n"], data["z"], bool(data["s"])
    except signing.SignatureExpired:
        raise LeagueError(_("This confirmation link has expired. Please sign up again.")) from None
    except (signing.BadSignature, League.DoesNotExist, KeyError, TypeError):
        raise LeagueError(_("This confirmation link is not valid.")) from None
    if not standby and not league.signups_open:
        raise LeagueError(_("Sign-ups for this league closed before you confirmed. You can join the standby list."))
    with transaction.atomic():
        player = turns.player_for(email, name)
        if player.time_zone == "UTC" and time_zone:
            player.time_zone = time_zone
            player.save(update_fields=["time_zone"])
        status = Membership.Status.STANDBY if standby else Membership.Status.ACTIVE
        membership, created = Membership.objects.get_or_create(
            league=league, player=player, defaults={"status": status}
        )
        if not created and membership.status in (Membership.Status.DROPPED, Membership.Status.INACTIVE):
            membership.status = status
            membership.save(update_fields=["status"])
        # Their settings link (vacations, emails, calendar) from the start: a member on the default choice
        # gets no other league email until something happens to them.
        emails.queue(league, "signup-welcome", {"standby": standby}, player=player)
    return membership


def close_signups(league: League) -> None:
    League.objects.filter(pk=league.pk).update(signups_open=False)


# --- Seasons and rounds ------------------------------------------------------------------------------


def current_season(league: League) -> Season:
    """The league's latest season; its first, made now if it has none (two first draws at once make one: the
    second finds the first's, get_or_create's savepoint catching the unique number's conflict)."""
    season = league.seasons.order_by("-number").first()
    return season or Season.objects.get_or_create(league=league, number=1)[0]


def season_number(league: League) -> int:
    """The number of the league's latest season, 0 before its first: what an organiser's page names."""
    return league.seasons.order_by("-number").values_list("number", flat=True).first() or 0


def unfinished_round(league: League) -> Round | None:
    """A round of the league, of any season, that is drawn or being played: the one round a league has at a
    time (a new season or a new round waits for it)."""
    return Round.objects.filter(season__league=league).exclude(status=Round.Status.FINISHED).first()


def start_season(league: League, after: int | None = None) -> Season:
    """The league's next season; the last one's standings stay readable (the public page per season). Refused
    (LeagueError, nothing changed) while a round is drawn or being played, so that no member sits at tables of
    two seasons at once, and while the current season has no round yet. `after`: the season the organiser's
    page showed as the current one; refused if another was started since."""
    with transaction.atomic():
        League.objects.select_for_update().filter(pk=league.pk).first()  # one new season or round at a time
        if after is not None and (now_at := season_number(league)) != after:
            raise LeagueError(
                _("Season %(now_at)s was started meanwhile: no other season was started.") % {"now_at": now_at}
            )
        running = unfinished_round(league)
        if running is not None:
            raise LeagueError(
                _("%(running)s has not finished yet: close it before starting a new season.") % {"running": running}
            )
        last = league.seasons.order_by("-number").first()
        if last is not None and not last.rounds.exists():
            raise LeagueError(_("%(last)s has no round yet: there is nothing to close.") % {"last": last})
        return Season.objects.create(league=league, number=(last.number + 1) if last else 1)


def generate_round(season: Season, starts_at: datetime | None = None, seed: int | None = None) -> Round:
    """Draw the next round's tables from the league's active players: balanced sizes, repeat opponents of
    this season avoided, Swiss by the season's standings once a round has finished. The games are created
    at `starts_at` (by the sweep, or at once if it has come).

    `seed` (random unless given) decides the draw only: with the same members, meetings and standings it
    draws the same tables again. It is stored as the round's `draw_seed` and shown nowhere; each table's game
    gets a seed of its own, unrelated to it, so nothing about a draw tells anything of a game's deck."""
    league = season.league
    engine = get_engine(league.engine)
    starts_at = starts_at or timezone.now()
    players = drawable(league, starts_at)[0]
    running = unfinished_round(league)
    if running is not None:
        raise LeagueError(_("%(running)s has not finished yet.") % {"running": running})
    if league.seasons.filter(number__gt=season.number).exists():
        raise LeagueError(_("%(season)s is over: rounds are drawn in the current season.") % {"season": season})
    previous = Table.objects.filter(round__season=season)
    met = scheduling.met_pairs(previous.values_list("players", flat=True))
    standings = None
    if Round.objects.filter(season=season, status=Round.Status.FINISHED).exists():
        standings = [row.player_id for row in season_standings(season)]
    seed = seed if seed is not None else secrets.randbits(62)
    try:
        draw = scheduling.draw_round(players, engine.min_players, engine.max_players, seed, met, standings)
    except ValueError as error:
        raise LeagueError(str(error)) from None
    with transaction.atomic():
        League.objects.select_for_update().filter(pk=league.pk).first()  # one new season or round at a time
        if unfinished_round(league) is not None:
            raise LeagueError(_("Another round was drawn meanwhile."))
        if (newest := season_number(league)) > season.number:  # started while this draw was being made
            raise LeagueError(
                _("%(season)s is over: season %(newest)s was started meanwhile. Nothing was drawn.")
                % {"season": season, "newest": newest}
            )
        number = (season.rounds.order_by("-number").values_list("number", flat=True).first() or 0) + 1
        # The points per place it is played for: a change of the league's points applies from the next round.
        round_ = Round.objects.create(
            season=season,
            number=number,
            starts_at=starts_at,
            draw_seed=seed,
            points=list(league.points),
        )
        Table.objects.bulk_create(
            Table(round=round_, number=i, players=seated) for i, seated in enumerate(draw, start=1)
        )
    log.info("round drawn: league %s season %s round %s, %s tables", league.pk, season.number, number, len(draw))
    return round_


def drawable(league: League, starts_at: datetime) -> tuple[list[int], dict[int, int]]:
    """The active members a round starting at `starts_at` seats, and those it leaves out: a member away from
    then for longer than the league's vacation cap per game ({player id: days away left}). Their table's first
    deadline could not move past their vacation, so they sit this round out; one away for less is drawn, and
    their table's first deadline moves by their days away (start_round)."""
    active = Membership.objects.filter(league=league, status=Membership.Status.ACTIVE)
    players = list(active.values_list("player_id", flat=True))
    day = starts_at.astimezone(zone_of(league.time_zone)).date()
    away = {p: days for p, days in days_away(league, players, day).items() if days > league.vacation_cap_days}
    return [p for p in players if p not in away], away


def start_due_rounds(now: datetime | None = None) -> int:
    now = now or timezone.now()
    due = Round.objects.filter(status=Round.Status.SCHEDULED, starts_at__lte=now).values_list("pk", flat=True)
    return sum(start_round(pk, now) for pk in list(due))


def start_round(round_id: int, now: datetime | None = None) -> bool:
    """Create the round's games (their first emails go out after commit) and tell each player their
    tables. Once only: the round's row is locked and must still be scheduled."""
    now = now or timezone.now()
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(of=("self",)).select_related("season__league").filter(pk=round_id).first()
        )
        if round_ is None or round_.status != Round.Status.SCHEDULED:
            return False
        league = round_.season.league
        tables = list(round_.tables.order_by("number"))
        people = Player.objects.in_bulk({p for t in tables for p in t.players})
        for table in tables:
            game = turns.create_game(
                league.engine,
                [people[p] for p in table.players],
                options=league.options,
                phase_length=league.phase_length,
                title=f"{league.name} S{round_.season.number} R{round_.number} T{table.number}",
            )
            table.game = game
            table.save(update_fields=["game"])
            attach_apps(Game.objects.filter(pk=game.pk))  # its resolutions read the table, round and league
            Seating.objects.bulk_create(
                Seating(table=table, seat_number=n, player_id=p) for n, p in enumerate(table.players)
            )
            phase = turns.current_phase(game)
            if phase is not None:
                apply_league_deadline(league, phase)
                wait_for_vacations(league, table, phase, now)
        round_.status = Round.Status.STARTED
        round_.save(update_fields=["status"])
        for player_id, player in people.items():
            mine = [
                {"number": t.number, "title": t.game.name_later, "names": [people[p].display_name for p in t.players]}
                for t in tables
                if player_id in t.players and t.game is not None
            ]
            emails.queue(league, "round-started", {"round": round_facts(round_), "tables": mine}, player=player)
    return True


@dataclass(frozen=True)
class RoundFacts:
    """A round as its emails name it (templates get no model instance: games/outgoing/facts.py)."""

    number: int
    season: int


def round_facts(round_: Round) -> RoundFacts:
    return RoundFacts(number=round_.number, season=round_.season.number)


def league_deadline(league: League, phase: Phase) -> datetime | None:
    """A league game's phase closes at the league's daily time, if it has one; None: the game's own
    phase_length, set from the league's at creation."""
    if league.deadline_mode != League.DeadlineMode.DAILY:
        return None
    return daily_deadline(phase.opened_at, league.daily_time, zone_of(league.time_zone), league.phase_length)


def apply_league_deadline(league: League, phase: Phase) -> None:
    """A round's first phases get the league's deadline here, once the table points at the game; the next
    ones are given it as they open (games/leagues/policy.py, the core's phase_deadline extension)."""
    deadline = league_deadline(league, phase)
    if deadline is not None:
        phase.save(update_fields=phase.move_deadline(deadline, phase.game.reminder_before))


def wait_for_vacations(league: League, table: Table, phase: Phase, now: datetime) -> int:
    """A new table with a member away: its first deadline moves by the days they have left away (the most of
    any of them), as if they had declared their vacation as the round started, within the league's cap per
    game; the days count towards the table's cap. Returns the days it moved."""
    away = days_away(league, table.players, now.astimezone(zone_of(league.time_zone)).date())
    days = min(max(away.values(), default=0), league.vacation_cap_days - table.vacation_added.days)
    if days <= 0:
        return 0
    moved = add_local_days(phase.deadline, days, zone_of(league.time_zone))
    phase.save(update_fields=phase.move_deadline(moved, phase.game.reminder_before))
    table.vacation_added += timedelta(days=days)
    table.save(update_fields=["vacation_added"])
    return days


def finish_rounds(now: datetime | None = None) -> int:
    """Close every started round whose games are all over, and email the season standings (the league
    sweep: what the close on a game's end, `finish_round`, may have missed)."""
    started = Round.objects.filter(status=Round.Status.STARTED).values_list("pk", flat=True)
    return sum(finish_round(pk, now) for pk in list(started))


def finish_round(round_id: int, now: datetime | None = None) -> bool:
    """Close the round if every game of it is over, and email the season standings; False if it is not
    started, still has a game running, or was closed already. Run when a league game ends (after its commit,
    inline or by a worker: games/leagues/policy.py), by the sweep, and by the organiser's Close action."""
    now = now or timezone.now()
    with transaction.atomic():
        round_ = (
            Round.objects.select_for_update(of=("self",))
            .select_related("season__league")
            .filter(pk=round_id, status=Round.Status.STARTED)
            .first()
        )
        if round_ is None or round_.tables.exclude(game__status=Game.Status.FINISHED).exists():
            return False
        round_.status, round_.finished_at = Round.Status.FINISHED, now
        round_.save(update_fields=["status", "finished_at"])
        league = round_.season.league
        rows = [(row, person.display_name) for row, person in named_standings(round_.season)]
        members = Membership.objects.filter(league=league).exclude(status=Membership.Status.DROPPED)
        for member in members.select_related("player"):
            context = {"round": round_facts(round_), "rows": rows, "me": member.player_id}
            emails.queue(league, "standings", context, player=member.player)
    return True


def close_round(round_: Round, now: datetime | None = None) -> bool:
    """The organiser's Close: the round closes now, as it would by itself when its last game ends (where no
    worker runs, or it was missed). Refused (LeagueError) for a round not started or with a game still running,
    naming them; False if it was closed already."""
    round_.refresh_from_db()
    if round_.status == Round.Status.SCHEDULED:
        raise LeagueError(_("%(round)s has not started yet.") % {"round": round_})
    running = [str(game) for game in round_games(round_).exclude(status=Game.Status.FINISHED).order_by("pk")]
    if running:
        raise LeagueError(
            ngettext(
                "%(round)s still has %(count)d game running: %(games)s.",
                "%(round)s still has %(count)d games running: %(games)s.",
                len(running),
            )
            % {"round": round_, "count": len(running), "games": ", ".join(running)}
        )
    return finish_round(round_.pk, now)


def named_standings(season: Season) -> list[tuple[Standing, Player]]:
    rows = season_standings(season)
    names = Player.objects.in_bulk([r.player_id for r in rows])
    return [(row, names[row.player_id]) for row in rows]


# --- Organisers' bulk actions ------------------------------------------------------------------------


def round_games(round_: Round) -> QuerySet[Game]:
    return Game.objects.filter(league_table__round=round_)


def extend_round(round_: Round, by: timedelta, shown: Mapping[int, organise.Shown]) -> organise.Outcome:
    """Every running or paused game's deadline moves on by `by` from what the organiser's page showed of it
    (`shown`, by game id); the games it changed, and the others with why."""
    return organise.extend_as_shown(round_games(round_), by, shown)


def pause_round(round_: Round) -> organise.Outcome:
    return organise.each(round_games(round_), organise.pause_game)


def resume_round(round_: Round) -> organise.Outcome:
    return organise.each(round_games(round_), organise.resume_game)


def come_back(membership: Membership) -> bool:
    """An inactive member is back: drawn again from the next round on. False if they were not inactive."""
    inactive = Membership.objects.filter(pk=membership.pk, status=Membership.Status.INACTIVE)
    return bool(inactive.update(status=Membership.Status.ACTIVE))
