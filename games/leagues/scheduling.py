"""Drawing a round's tables: pure Python, no Django, deterministic for a seed.

Every player is seated exactly once; table sizes are within the game's player counts and differ by at most
one; players who already met (this season) are kept apart where possible. Without standings the draw is
a seeded shuffle improved by swaps (round robin style: everybody meets new opponents); with standings
(Swiss style) players are grouped with neighbours in the standings, and swaps still avoid repeats first.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence

Pair = tuple[int, int]

# Meeting someone again weighs more than any gap in the standings a swap could close.
REPEAT_COST = 1000
SWAPS_PER_PLAYER = 30


def pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def met_pairs(tables: Iterable[Sequence[int]]) -> Counter[Pair]:
    """How many times each pair of players shared a table."""
    met: Counter[Pair] = Counter()
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                met[pair(a, b)] += 1
    return met


def table_sizes(players: int, min_size: int, max_size: int) -> list[int]:
    """As few tables as possible, sizes as equal as possible (largest first). ValueError if none fit."""
    for count in range(max(1, math.ceil(players / max_size)), players // min_size + 1):
        small, extra = divmod(players, count)
        if min_size <= small and small + (extra > 0) <= max_size:
            return [small + 1] * extra + [small] * (count - extra)
    raise ValueError(f"{players} players cannot be seated at tables of {min_size} to {max_size}.")


def draw_round(
    players: Sequence[int],
    min_size: int,
    max_size: int,
    seed: int | str,
    met: Counter[Pair] | None = None,
    standings: Sequence[int] | None = None,
) -> list[list[int]]:
    """Tables (lists of player ids, in seat order) for one round.

    `met` counts earlier meetings; `standings` (player ids, best first) asks for a Swiss draw."""
    rng = random.Random(f"draw:{seed}")
    met = met or Counter()
    sizes = table_sizes(len(players), min_size, max_size)
    if standings:
        position = {p: i for i, p in enumerate(standings)}
        order = sorted(players, key=lambda p: (position.get(p, len(position)), p))
    else:
        position = {}
        order = sorted(players)
        rng.shuffle(order)
    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(order[start : start + size])
        start += size
    _improve(tables, met, position, rng)
    for table in tables:
        rng.shuffle(table)  # seat order (who starts) is luck, not standings
    return tables


def _cost_of(player: int, table: list[int], met: Counter[Pair], position: dict[int, int]) -> int:
    """What `player` adds to `table`'s cost: repeats with the others there, and their standings gaps."""
    cost = 0
    for other in table:
        if other != player:
            cost += REPEAT_COST * met.get(pair(player, other), 0)
            if position:
                cost += abs(position.get(player, 0) - position.get(other, 0))
    return cost


def _improve(tables: list[list[int]], met: Counter[Pair], position: dict[int, int], rng: random.Random) -> None:
    """Random pairwise swaps between tables, each kept only if it lowers the total cost (hill climbing).
    A swap's effect is computed from the two players' tablemates only, so a try costs O(table size)."""
    if len(tables) < 2 or (not met and not position):
        return
    players = sum(len(t) for t in tables)
    for _ in range(SWAPS_PER_PLAYER * players):
        ta, tb = rng.sample(range(len(tables)), 2)
        a_table, b_table = tables[ta], tables[tb]
        ia, ib = rng.randrange(len(a_table)), rng.randrange(len(b_table))
        a, b = a_table[ia], b_table[ib]
        before = _cost_of(a, a_table, met, position) + _cost_of(b, b_table, met, position)
        a_table[ia], b_table[ib] = b, a
        after = _cost_of(b, a_table, met, position) + _cost_of(a, b_table, met, position)
        if after > before or (after == before and position):
            a_table[ia], b_table[ib] = a, b  # undo: not better
