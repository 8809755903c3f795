"""The small text languages of a Genoa order, parsed into plain dicts and written back canonically.

Steps are separated by ";" or new lines (an emailed reply gives a field one line). Errors name the step
that is wrong, counting from 1, in the game's words. Only the shape is checked here; whether the player
holds what they name is checked in `orders`, against the state.

    offers   Harbor: 20 ducats + silk; Tavern: 10; Villa Colini: 5 + gained + deliver L3 + reward extra
             (a step starting with "+" adds to the offer before it: "Harbor: 20 ducats; + silk")
    route    Street 3-2; Coach House = Red; Spices = me deliver S14
    tiles    trade wine for silk; choose pepper; build Guild Hall
"""

from __future__ import annotations

import re
from typing import Any

from games.engines.base import M, Mn, Mp, Msg, OrderError, Typed, joined
from games.engines.genoa.data import (
    ALL_CARDS,
    COLOUR_TERMS,
    COLOURS,
    COMMODITIES,
    COMMODITY_TERMS,
    TILE_SHORT,
    TILES,
    ducats,
    good_term,
)
from games.engines.genoa.map import BUILDING_NAMES, BUILDING_TERMS, MARKET, parse_space, space_name, space_term

# The words of the typed syntax, each with what says it in a reader's language (Engine.typed_words): the game's
# terms (buildings, commodities, colours, the special tiles' short names, which are also the tile plays' verbs
# 'trade' and 'build' and the route's 'start'), and the syntax's own words. The help's examples (Typed) and the
# reply reader both go through it.
TYPED_WORDS: dict[str, Msg] = {
    **{BUILDING_NAMES[building]: term for building, term in BUILDING_TERMS.items()},
    "Market": Mp("genoa space", "Market"),
    "Street": Mp("genoa reply word", "Street"),
    **COMMODITY_TERMS,
    **COLOUR_TERMS,
    **TILE_SHORT,
    "ducats": Mp("genoa reply word", "ducats"),
    "ducat": Mp("genoa reply word", "ducat"),
    "tile": Mp("genoa reply word", "tile"),
    "markers": Mp("genoa reply word", "markers"),
    "marker": Mp("genoa reply word", "marker"),
    "gained": Mp("genoa reply word", "gained"),
    "deliver": Mp("genoa reply word", "deliver"),
    "reward": Mp("genoa reply word", "reward"),
    "nothing": Mp("genoa reply word", "nothing"),
    "me": Mp("genoa reply word", "me"),
    "nobody": Mp("genoa reply word", "nobody"),
    "choose": Mp("genoa reply word", "choose"),
    "for": Mp("genoa reply word", "for"),
}


def typed(text: str) -> Msg:
    """Steps of the typed syntax in a message: written in the reader's words (TYPED_WORDS)."""
    return Typed("genoa", text)


STEP_SPLIT = re.compile(r"[;\n]+")
ROUTE_SPLIT = re.compile(r"[;\n,]+|->")
ITEM_SPLIT = re.compile(r"[+,]|\band\b")
NUMBER = re.compile(r"(\d{1,6})\s*(.*)")
TILE_WORDS = {
    "start": "start",
    "starting": "start",
    "startingspace": "start",
    "trade": "trade",
    "trade11": "trade",
    "choice": "choice",
    "commodityofyourchoice": "choice",
    "commodity": "choice",
    "extra": "extra",
    "extraaction": "extra",
    "build": "build",
    "building": "build",
    "buildingaction": "build",
}
ME_WORDS = {"me", "myself", "merchant", "i", "self"}
NOBODY_WORDS = {"none", "nobody", "no one", "noone", "-", "no"}
NOTHING_WORDS = {"nothing", "none", "free", "0"}


def steps(text: Any, splitter: re.Pattern[str] = STEP_SPLIT) -> list[str]:
    if text is None:
        return []
    if isinstance(text, (list, tuple)):
        text = "\n".join(str(part) for part in text)
    if not isinstance(text, str):
        raise OrderError(M("Write your order as text."))
    return [part.strip() for part in splitter.split(text) if part.strip()]


def parse_card(word: str) -> str | None:
    card = re.sub(r"^card\s*", "", word.strip(), flags=re.I).upper().replace(" ", "")
    return card if card in ALL_CARDS else None


def parse_tile(words: str) -> str | None:
    squeezed = re.sub(r"[^a-z0-9]", "", words.lower().replace("tile", ""))
    return TILE_WORDS.get(squeezed)


def parse_good(word: str) -> str | None:
    word = word.strip().lower().rstrip("s") if word.strip().lower() not in COMMODITIES else word.strip().lower()
    return word if word in COMMODITIES else None


def parse_seat(word: str, players: int, merchant: int) -> int | None:
    """The seat named: "me" is the merchant, a colour its seat, -1 nobody; None if not understood."""
    lowered = word.strip().lower()
    if lowered in ME_WORDS:
        return merchant
    if lowered in NOBODY_WORDS:
        return -1
    names = [name.lower() for name in COLOURS[:players]]
    if lowered in names:
        return names.index(lowered)
    return None


def empty_offer(space: str) -> dict[str, Any]:
    return {
        "space": space,
        "ducats": 0,
        "goods": [],
        "cards": [],
        "tiles": [],
        "markers": 0,
        "gained": False,
        "deliver": [],
        "reward": None,
    }


def _choice_item(item: str, choices: dict[str, Any], where: Msg) -> bool:
    """`deliver L3` or `reward extra`: a choice the action needs. True if `item` was one."""
    lowered = item.lower()
    if lowered.startswith("deliver"):
        card = parse_card(item[len("deliver") :])
        if card is None or card[0] not in "LS":
            raise OrderError(
                M(
                    "{where}: '{deliver}' needs a large or small order card, e.g. {example}.",
                    where=where,
                    deliver=typed("deliver"),
                    example=typed("deliver L3"),
                )
            )
        if card not in choices["deliver"]:
            choices["deliver"].append(card)
        return True
    if lowered.startswith("reward"):
        tile = parse_tile(item[len("reward") :])
        if tile is None:
            raise OrderError(
                M(
                    "{where}: '{reward}' names a special tile: {tiles} or {last}.",
                    where=where,
                    reward=typed("reward"),
                    tiles=typed("start, trade, choice, extra"),
                    last=typed("build"),
                )
            )
        choices["reward"] = tile
        return True
    return False


def offer_steps(text: Any) -> list[str]:
    """The offers of an offers field, one text each: a step starting with "+" adds to the one before it."""
    offers: list[str] = []
    for step in steps(text):
        if not step.startswith("+"):
            offers.append(step)
        elif offers:
            offers[-1] += " " + step
        else:
            raise OrderError(
                M(
                    "Offer 1 ({step}): a step starting with '+' adds to the offer before it; begin with the "
                    "space, e.g. '{example}'.",
                    example=typed("Harbor: 20 ducats"),
                    step=typed(step[:40]),
                )
            )
    return offers


def parse_offers(text: Any) -> list[dict[str, Any]]:
    return [parse_offer(step, number) for number, step in enumerate(offer_steps(text), start=1)]


def parse_offer(step: str, number: int) -> dict[str, Any]:
    where = M("Offer {number} ({step})", number=number, step=typed(step[:40]))
    if ":" not in step:
        raise OrderError(
            M(
                "{where}: write the space, a colon, then the price, e.g. '{example}'.",
                where=where,
                example=typed("Harbor: 20 ducats + silk"),
            )
        )
    head, _, tail = step.partition(":")
    space = parse_space(head)
    if space is None:
        raise OrderError(
            M("{where}: there is no space called {typed}.", where=where, typed=typed(repr(head.strip()[:30])))
        )
    if space == MARKET:
        raise OrderError(M("{where}: the Market has no action; offer for a building or a street.", where=where))
    offer = empty_offer(space)
    for raw in ITEM_SPLIT.split(tail):
        item = raw.strip()
        if not item or item.lower() in NOTHING_WORDS:
            continue
        if _choice_item(item, offer, where):
            continue
        _payment_item(item, offer, where)
    offer["goods"] = sorted(offer["goods"], key=COMMODITIES.index)
    offer["cards"] = sorted(offer["cards"], key=ALL_CARDS.index)
    offer["tiles"] = sorted(offer["tiles"], key=list(TILES).index)
    return offer


def _payment_item(item: str, offer: dict[str, Any], where: Msg) -> None:
    lowered = item.lower()
    if lowered in {"gained", "gain", "what i gain", "the gains", "goods gained"}:
        offer["gained"] = True
        return
    card = parse_card(item)
    if card is not None:
        offer["cards"].append(card)
        return
    if "tile" in lowered:
        tile = parse_tile(lowered)
        if tile is None:
            raise OrderError(
                M(
                    "{where}: unknown tile {typed}; tiles are {tiles}.",
                    where=where,
                    tiles=typed("start, trade, choice, extra, build"),
                    typed=typed(repr(item[:30])),
                )
            )
        offer["tiles"].append(tile)
        return
    count, rest = 1, lowered
    match = NUMBER.fullmatch(lowered)
    if match:
        count, rest = int(match.group(1)), match.group(2).strip()
    if rest in {"", "ducats", "ducat", "d", "coins"}:
        offer["ducats"] += count if match else 0
        if not match:
            raise OrderError(
                M(
                    "{where}: {typed} is not a price; write e.g. '{example}'.",
                    where=where,
                    typed=typed(repr(item[:30])),
                    example=typed("20 ducats"),
                )
            )
        return
    if rest.startswith("marker") or rest.startswith("ownership marker"):
        offer["markers"] += count
        return
    good = parse_good(rest)
    if good is None:
        raise OrderError(
            M(
                "{where}: {typed} is not something to pay with; use ducats, commodities ({goods}), cards (L3), "
                "tiles ({tile}), markers or '{gained}'.",
                where=where,
                typed=typed(repr(item[:30])),
                goods=typed(", ".join(COMMODITIES)),
                tile=typed("extra tile"),
                gained=typed("gained"),
            )
        )
    if count > 5:
        raise OrderError(M("{where}: there are only 5 {good} tiles in the game.", where=where, good=good_term(good)))
    offer["goods"] += [good] * count


def offer_text(offer: dict[str, Any]) -> str:
    """An offer as a typed order writes it (the reply syntax's English): "Harbor: 20 ducats + silk"."""
    items = [f"{offer['ducats']} ducat{'' if offer['ducats'] == 1 else 's'}"] if offer["ducats"] else []
    items += offer["goods"] + offer["cards"] + [f"{tile} tile" for tile in offer["tiles"]]
    if offer["markers"]:
        items.append(f"{offer['markers']} marker{'' if offer['markers'] == 1 else 's'}")
    if offer["gained"]:
        items.append("gained")
    items += [f"deliver {card}" for card in offer["deliver"]]
    if offer["reward"]:
        items.append(f"reward {offer['reward']}")
    return f"{space_name(offer['space'])}: {' + '.join(items) if items else 'nothing'}"


def price_of(offer: dict[str, Any]) -> Msg:
    """What an offer pays, as a person reads it in their language: "20 ducats + silk" (offer_text's English)."""
    items: list[Any] = [ducats(offer["ducats"])] if offer["ducats"] else []
    items += [good_term(good) for good in offer["goods"]] + list(offer["cards"])
    items += [M("{tile} tile", tile=TILE_SHORT[tile]) for tile in offer["tiles"]]
    if offer["markers"]:
        items.append(markers_word(offer["markers"]))
    if offer["gained"]:
        items.append(M("gained"))
    items += [M("deliver {card}", card=card) for card in offer["deliver"]]
    if offer["reward"]:
        items.append(M("reward {tile}", tile=TILE_SHORT[offer["reward"]]))
    return joined(items, "+") if items else M("nothing")


def offer_words(offer: dict[str, Any]) -> Msg:
    """An offer as a person reads it: "Harbor: 20 ducats + silk"."""
    return M("{space}: {price}", space=space_term(offer["space"]), price=price_of(offer))


def markers_word(count: int) -> Msg:
    """'1 marker', '2 markers' (an offer's short word for ownership markers)."""
    return Mn("{count} marker", "{count} markers", count)


def parse_route(text: Any, players: int, merchant: int, start: str) -> list[dict[str, Any]]:
    """[{space, seat (None: not named, -1: nobody), deliver, reward}] in the order written; "start"
    names the start space."""
    parsed = []
    for number, step in enumerate(steps(text, ROUTE_SPLIT), start=1):
        where = M("Route step {number} ({step})", number=number, step=typed(step[:40]))
        head, has_who, tail = step.partition("=")
        named = re.sub(r"^\s*start\b", "", head, flags=re.I).strip()
        space = parse_space(named) if named else start
        if space is None:
            raise OrderError(
                M("{where}: there is no space called {typed}.", where=where, typed=typed(repr(head.strip()[:30])))
            )
        entry: dict[str, Any] = {"space": space, "seat": None, "deliver": [], "reward": None}
        if has_who:
            words = tail.split()
            if not words:
                raise OrderError(
                    M(
                        "{where}: after '=' name who acts: {me}, a colour, or {nobody}.",
                        where=where,
                        me=typed("me"),
                        nobody=typed("nobody"),
                    )
                )
            seat = parse_seat(words[0], players, merchant)
            if seat is None:
                raise OrderError(
                    M(
                        "{where}: {typed} is not a player here; write {me}, a colour or {nobody}.",
                        where=where,
                        me=typed("me"),
                        nobody=typed("nobody"),
                        typed=typed(repr(words[0][:20])),
                    )
                )
            entry["seat"] = seat
            for item in re.split(r"\s+(?=deliver|reward)", " ".join(words[1:]), flags=re.I):
                if item and not _choice_item(item, entry, where):
                    raise OrderError(
                        M(
                            "{where}: {typed} is not understood; only deliver or reward may follow.",
                            where=where,
                            typed=typed(repr(item[:30])),
                        )
                    )
        parsed.append(entry)
    return parsed


def route_text(route: list[dict[str, Any]]) -> str:
    parts = []
    for entry in route:
        text = space_name(entry["space"])
        if entry["seat"] is not None:
            text += " = " + ("nobody" if entry["seat"] < 0 else COLOURS[entry["seat"]])
            text += "".join(f" deliver {card}" for card in entry["deliver"])
            text += f" reward {entry['reward']}" if entry["reward"] else ""
        parts.append(text)
    return "; ".join(parts)


def parse_tiles(text: Any) -> list[dict[str, Any]]:
    plays = []
    for number, step in enumerate(steps(text), start=1):
        where = M("Tile play {number} ({step})", number=number, step=typed(step[:40]))
        words = step.split()
        verb = words[0].lower()
        if verb == "trade":
            match = re.fullmatch(r"trade\s+(\w+)\s+(?:for|->|to)\s+(\w+)", step.strip(), flags=re.I)
            give, take = (parse_good(match.group(1)), parse_good(match.group(2))) if match else (None, None)
            if give is None or take is None or give == take:
                raise OrderError(
                    M(
                        "{where}: write '{trade} <commodity> {for_} <another commodity>'.",
                        where=where,
                        trade=typed("trade"),
                        for_=typed("for"),
                    )
                )
            plays.append({"tile": "trade", "give": give, "take": take})
        elif verb in {"choose", "commodity", "choice", "take"}:
            good = parse_good(" ".join(words[1:]))
            if good is None:
                raise OrderError(
                    M(
                        "{where}: write '{choose} <commodity>', one of {goods}.",
                        where=where,
                        choose=typed("choose"),
                        goods=typed(", ".join(COMMODITIES)),
                    )
                )
            plays.append({"tile": "choice", "good": good})
        elif verb in {"build", "building"}:
            rest = re.split(r"\s+(?=deliver|reward)", " ".join(words[1:]), flags=re.I)
            building = parse_space(rest[0]) if rest else None
            if building is None or building == MARKET or "-" in building:
                raise OrderError(
                    M(
                        "{where}: write '{build} <building>' to take a building's action with the tile.",
                        where=where,
                        build=typed("build"),
                    )
                )
            play: dict[str, Any] = {"tile": "build", "building": building, "deliver": [], "reward": None}
            for item in rest[1:]:
                _choice_item(item, play, where)
            plays.append(play)
        else:
            raise OrderError(
                M(
                    "{where}: a tile play starts with {trade}, {choose} or {build}.",
                    where=where,
                    trade=typed("trade"),
                    choose=typed("choose"),
                    build=typed("build"),
                )
            )
    return plays


def tiles_text(plays: list[dict[str, Any]]) -> str:
    parts = []
    for play in plays:
        if play["tile"] == "trade":
            parts.append(f"trade {play['give']} for {play['take']}")
        elif play["tile"] == "choice":
            parts.append(f"choose {play['good']}")
        else:
            text = f"build {space_name(play['building'])}"
            text += "".join(f" deliver {card}" for card in play["deliver"])
            parts.append(text + (f" reward {play['reward']}" if play["reward"] else ""))
    return "; ".join(parts)
