"""Goods, countries and cards of Port of Piraeus.

A card is the string "Good/Country", e.g. "Furs/Greeks". Cards of the same good and country are
interchangeable, so the string is all the identity a card needs, and it reads well in the stored state.
"""

from __future__ import annotations

from games.engines.base import Mp, Msg, joined

GOODS: tuple[str, ...] = ("Furs", "Tableware", "Food", "Jewelry", "Spices", "Fabrics")
COUNTRIES: tuple[str, ...] = ("Romans", "Barbarians", "Egyptians", "Indians", "Chinese", "Persians")
GREEKS = "Greeks"
ORIGINS: tuple[str, ...] = (*COUNTRIES, GREEKS)

DAYS = 8
DEAL_ROUNDS = 3
START_CASH = 10
START_PRICE = 5
MIN_PRICE = 1
MAX_PRICE = 9
GREEK_CARDS_PER_DAY = 3
MAX_CARDS_FOR_SALE = 2
# HOUSE DEFAULT (RULES.md): the published Greek deck has 18 cards; we assume 3 of each good.
GREEK_CARDS_PER_GOOD = 3

# The goods' and peoples' names as the players read them: terms, translated with the sentence they stand in.
GOOD_NAMES: dict[str, Msg] = {
    "Furs": Mp("piraeus good", "Furs"),
    "Tableware": Mp("piraeus good", "Tableware"),
    "Food": Mp("piraeus good", "Food"),
    "Jewelry": Mp("piraeus good", "Jewelry"),
    "Spices": Mp("piraeus good", "Spices"),
    "Fabrics": Mp("piraeus good", "Fabrics"),
}
COUNTRY_NAMES: dict[str, Msg] = {
    "Romans": Mp("piraeus people", "Romans"),
    "Barbarians": Mp("piraeus people", "Barbarians"),
    "Egyptians": Mp("piraeus people", "Egyptians"),
    "Indians": Mp("piraeus people", "Indians"),
    "Chinese": Mp("piraeus people", "Chinese"),
    "Persians": Mp("piraeus people", "Persians"),
    "Greeks": Mp("piraeus people", "Greeks"),
}


def good_name(good: str) -> Msg:
    return GOOD_NAMES[good]


def country_name(country: str) -> Msg:
    return COUNTRY_NAMES[country]


# Dark enough for white text on them (at least 4.5:1, WCAG AA): the pages label cards that way. And dark enough
# (lightness at most about 40%) that a mail client inverting each colour's lightness leaves 4.5:1 with black text.
GOOD_COLOURS: dict[str, str] = {
    "Furs": "#8d5a3b",
    "Tableware": "#3f6f9f",
    "Food": "#478136",
    "Jewelry": "#956b0d",
    "Spices": "#c2502a",
    "Fabrics": "#6c3f86",
}
COUNTRY_COLOURS: dict[str, str] = {
    "Romans": "#b83232",
    "Barbarians": "#3d6b35",
    "Egyptians": "#c8a24a",
    "Indians": "#e07b1f",
    "Chinese": "#7a1f3d",
    "Persians": "#2a5d9f",
    "Greeks": "#6f8fa8",
}


def make_card(good: str, country: str) -> str:
    return f"{good}/{country}"


def good_of(card: str) -> str:
    return card.split("/", 1)[0]


def country_of(card: str) -> str:
    return card.split("/", 1)[1]


def card_label(card: str) -> Msg:
    return Mp("piraeus card", "{good} ({people})", good=good_name(good_of(card)), people=country_name(country_of(card)))


def good_index(good: str) -> int:
    return GOODS.index(good)


def country_deck(country: str) -> list[str]:
    """HOUSE DEFAULT (RULES.md): country i holds two each of goods i and i+1 (mod 6), one of each other."""
    index = COUNTRIES.index(country)
    doubled = {index, (index + 1) % len(GOODS)}
    deck: list[str] = []
    for good_number, good in enumerate(GOODS):
        deck.extend([make_card(good, country)] * (2 if good_number in doubled else 1))
    return deck


def greek_deck() -> list[str]:
    return [make_card(good, GREEKS) for good in GOODS for _ in range(GREEK_CARDS_PER_GOOD)]


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=lambda card: (ORIGINS.index(country_of(card)), good_index(good_of(card))))


def join_names(names: list[Msg]) -> Msg:
    """ "A", "A and B", "A, B and C" of names (terms), or "nobody"."""
    return joined(names) if names else Mp("piraeus", "nobody")


def join_goods(goods: list[str]) -> Msg:
    """Goods by name, "Furs, Food and Spices"."""
    return join_names([good_name(good) for good in goods])


def join_countries(countries: list[str]) -> Msg:
    return join_names([country_name(country) for country in countries])
