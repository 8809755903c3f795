"""Goods, countries and cards of Port of Piraeus.

A card is the string "Good/Country", e.g. "Furs/Greeks". Cards of the same good and country are
interchangeable, so the string is all the identity a card needs, and it reads well in the stored state.
"""

from __future__ import annotations

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


def card_label(card: str) -> str:
    return f"{good_of(card)} ({country_of(card)})"


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


def join_names(names: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    if not names:
        return "nobody"
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]
