"""End-of-game scoring: the best way to split a player's collected cards into sets and singles.

A set is 3 to 6 cards sharing exactly one characteristic: one good from all different countries, or one
country (the Greeks count as one) with all different goods. Sets pay 27/40/55/70, any other collected
card pays 6, and each of the player's own cards left in hand pays 1.

Greedy "largest set first" is wrong (a 4-card set can break up two 3-card sets), so the search is exact.
Lay the cards out as a grid, goods by countries. Every card ends up in a row set (same good), a column
set (same country) or alone. Walk the grid row by row: in each row choose which cards form row sets; the
rest drop into their columns. A column's worth depends only on how many copies of each good fell into
it, so the walk only has to remember, per column, the sorted copy counts: few distinct states even at
24 cards, and a column is cashed in (and forgotten) after its last row.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations, product
from math import prod

from games.engines.base import M, Mn, Mp, Msg, joined
from games.engines.piraeus.data import GOODS, ORIGINS, country_name, country_of, good_index, good_name, good_of

SET_VALUES: dict[int, int] = {3: 27, 4: 40, 5: 55, 6: 70}
SINGLE_VALUE = 6
OWN_CARD_VALUE = 1
MAX_SET_SIZE = max(SET_VALUES)

Line = tuple[int, ...]  # copies held of each member of one line (a row or a column of the grid)
Groups = tuple[tuple[int, ...], ...]  # sets as tuples of member positions
Profile = tuple[int, ...]  # a column's copy counts, sorted: all its worth depends on
Walk = tuple[Profile, ...]


def _take(counts: Line, members: tuple[int, ...]) -> Line:
    left = list(counts)
    for member in members:
        left[member] -= 1
    return tuple(left)


def _sets_with(counts: Line, first: int) -> list[tuple[int, ...]]:
    others = [member for member in range(first + 1, len(counts)) if counts[member]]
    found: list[tuple[int, ...]] = []
    for size in range(2, min(len(others), MAX_SET_SIZE - 1) + 1):
        found.extend((first, *partners) for partners in combinations(others, size))
    return found


@cache
def line_best(counts: Line) -> tuple[int, Groups]:
    """Best worth of one line on its own: sets of different members, every other card single."""
    first = next((member for member, count in enumerate(counts) if count), None)
    if first is None:
        return 0, ()
    value, groups = line_best(_take(counts, (first,)))
    best = (value + SINGLE_VALUE, groups)
    for members in _sets_with(counts, first):
        value, groups = line_best(_take(counts, members))
        if value + SET_VALUES[len(members)] > best[0]:
            best = (value + SET_VALUES[len(members)], (members, *groups))
    return best


@cache
def line_sets_only(counts: Line) -> tuple[int, Groups] | None:
    """Best worth of one line split wholly into sets, or None when some card would be left over."""
    first = next((member for member, count in enumerate(counts) if count), None)
    if first is None:
        return 0, ()
    best: tuple[int, Groups] | None = None
    for members in _sets_with(counts, first):
        rest = line_sets_only(_take(counts, members))
        if rest is not None and (best is None or rest[0] + SET_VALUES[len(members)] > best[0]):
            best = (rest[0] + SET_VALUES[len(members)], (members, *rest[1]))
    return best


@lru_cache(maxsize=4096)
def _row_options(row: Line) -> tuple[tuple[Line, int], ...]:
    """(cards kept for row sets, their worth) for every way the row can hold sets."""
    options = []
    for kept in product(*(range(count + 1) for count in row)):
        split = line_sets_only(kept)
        if split is not None:
            options.append((kept, split[0]))
    return tuple(options)


def _walk_cost(grid: list[Line]) -> tuple[int, list[int]]:
    """(estimated work, row order) of the cheapest walk over `grid`.

    The work of a step is about (walk states so far) x (ways to split the next row), and the walk states
    are at most the product, over columns not yet cashed in, of (cards dropped so far + 1). Both depend
    only on which rows are done, so a search over the subsets of rows finds the best order.
    """
    height, width = len(grid), len(grid[0])
    options = [prod(count + 1 for count in row) for row in grid]
    cheapest: dict[int, tuple[int, list[int]]] = {0: (0, [])}
    for done in range(1 << height):
        if done not in cheapest:
            continue
        cost, order = cheapest[done]
        states = 1
        for column in range(width):
            seen = sum(grid[row][column] for row in range(height) if done >> row & 1)
            if any(grid[row][column] for row in range(height) if not done >> row & 1):
                states *= seen + 1
        for row in range(height):
            if not done >> row & 1:
                step = (done | 1 << row, cost + states * options[row])
                if step[0] not in cheapest or step[1] < cheapest[step[0]][0]:
                    cheapest[step[0]] = (step[1], [*order, row])
    return cheapest[(1 << height) - 1]


def _best_grid(grid: list[Line]) -> list[Line]:
    """For each row, the cards it keeps for row sets in a best split of the whole grid."""
    width = len(grid[0])
    last_row = [max(r for r, row in enumerate(grid) if row[column]) for column in range(width)]
    walks: dict[Walk, int] = {tuple(() for _ in range(width)): 0}
    history: list[dict[Walk, tuple[Walk, Line]]] = []
    for number, row in enumerate(grid):
        ahead: dict[Walk, int] = {}
        came_from: dict[Walk, tuple[Walk, Line]] = {}
        cashed = [column for column in range(width) if last_row[column] == number]
        splits = [
            (
                kept,
                worth,
                [(column, held - kept[column]) for column, held in enumerate(row) if held > kept[column]],
            )
            for kept, worth in _row_options(row)
        ]
        for walk, value in walks.items():
            for kept, worth, drops in splits:
                columns = list(walk)
                for column, dropped in drops:
                    columns[column] = tuple(sorted((*columns[column], dropped), reverse=True))
                total = value + worth
                for column in cashed:
                    total += line_best(columns[column])[0]
                    columns[column] = ()
                following = tuple(columns)
                if total > ahead.get(following, -1):
                    ahead[following] = total
                    came_from[following] = (walk, kept)
        walks = ahead
        history.append(came_from)
    (walk,) = walks
    kept_by_row: list[Line] = []
    for came_from in reversed(history):
        walk, kept = came_from[walk]
        kept_by_row.append(kept)
    return kept_by_row[::-1]


def best_partition(collected: list[str]) -> tuple[int, list[list[str]], list[str]]:
    """(worth, sets, singles) of the best way to sell `collected` at home."""
    if not collected:
        return 0, [], []
    goods = sorted({good_index(good_of(card)) for card in collected})
    origins = sorted({ORIGINS.index(country_of(card)) for card in collected})
    cells = [[0] * len(origins) for _ in goods]
    for card in collected:
        cells[goods.index(good_index(good_of(card)))][origins.index(ORIGINS.index(country_of(card)))] += 1
    # Walk whichever way round, and in whichever row order, looks cheapest.
    by_good_rows = [tuple(row) for row in cells]
    by_origin_rows = [tuple(column) for column in zip(*cells, strict=True)]
    good_walk, origin_walk = _walk_cost(by_good_rows), _walk_cost(by_origin_rows)
    by_goods = good_walk[0] <= origin_walk[0]
    order = good_walk[1] if by_goods else origin_walk[1]
    grid = [(by_good_rows if by_goods else by_origin_rows)[row] for row in order]

    def card_at(row: int, column: int) -> str:
        good, origin = (order[row], column) if by_goods else (column, order[row])
        return f"{GOODS[goods[good]]}/{ORIGINS[origins[origin]]}"

    kept_by_row = _best_grid(grid)
    sets: list[list[str]] = []
    singles: list[str] = []
    for row, kept in enumerate(kept_by_row):
        split = line_sets_only(kept)
        assert split is not None
        sets.extend([card_at(row, column) for column in members] for members in split[1])
    for column in range(len(grid[0])):
        dropped = tuple(grid[row][column] - kept_by_row[row][column] for row in range(len(grid)))
        _, groups = line_best(dropped)
        sets.extend([card_at(row, column) for row in members] for members in groups)
        left = list(dropped)
        for members in groups:
            for row in members:
                left[row] -= 1
        singles.extend(card_at(row, column) for row, count in enumerate(left) for _ in range(count))
    value = sum(SET_VALUES[len(group)] for group in sets) + SINGLE_VALUE * len(singles)
    return value, sets, singles


def set_name(cards: list[str]) -> Msg:
    goods = {good_of(card) for card in cards}
    shared = good_name(next(iter(goods))) if len(goods) == 1 else country_name(country_of(cards[0]))
    return Mp("piraeus score", "{shared} set of {size}", shared=shared, size=len(cards))


def final_score(cash: int, collected: list[str], own_left: int) -> tuple[int, Msg]:
    """(score, detail) of one merchant back home: cash + best sets and singles + own goods left."""
    _, sets, singles = best_partition(collected)
    total = cash + own_left * OWN_CARD_VALUE
    parts: list[Msg] = [Mp("piraeus score", "cash {cash}", cash=cash)]
    for group in sets:
        total += SET_VALUES[len(group)]
        parts.append(Mp("piraeus score", "{set} ({value})", set=set_name(group), value=SET_VALUES[len(group)]))
    total += len(singles) * SINGLE_VALUE
    parts.append(
        Mn(
            "{count} single card ({value})",
            "{count} single cards ({value})",
            len(singles),
            value=len(singles) * SINGLE_VALUE,
        )
    )
    parts.append(
        Mn(
            "{count} own good left ({value})",
            "{count} own goods left ({value})",
            own_left,
            value=own_left * OWN_CARD_VALUE,
        )
    )
    return total, M("{parts} = {total}", parts=joined(parts, "+"), total=total)
