"""Manila's components and printed numbers (RULES.md beside this file lists each with its source)."""

from __future__ import annotations

from typing import Any

from games.engines.base import Mn, Mp, Msg, joined

WARES = ("jade", "silk", "nutmeg", "ginseng")

# Accomplice spaces on each ware's punt, cheapest first; a new accomplice takes the cheapest free one.
PUNT_COSTS = {"jade": (3, 4, 5, 5), "silk": (3, 4, 5), "nutmeg": (2, 3, 4), "ginseng": (1, 2, 3)}
# What the accomplices of a punt that reaches Manila share (or the pirates, for a plundered punt).
LOAD_PROFITS = {"jade": 36, "silk": 30, "nutmeg": 24, "ginseng": 18}

BERTHS = ("A", "B", "C")  # port spaces and shipyard spaces, filled in this order
BERTH_COSTS = {"A": 4, "B": 3, "C": 2}
BERTH_PAYOUTS = {"A": 6, "B": 8, "C": 15}
PILOT_COSTS = {"small": 2, "large": 5}
PIRATE_COST = 5
INSURANCE_PAYMENT = 10  # insurance costs nothing and pays this at once

# Spaces off the punts, by name. A punt space is named "punt:<ware>" in orders.
SPACE_COSTS = {
    **{f"port:{berth}": cost for berth, cost in BERTH_COSTS.items()},
    **{f"yard:{berth}": cost for berth, cost in BERTH_COSTS.items()},
    "pirate:captain": PIRATE_COST,
    "pirate:crew": PIRATE_COST,
    "pilot:small": PILOT_COSTS["small"],
    "pilot:large": PILOT_COSTS["large"],
    "insurance": 0,
}
SPACES = tuple(SPACE_COSTS)

VALUE_TRACK = (0, 5, 10, 20, 30)  # black market; the game ends when a ware reaches the last step
END_VALUE = VALUE_TRACK[-1]
SHARES_PER_WARE = 5
SHARES_DEALT = 2
SHARE_MIN_PRICE = 5
LOAN = 12  # the cash box lends this per encumbered share
REDEEM = 15  # repaying a loan, and what each encumbered share costs at the end
START_CASH = 30

LAST_SPACE = 13  # the pirate space; a punt moving past it reaches Manila
MAX_START = 5
START_SUM = 9

# HOUSE CHOICE (the rulebook says only "five colours"): the accomplices' colours name the seats.
COLOURS = ("Red", "Blue", "Green", "Yellow", "Black")
COLOUR_HEX = {"Red": "#c0392b", "Blue": "#2e6fb7", "Green": "#2b8151", "Yellow": "#d4a017", "Black": "#333333"}
# Dark enough for white text on them and for text in them on white (at least 4.5:1, WCAG AA).
WARE_HEX = {"jade": "#30815a", "silk": "#3b6fc4", "nutmeg": "#a0522d", "ginseng": "#926e00"}


def accomplices_each(players: int) -> int:
    return 4 if players == 3 else 3


def placement_blocks(players: int) -> tuple[int, ...]:
    """How many placing rounds come before each movement round: with three players, two before the first."""
    return (2, 1, 1) if players == 3 else (1, 1, 1)


def next_value(value: int) -> int:
    step = VALUE_TRACK.index(value)
    return VALUE_TRACK[min(step + 1, len(VALUE_TRACK) - 1)]


def share_price(value: int) -> int:
    return max(SHARE_MIN_PRICE, value)


# The game's terms as the players read them, translated with the sentence they stand in: a ware in running text and
# at the start of a sentence or a label, and the colours that name the seats.
WARE_NAMES: dict[str, Msg] = {
    "jade": Mp("manila good", "jade"),
    "silk": Mp("manila good", "silk"),
    "nutmeg": Mp("manila good", "nutmeg"),
    "ginseng": Mp("manila good", "ginseng"),
}
WARE_TITLES: dict[str, Msg] = {
    "jade": Mp("manila good, capitalised", "Jade"),
    "silk": Mp("manila good, capitalised", "Silk"),
    "nutmeg": Mp("manila good, capitalised", "Nutmeg"),
    "ginseng": Mp("manila good, capitalised", "Ginseng"),
}
COLOUR_NAMES: dict[str, Msg] = {
    "Red": Mp("manila colour", "Red"),
    "Blue": Mp("manila colour", "Blue"),
    "Green": Mp("manila colour", "Green"),
    "Yellow": Mp("manila colour", "Yellow"),
    "Black": Mp("manila colour", "Black"),
}
PILOT_NAMES: dict[str, Msg] = {"small": Mp("manila pilot", "small"), "large": Mp("manila pilot", "large")}


def ware_name(ware: str) -> Msg:
    return WARE_NAMES[ware]


def ware_title(ware: str) -> Msg:
    return WARE_TITLES[ware]


def seat_colour(state: Any, seat: int) -> Msg:
    """A seat as the players call it: its accomplices' colour."""
    return COLOUR_NAMES[state["names"][seat]]


def space_label(space: str) -> Msg:
    kind, _, which = space.partition(":")
    if kind == "punt":
        return Mp("manila space", "the {ware} punt", ware=ware_name(which))
    if kind == "port":
        return Mp("manila space", "port space {berth}", berth=which)
    if kind == "yard":
        return Mp("manila space", "shipyard space {berth}", berth=which)
    if kind == "pilot":
        return Mp("manila space", "the {size} pilot", size=PILOT_NAMES[which])
    if space == "pirate":
        return Mp("manila space", "the pirate boat")
    if kind == "pirate":
        if which == "captain":
            return Mp("manila space", "the pirate captain's space")
        return Mp("manila space", "the second pirate space")
    return Mp("manila space", "the insurance office")


def space_title(space: str) -> Msg:
    """`space_label` at the start of a sentence or a label."""
    kind, _, which = space.partition(":")
    if kind == "punt":
        return Mp("manila space, capitalised", "The {ware} punt", ware=ware_name(which))
    if kind == "port":
        return Mp("manila space, capitalised", "Port space {berth}", berth=which)
    if kind == "yard":
        return Mp("manila space, capitalised", "Shipyard space {berth}", berth=which)
    if kind == "pilot":
        return Mp("manila space, capitalised", "The {size} pilot", size=PILOT_NAMES[which])
    if space == "pirate":
        return Mp("manila space, capitalised", "The pirate boat")
    if kind == "pirate":
        if which == "captain":
            return Mp("manila space, capitalised", "The pirate captain's space")
        return Mp("manila space, capitalised", "The second pirate space")
    return Mp("manila space, capitalised", "The insurance office")


def join_names(names: list[Any]) -> Any:
    """ "A", "A and B", "A, B and C" (messages), "" for none."""
    return joined(names)


def pesos(amount: int) -> Msg:
    """'1 peso', '5 pesos': a punt's cheapest crew space can cost 1."""
    return Mn("{count} peso", "{count} pesos", amount)
