"""From the database to standings: finished games, who held each seat (a bot too: its level and for how many
phases), and missed deadlines.

A seat's result belongs to whoever held it at the end of the game, and a player who conceded a seat ranks
after every seat (games/leagues/early.py); its missed deadlines belong to whoever held it in the phase that was
missed (a Seating row says who held a seat from which phase on). The public
league page shows the same history: who played each seat, from which phase, and who conceded it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from games.leagues.models import League, Membership, Season, Seating, Table
from games.leagues.standings import Finish, Standing, ratings
from games.leagues.standings import season_standings as rank_standings
from games.models import Game, Order, Phase, Player, Seat


@dataclass(frozen=True)
class Holder:
    """Who played a seat from `from_phase` on: the player drawn, a substitute who claimed it, a bot, or
    nobody (an open seat on default orders: offered and not claimed yet, or never claimed)."""

    kind: str  # "drawn", "substitute", "bot" or "open"
    name: str = ""
    from_phase: int = 1
    conceded_after: int | None = None  # the last phase this player held the seat, when they conceded it
    level: str = ""  # a bot's: strong, easy, random, or defaults (it plays the default orders)
    phases: int = 0  # how many phases a bot has held the seat, to the game's end or its current phase


def seat_holders(tables: Iterable[Table]) -> dict[int, list[list[Holder]]]:
    """Per table id, per seat, who held it, in order; a table not started yet shows its draw. Three
    queries for any number of tables."""
    tables = list(tables)
    started = {t.pk: t.game_id for t in tables if t.game_id}
    held: dict[tuple[int, int], list[Seating]] = defaultdict(list)
    for seating in Seating.objects.filter(table_id__in=list(started)).select_related("player"):
        held[(seating.table_id, seating.seat_number)].append(seating)
    bot_seats = Seat.objects.filter(game_id__in=started.values(), is_bot=True)
    bots = {
        (game, number): ("defaults" if defaults else level, last)
        for game, number, level, defaults, last in bot_seats.values_list(
            "game_id", "number", "bot_level", "bot_plays_defaults", "game__phase_number"
        )
    }
    drawn = Player.objects.in_bulk({p for t in tables if not t.game_id for p in t.players})
    result: dict[int, list[list[Holder]]] = {}
    for table in tables:
        if not table.game_id:
            result[table.pk] = [[Holder("drawn", drawn[p].display_name)] for p in table.players if p in drawn]
            continue
        seats = []
        for number in range(len(table.players)):
            chain = [
                Holder(
                    "substitute" if i else "drawn",
                    s.player.display_name if s.player else "",
                    s.from_phase,
                    s.until_phase if s.conceded else None,
                )
                for i, s in enumerate(held[(table.pk, number)])  # Meta.ordering: by from_phase
            ]
            last = held[(table.pk, number)][-1:]
            if last and last[0].until_phase is not None:  # nobody took over from the last holder
                start = last[0].until_phase + 1
                bot = bots.get((table.game_id, number))
                if bot is None:
                    chain.append(Holder("open", "", start))
                else:
                    chain.append(Holder("bot", "", start, level=bot[0], phases=max(0, bot[1] - start + 1)))
            seats.append(chain)
        result[table.pk] = seats
    return result


def finishes(tables: Iterable[Table]) -> list[Finish]:
    """The finished games of `tables` (read with their games and rounds), as (player, rank) per seat held at
    the end, each with the points per place of its round."""
    tables = [t for t in tables if t.game is not None and t.game.status == Game.Status.FINISHED]
    ended = Seating.objects.filter(table_id__in=[t.pk for t in tables], until_phase__isnull=True, player__isnull=False)
    # Plain values, not model instances (ten times the cost, for tens of thousands of seatings); no ORDER BY: the
    # model's ordering (by table, i.e. round, season, league) would join three tables to sort.
    seatings = ended.order_by().values_list("table_id", "seat_number", "player_id")
    holders = {(table, seat): player for table, seat, player in seatings}
    conceded: dict[int, set[int]] = defaultdict(set)
    gave_up = Seating.objects.filter(table_id__in=[t.pk for t in tables], conceded=True, player__isnull=False)
    for table_id, player_id in gave_up.order_by().values_list("table_id", "player_id"):
        conceded[table_id].add(player_id)
    result = []
    for table in tables:
        assert table.game is not None and table.game.finished_at is not None
        ranks = [
            (holders[(table.pk, row["seat"])], row["rank"])
            for row in table.game.result
            if (table.pk, row["seat"]) in holders
        ]
        # The points its round was drawn with (a change of the league's applies from the next round).
        points = table.round.points or None
        places = [row["rank"] for row in table.game.result]
        # Whoever conceded ranks last (early.py says why); a cancelled game (no result) counts for nobody.
        gone = sorted(conceded[table.pk] - {player for player, _ in ranks}) if places else []
        result.append(
            Finish(
                game_id=table.game.pk,
                finished_at=table.game.finished_at,
                ranks=ranks,
                points=points,
                places=places,
                conceded=gone,
            )
        )
    return result


def reliability(tables: Iterable[Table]) -> dict[int, tuple[int, int]]:
    """(phases owed, deadlines missed) per player over `tables`: every owed order of a resolved phase is a
    row (a missed one is the engine's default, `is_default`), counted for the seat's holder at the time. An
    excused default (the organiser resolved before the deadline, the player was on vacation) counts as
    neither: it was not theirs to send.

    Every read starts from the tables' own games and reaches orders through an index on the seat, so it
    costs what the league holds, not what the database holds (a join from the games' phases to orders made
    PostgreSQL read the whole orders and seats tables once the league was large; bench/leagues.py). A seat
    one player held all game (nearly every seat) is counted with one index probe for its orders and one for
    its missed ones, less its order in an open phase (not owed yet); only seats that changed hands are read
    order by order, to split them between their holders."""
    game_of_table = {t.pk: t.game_id for t in tables if t.game_id}
    games = list(game_of_table.values())
    # Who held each seat from which phase until which: (from_phase, until_phase or None, player).
    windows: dict[tuple[int, int], list[tuple[int, int | None, int]]] = defaultdict(list)
    seatings = Seating.objects.filter(table_id__in=list(game_of_table), player__isnull=False).order_by()
    for table, seat, first, last, player in seatings.values_list(
        "table_id", "seat_number", "from_phase", "until_phase", "player_id"
    ):
        windows[(game_of_table[table], seat)].append((first, last, player))
    of_seat = Order.objects.filter(seat=OuterRef("pk")).order_by().values("seat")
    seats = (
        Seat.objects.filter(game_id__in=games)
        .order_by()
        .annotate(
            # Index-only scans: the seat's foreign key index, and the leagues' partial index of default orders
            # ("order-missed-by-seat", built by the leagues migration 0005_order_missed_by_seat).
            ordered=Coalesce(Subquery(of_seat.annotate(n=Count("*")).values("n")), 0),
            defaults=Coalesce(Subquery(of_seat.filter(is_default=True).annotate(n=Count("*")).values("n")), 0),
            # Excused defaults (an organiser's early resolve, a vacation) are neither owed nor missed: the
            # leagues migration 0010_order_excused_by_seat's partial index.
            excused=Coalesce(Subquery(of_seat.filter(excused=True).annotate(n=Count("*")).values("n")), 0),
        )
        .values_list("pk", "game_id", "number", "ordered", "defaults", "excused")
    )
    # Orders in the games' open phases are not owed yet. A game's open phase is numbered as the game's current
    # phase: one probe of the phases' (game, number) index per game still running, then its orders by phase.
    current = Phase.objects.filter(game=OuterRef("pk"), number=OuterRef("phase_number"), status=Phase.Status.OPEN)
    running = Game.objects.filter(pk__in=games).exclude(status=Game.Status.FINISHED).order_by()
    open_phases = [pk for pk in running.values_list(Subquery(current.values("pk")), flat=True) if pk is not None]
    in_open = Order.objects.filter(phase_id__in=open_phases).order_by()
    pending = Counter(in_open.values_list("seat_id", flat=True) if open_phases else ())
    counts: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    shared: dict[int, tuple[int, int]] = {}
    for seat_id, game_id, number, ordered, defaults, excused in seats:
        owed = ordered - pending[seat_id] - excused  # default orders are only written as a phase resolves
        missed = defaults - excused
        held = windows.get((game_id, number), [])
        if not owed or not held:
            continue
        if len(held) == 1 and held[0][0] <= 1 and held[0][1] is None:
            counts[held[0][2]][0] += owed
            counts[held[0][2]][1] += missed
        else:
            shared[seat_id] = (game_id, number)
    rows = Order.objects.filter(seat_id__in=list(shared), phase__status=Phase.Status.RESOLVED, excused=False)
    for seat_id, phase, is_default in (
        rows.order_by().values_list("seat_id", "phase__number", "is_default") if shared else ()
    ):
        for first, last, player in windows[shared[seat_id]]:
            if first <= phase and (last is None or phase <= last):
                counts[player][0] += 1
                counts[player][1] += is_default
                break
    return {player: (owed, missed) for player, (owed, missed) in counts.items()}


def season_standings(season: Season) -> list[Standing]:
    """The season's standings, each row with the player's league rating (openskill, across seasons)."""
    league = season.league
    tables = list(
        Table.objects.filter(round__season=season, game__isnull=False)
        .select_related("game", "round")
        .defer("game__state")
    )
    # Inactive members too: a player who lost their seat before finishing a game still shows their misses.
    members = Membership.objects.filter(
        league=league, status__in=[Membership.Status.ACTIVE, Membership.Status.INACTIVE]
    )
    finished = finishes(tables)
    rows = rank_standings(
        finished,
        league.points,
        reliability(tables),
        players=members.values_list("player_id", flat=True),
    )
    # The rating counts every season's games: this season's are read already.
    rated = ratings(finished + finishes(finished_tables(league).exclude(round__season=season)))
    for row in rows:
        row.rating = rated.get(row.player_id, 0.0)
    return rows


def finished_tables(league: League) -> QuerySet[Table]:
    tables = Table.objects.filter(round__season__league=league, game__status=Game.Status.FINISHED)
    return tables.select_related("game", "round").defer("game__state")


def league_ratings(league: League) -> dict[int, float]:
    return ratings(finishes(finished_tables(league)))
