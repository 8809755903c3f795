"""An order form being built, kept in the player's session between a POST and the page it redirects to, and the
order a one-seat turn's review page shows.

Every post of the order form answers with a redirect (Post/Redirect/Get), so the address bar always holds the
game page and reloading it posts nothing again: "Add a step", "Remove the last step", a ranked list's buttons,
"Change" on the review, and an order refused (its form, shown again with why). What the next GET shows is this
draft: the form's data as the builder read it (or the stored order to start from, after "Change") and the
refusals the page could not work out again by itself (the engine's). A draft belongs to one game, seat and turn:
it is dropped when the order is stored, and ignored and dropped once that turn has moved on. It lives in the
server-side session, the player's own, like the order it may become; nothing else reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, QueryDict

SESSION_KEY = "pbem_drafts"
REVIEW_KEY = "pbem_reviews"


@dataclass(frozen=True)
class Draft:
    phase: int
    seat: int
    typed: bool  # which of the two forms (the builder or the typed syntax) it is
    data: dict[str, list[str]] | None = None  # a posted form, as read: shown again bound, with its errors
    initial: dict[str, Any] | None = None  # or an order to start from (the review's "Change")
    errors: tuple[str, ...] = ()  # refusals shown above the form

    def query(self) -> QueryDict:
        posted = QueryDict(mutable=True)
        for key, values in (self.data or {}).items():
            posted.setlist(key, values)
        return posted


def form_data(data: Any) -> dict[str, list[str]]:
    """A posted QueryDict (or the form's copy of it) as plain lists, without the CSRF token and the buttons."""
    skip = {"csrfmiddlewaretoken", "add", "remove", "rank_up", "rank_drop", "rank_add"}
    return {key: list(data.getlist(key)) for key in data if key not in skip}


def keep(request: HttpRequest, game_id: int, draft: Draft) -> None:
    drafts = request.session.get(SESSION_KEY, {})
    drafts[str(game_id)] = {
        "phase": draft.phase,
        "seat": draft.seat,
        "typed": draft.typed,
        "data": draft.data,
        "initial": draft.initial,
        "errors": list(draft.errors),
    }
    request.session[SESSION_KEY] = drafts


def take(request: HttpRequest, game_id: int, seat: int, phase: int) -> Draft | None:
    """The draft of this game's seat for this turn, if any (one for another turn or seat is dropped)."""
    kept = request.session.get(SESSION_KEY, {}).get(str(game_id))
    if kept is None:
        return None
    if kept["phase"] != phase or kept["seat"] != seat:
        drop(request, game_id)
        return None
    return Draft(kept["phase"], kept["seat"], kept["typed"], kept["data"], kept["initial"], tuple(kept["errors"]))


def drop(request: HttpRequest, game_id: int) -> None:
    """The game's draft and review are done with: the order is stored, or the turn has moved on."""
    for key in (SESSION_KEY, REVIEW_KEY):
        kept = request.session.get(key, {})
        if kept.pop(str(game_id), None) is not None:
            request.session[key] = kept


def keep_review(request: HttpRequest, game_id: int, token: str) -> None:
    """The signed order a one-seat turn's review page shows (games/incoming/review.py), until it is confirmed or
    changed."""
    reviews = request.session.get(REVIEW_KEY, {})
    reviews[str(game_id)] = token
    request.session[REVIEW_KEY] = reviews


def review_token(request: HttpRequest, game_id: int) -> str:
    return str(request.session.get(REVIEW_KEY, {}).get(str(game_id), ""))
