"""The turn order's syntax: free text, one step per line or between ";", parsed into plain tuples and
written back in one canonical spelling (that canonical text is the stored, normalised order).

    row NE                 a Row card: one space in any direction
    sail E 2               a Sail East card: 1 or 2 spaces east (no number: 1)
    buy / buy 2            at a centre: your hand's cards of its commodity go to your hold, 1 gold each
    sell wine / sell 2 wine / sell all
                           at a centre: hold cards for 2 gold, 3 for the centre's most desired good
    offer Blue give hold silk, hand 2 wine for hold oil
                           a trade with an adjacent ship; ends this part of the turn
    offer Blue; give hold silk; give hand 2 wine; want hold oil
                           the same offer, a card at a time ('give' and 'want' add to the offer before them)
    pirate 1 NE 2          a Sail NE card moves pirate 1 one or two spaces north-east
    storm C4               discard a Storm card to put your storm counter on C4
    pass                   nothing (an empty order ends the turn with no moves)

Phases come in the rulebook's order: sailing and trading mixed freely (the trade-and-sail rule), then
piracy, then one storm. An offer must be the last step; piracy and the storm then come in the rest of
the turn, after the answer.
"""

from __future__ import annotations

import re
from typing import Any

from games.engines.base import M, Mp, Msg, OrderError, OrderIncomplete, Typed, joined
from games.engines.phoenician.data import (
    COLOUR_NAMES,
    COLOURS,
    COMMODITIES,
    DIRECTIONS,
    GOOD_NAMES,
    colour,
    good_name,
    parse_square,
    square_name,
)

Step = tuple[Any, ...]
SEPARATORS = re.compile(r"[;\n\r]+")
PASS_WORDS = {"pass", "end", "done", "nothing", "none", "end turn"}
DIRECTION_WORDS = {
    **{code.lower(): code for code in DIRECTIONS},
    "north": "N",
    "south": "S",
    "east": "E",
    "west": "W",
    "northeast": "NE",
    "southeast": "SE",
    "northwest": "NW",
    "southwest": "SW",
}
GOOD_WORDS = {good.lower(): good for good in COMMODITIES} | {"spice": "Spices"}
PHASE_OF = {"row": 0, "sail": 0, "buy": 0, "sell": 0, "offer": 1, "pirate": 2, "storm": 3}
ADDS_TO_OFFER = {"give": 2, "want": 3}  # the offer tuple's place each adds cards to
# The words of the typed syntax, each with what says it in a reader's language (Engine.typed_words): the
# commodities and the ships' colours as the game names them, and the steps' own words. The compass's letters stay
# N, NE, E ... in every language (docs/glossary-phoenician.md). The help's examples and the reply reader both go
# through it.
TYPED_WORDS: dict[str, Msg] = {
    **{good.lower(): term for good, term in GOOD_NAMES.items()},
    **COLOUR_NAMES,
    "row": Mp("phoenician reply word", "row"),
    "sail": Mp("phoenician reply word", "sail"),
    "buy": Mp("phoenician reply word", "buy"),
    "sell": Mp("phoenician reply word", "sell"),
    "offer": Mp("phoenician reply word", "offer"),
    "give": Mp("phoenician reply word", "give"),
    "want": Mp("phoenician reply word", "want"),
    "for": Mp("phoenician reply word", "for"),
    "hold": Mp("phoenician reply word", "hold"),
    "hand": Mp("phoenician reply word", "hand"),
    "all": Mp("phoenician reply word", "all"),
    "nothing": Mp("phoenician reply word", "nothing"),
    "pirate": Mp("phoenician reply word", "pirate"),
    "storm": Mp("phoenician reply word", "storm"),
    "pass": Mp("phoenician reply word", "pass"),
}


def typed(text: str) -> Msg:
    """Steps of the typed syntax in a message: written in the reader's words (TYPED_WORDS)."""
    return Typed("phoenician", text)


HELP = M(
    "Steps in order, separated by ';' or new lines. Sail and trade in any mix: '{row}' (a Row card: 1 space, any "
    "direction), '{sail}' (a Sail East card: 1 or 2 spaces east), '{buy}' or '{buy_2}' (at a centre: your hand's "
    "cards of its commodity into your hold, 1 gold each), '{sell}', '{sell_2}' or '{sell_all}' (hold cards: 2 gold, "
    "3 for what the centre most desires). You may end with '{offer}' (or '{offer_steps}') to trade with an adjacent "
    "ship: your turn continues after the answer. Then piracy: '{pirate}' (a Sail NE card moves pirate 1). Then "
    "'{storm}' (discard a Storm card). '{pass_}' or nothing ends the turn with no moves.",
    row=typed("row NE"),
    sail=typed("sail E 2"),
    buy=typed("buy"),
    buy_2=typed("buy 2"),
    sell=typed("sell wine"),
    sell_2=typed("sell 2 wine"),
    sell_all=typed("sell all"),
    offer=typed("offer Blue give hold silk, hand 2 wine for hold oil"),
    offer_steps=typed("offer Blue; give hold silk; give hand 2 wine; want hold oil"),
    pirate=typed("pirate 1 NE 2"),
    storm=typed("storm C4"),
    pass_=typed("pass"),
)


def parse(text: str, players: int, complete: bool = True) -> list[Step]:
    """The steps of a turn; with `complete`, an offer that moves no card yet is refused (OrderIncomplete)."""
    steps: list[Step] = []
    parts = [part.strip() for part in SEPARATORS.split(text or "")]
    parts = [part for part in parts if part]
    for number, part in enumerate(parts, start=1):
        words = part.lower().replace("-", "").split()
        if " ".join(words) in PASS_WORDS:
            continue
        if words[0] in ADDS_TO_OFFER:
            _add_to_offer(steps, words, number, part)
            continue
        try:
            parsed = _parse_step(words, players)
        except OrderError as error:
            raise OrderError(step_problem(number, part, error.message)) from None
        if steps:
            previous = PHASE_OF[steps[-1][0]]
            if previous == 1:
                last = M("an offer must be the last step; the rest of your turn comes after the answer.")
                raise OrderError(step_problem(number, part, last))
            if PHASE_OF[parsed[0]] < previous or (previous == 3 and parsed[0] == "storm"):
                raise OrderError(step_problem(number, part, _order_problem(parsed[0], steps[-1][0])))
        steps.append(parsed)
    if complete and steps and steps[-1][0] == "offer" and not steps[-1][2] and not steps[-1][3]:
        # More steps fix it ("give hand wine"): the builder may offer a bare "offer Blue" first.
        target = colour(steps[-1][1])
        raise OrderIncomplete(
            M("Your offer to {ship} must move at least one card: say what you give or want.", ship=target)
        )
    return steps


def step_problem(number: int, written: str, problem: Any) -> Msg:
    """ "Step 2 ('sail E 2'): that would sail off the map." (the step in the reader's words)"""
    return M("Step {number} ({step}): {problem}", number=number, step=typed(f"'{written}'"), problem=problem)


def _add_to_offer(steps: list[Step], words: list[str], number: int, part: str) -> None:
    """'give hand 2 wine' or 'want hold oil' after an offer: more cards for it."""
    if not steps or steps[-1][0] != "offer":
        problem = M(
            "{word} adds cards to the offer just before it; start with '{offer} <ship>'.",
            word=typed(f"'{words[0]}'"),
            offer=typed("offer"),
        )
        raise OrderError(step_problem(number, part, problem))
    try:
        items = _items(" ".join(words[1:]))
    except OrderError as error:
        raise OrderError(step_problem(number, part, error.message)) from None
    if not items:
        problem = M("say which cards, e.g. {example}.", example=typed(f"'{words[0]} hand wine'"))
        raise OrderError(step_problem(number, part, problem))
    offer = list(steps[-1])
    place = ADDS_TO_OFFER[words[0]]
    offer[place] = sorted(offer[place] + items)
    steps[-1] = tuple(offer)


def _order_problem(kind: str, previous: str) -> Msg:
    if previous == "storm" and kind == "storm":
        return M("you may place only one storm counter a turn.")
    if previous == "storm":
        return M("the storm phase is the last of the turn.")
    return M("sailing and trading come before piracy.")


def _parse_step(words: list[str], players: int) -> Step:
    verb, rest = words[0], words[1:]
    if verb == "row":
        if len(rest) != 1:
            raise OrderError(
                M("write '{row}' and one direction, e.g. '{example}'.", row=typed("row"), example=typed("row NE"))
            )
        return ("row", _direction(rest[0]))
    if verb == "sail":
        if len(rest) not in (1, 2):
            raise OrderError(
                M(
                    "write '{sail}', a direction and 1 or 2 spaces, e.g. '{example}'.",
                    sail=typed("sail"),
                    example=typed("sail E 2"),
                )
            )
        return ("sail", _direction(rest[0]), _spaces(rest[1:]))
    if verb == "buy":
        return ("buy", *_amount_and_good(rest, "buy"))
    if verb == "sell":
        if rest == ["all"]:
            return ("sell", "all", 0)
        return ("sell", *_amount_and_good(rest, "sell"))
    if verb == "offer":
        return _parse_offer(rest, players)
    if verb == "pirate":
        if len(rest) not in (2, 3) or rest[0] not in ("1", "2"):
            raise OrderError(
                M(
                    "write '{pirate}', the pirate's number (1 or 2), a direction and 1 or 2 spaces.",
                    pirate=typed("pirate"),
                )
            )
        return ("pirate", int(rest[0]), _direction(rest[1]), _spaces(rest[2:]))
    if verb == "storm":
        square = parse_square(rest[0]) if len(rest) == 1 else None
        if square is None:
            raise OrderError(
                M(
                    "write '{storm}' and a space of the map, e.g. '{example}'.",
                    storm=typed("storm"),
                    example=typed("storm C4"),
                )
            )
        return ("storm", square)
    raise OrderError(
        M(
            "unknown step; steps are {steps} or {last}.",
            steps=typed("row, sail, buy, sell, offer, pirate, storm"),
            last=typed("pass"),
        )
    )


def _direction(word: str) -> str:
    if word not in DIRECTION_WORDS:
        raise OrderError(M("{typed} is not a direction; use N, NE, E, SE, S, SW, W or NW.", typed=f"'{word}'"))
    return DIRECTION_WORDS[word]


def _spaces(words: list[str]) -> int:
    if not words:
        return 1
    if words[0] not in ("1", "2"):
        raise OrderError(M("a Sail card moves 1 or 2 spaces."))
    return int(words[0])


def _amount_and_good(words: list[str], verb: str) -> tuple[str, int]:
    """'[N] [good]' in either order; no good: '' (buy: the centre's own; sell is then an error), no N: 0 (all)."""
    amount, good = 0, ""
    for word in words:
        if word.isdigit() and not amount:
            amount = int(word)
            if not 1 <= amount <= 20:
                raise OrderError(
                    M("cannot buy {count} cards.", count=amount)
                    if verb == "buy"
                    else M("cannot sell {count} cards.", count=amount)
                )
        elif word in GOOD_WORDS and not good:
            good = GOOD_WORDS[word]
        else:
            raise OrderError(
                M(
                    "write '{buy}', a number of cards and a commodity, e.g. '{example}'.",
                    buy=typed("buy"),
                    example=typed("buy 2 wine"),
                )
                if verb == "buy"
                else M(
                    "write '{sell}', a number of cards and a commodity, e.g. '{example}'.",
                    sell=typed("sell"),
                    example=typed("sell 2 wine"),
                )
            )
    if verb == "sell" and not good:
        raise OrderError(
            M(
                "say what to sell, e.g. '{one}', '{two}' or '{all}'.",
                one=typed("sell wine"),
                two=typed("sell 2 wine"),
                all=typed("sell all"),
            )
        )
    return good, amount


def _parse_offer(words: list[str], players: int) -> Step:
    if len(words) == 1:
        return ("offer", seat_named(words[0], players), [], [])  # its cards follow in 'give'/'want' steps
    text = " ".join(words).replace(",", " , ")
    match = re.fullmatch(r"(\S+)\s+give\s+(.*?)\s*\bfor\b\s*(.*)", text)
    if not match:
        raise OrderError(
            M(
                "write '{offer}', a player, '{give}', what you give, '{for_}' and what you want.",
                offer=typed("offer"),
                give=typed("give"),
                for_=typed("for"),
            )
        )
    seat = seat_named(match.group(1), players)
    give, want = _items(match.group(2)), _items(match.group(3))
    if not give and not want:
        raise OrderError(M("an offer must move at least one card."))
    return ("offer", seat, give, want)


def seat_named(word: str, players: int) -> int:
    names = [colour.lower() for colour in COLOURS[:players]]
    if word in names:
        return names.index(word)
    ships = joined([colour(seat) for seat in range(players)], ",")
    raise OrderError(M("there is no ship called {typed}; the ships are {ships}.", typed=f"'{word}'", ships=ships))


def _items(text: str) -> list[list[str]]:
    """'hold silk, hand 2 wine' -> [["hold", "Silk"], ["hand", "Wine"], ["hand", "Wine"]] (sorted)."""
    items: list[list[str]] = []
    text = text.strip()
    if text in ("", "nothing"):
        return items
    for chunk in re.split(r"\s*,\s*|\s+and\s+", text):
        words = chunk.split()
        if not words:
            continue
        place = words[0]
        count = words[1] if len(words) == 3 else "1"
        if place not in ("hand", "hold") or len(words) not in (2, 3) or not count.isdigit():
            raise OrderError(
                M(
                    "{typed} should name where the cards are and what, e.g. 'hold silk' or 'hand 2 wine'.",
                    typed=f"'{chunk}'",
                )
            )
        good = GOOD_WORDS.get(words[-1])
        if good is None:
            raise OrderError(M("{typed} is not a commodity; only commodity cards are traded.", typed=f"'{words[-1]}'"))
        if not 1 <= int(count) <= 12:
            raise OrderError(M("cannot trade {count} cards of {good}.", count=int(count), good=good_name(good)))
        items += [[place, good]] * int(count)
    return sorted(items)


def canonical(steps: list[Step]) -> str:
    return "; ".join(spell(step) for step in steps) or "pass"


def spell(step: Step) -> str:
    kind = step[0]
    if kind == "row":
        return f"row {step[1]}"
    if kind == "sail":
        return f"sail {step[1]} {step[2]}"
    if kind in ("buy", "sell"):
        good, amount = step[1], step[2]
        words = [kind, str(amount) if amount else "", good.lower()]
        return " ".join(word for word in words if word)
    if kind == "offer":
        return f"offer {COLOURS[step[1]]} give {_spell_items(step[2])} for {_spell_items(step[3])}"
    if kind == "pirate":
        return f"pirate {step[1]} {step[2]} {step[3]}"
    return f"storm {square_name(step[1])}"


def _spell_items(items: list[list[str]]) -> str:
    if not items:
        return "nothing"
    counted: dict[tuple[str, str], int] = {}
    for place, good in items:
        counted[(place, good)] = counted.get((place, good), 0) + 1
    return ", ".join(f"{place} {n} {good.lower()}" for (place, good), n in counted.items())
