"""What one seat may see. Hands are private; roles, rows, cash and collected cards are on the table.

Sealed choices never reach the state before they resolve (the server keeps them), so the view only has
to hide other seats' hands. The shape is built for templates, which cannot index or do arithmetic:
cards and tracks come as small dicts with their colours and flags ready to draw.
"""

from __future__ import annotations

from typing import Any

from games.engines.base import Mp, Msg, State, joined
from games.engines.piraeus.data import (
    COUNTRY_COLOURS,
    DAYS,
    DEAL_ROUNDS,
    GOOD_COLOURS,
    GOODS,
    MAX_PRICE,
    MIN_PRICE,
    card_label,
    country_name,
    country_of,
    good_name,
    good_of,
)
from games.engines.piraeus.flow import price_of

Card = dict[str, Any]


def card_view(state: State, card: str, slot: str = "") -> Card:
    good, country = good_of(card), country_of(card)
    return {
        "slot": slot,
        "good": good_name(good),
        "country": country_name(country),
        "label": card_label(card),
        "price": price_of(state, card),
        "colour": GOOD_COLOURS[good],
        "border": COUNTRY_COLOURS[country],
    }


def _row(state: State, row: str, letter: str) -> list[Card]:
    return [card_view(state, card, f"{letter}{number}") for number, card in enumerate(state[row], start=1)]


def _tracks(state: State) -> list[dict[str, Any]]:
    return [
        {
            "good": good_name(good),
            "price": state["prices"][number],
            "colour": GOOD_COLOURS[good],
            "cells": [
                {"value": value, "current": value == state["prices"][number]}
                for value in range(MIN_PRICE, MAX_PRICE + 1)
            ],
        }
        for number, good in enumerate(GOODS)
    ]


ROLE_NAMES = {"buyer": Mp("piraeus role", "buyer"), "seller": Mp("piraeus role", "seller")}


def _role(state: State, seat: int) -> Msg | None:
    # Roles last one day; once the game is over, yesterday's token means nothing.
    role = None if state["finished"] else state["roles"][seat]
    return ROLE_NAMES[role] if role else None


def _players(state: State, viewer: int | None) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "country": country_name(country),
            "colour": COUNTRY_COLOURS[country],
            "cash": state["cash"][seat],
            "role": _role(state, seat),
            "hand_count": len(state["hands"][seat]),
            "collected": [card_view(state, card) for card in state["collected"][seat]],
            "collected_count": len(state["collected"][seat]),
            "is_viewer": seat == viewer,
        }
        for seat, country in enumerate(state["countries"])
    ]


def _private(state: State, seat: int | None) -> dict[str, Any]:
    if seat is None:
        return {"seat": None, "country": None, "cash": None, "role": None, "hand": None, "collected": None}
    return {
        "seat": seat,
        "country": country_name(state["countries"][seat]),
        "cash": state["cash"][seat],
        "role": _role(state, seat),
        "hand": [card_view(state, card) for card in state["hands"][seat]],
        "collected": [card_view(state, card) for card in state["collected"][seat]],
    }


def build_view(state: State, seat: int | None, phase: str, final: list[dict[str, Any]] | None) -> dict[str, Any]:
    if seat is not None and not 0 <= seat < len(state["countries"]):
        seat = None
    contests = [
        {
            "card": card_view(state, contest["card"]),
            "countries": joined([country_name(state["countries"][other]) for other in contest["seats"]], last=","),
        }
        for contest in state["contests"]
    ]
    return {
        "game": "piraeus",
        "day": state["day"],
        "days": DAYS,
        "day_track": [
            {"day": day, "current": day == state["day"], "past": day < state["day"]} for day in range(1, DAYS + 1)
        ],
        "step": state["step"],
        "phase": phase,
        "round": state["round"],
        "rounds": DEAL_ROUNDS,
        "finished": state["finished"],
        "goods": list(GOODS),
        "prices": list(state["prices"]),
        "tracks": _tracks(state),
        "greek_row": _row(state, "greek_row", "G"),
        "foreign_row": _row(state, "foreign_row", "F"),
        "greek_deck_size": len(state["greek_deck"]),
        "players": _players(state, seat),
        "contests": contests,
        "final": final,
        **_private(state, seat),
    }
