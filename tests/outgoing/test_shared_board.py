"""`{% shared %}` (games/templatetags/shared_board.py): a part of an email board rendered once for every reader
of a batch, from the spectator's view only. (tests/outgoing/test_boards.py checks every game's emails, rendered so,
against the board rendered for each reader alone.)"""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest
from django.template import Context, Template
from django.utils import timezone

from games.engines.base import M, Mp
from games.templatetags import shared_board

PART = Template(
    "{% load shared_board %}<{{ player }}>{% shared %}[{{ player }}|{{ view.hand }}|{{ view.map }}]{% endshared %}"
)


def read(player: str, hand: str, renders: dict | None) -> str:
    context = {"player": player, "view": {"hand": hand, "map": "sea"}}
    if renders is not None:
        context |= {"public_view": {"hand": "", "map": "sea"}, "shared_renders": renders}
    return PART.render(Context(context))


def test_a_shared_part_sees_only_the_spectators_view_and_is_rendered_once_for_every_reader():
    renders: dict = {}
    assert read("Ann", "ann-cards", renders) == "<Ann>[||sea]"  # nothing of Ann's reaches the part
    assert len(renders) == 1
    renders[next(iter(renders))] = "(kept)"
    assert read("Bob", "bob-cards", renders) == "<Bob>(kept)"  # Bob's email reuses it


def test_a_reader_in_another_time_zone_gets_the_part_rendered_again():
    renders: dict = {}
    with timezone.override(ZoneInfo("Europe/Paris")):
        read("Ann", "", renders)
    with timezone.override(ZoneInfo("America/Chicago")):
        read("Bob", "", renders)
    assert len(renders) == 2


def test_outside_a_batch_the_part_is_rendered_for_its_reader():
    assert read("Ann", "ann-cards", None) == "<Ann>[Ann|ann-cards|sea]"


# `{% once %}`: a part rendered once per batch for each set of its values, seeing only them.
ONCE = Template("{% load shared_board %}<{{ player }}>{% once due=due %}[{{ player }}|{{ due }}]{% endonce %}")


def read_once(player: str, due: str, renders: dict | None) -> str:
    context: dict[str, object] = {"player": player, "due": due}
    if renders is not None:
        context["shared_renders"] = renders
    return ONCE.render(Context(context))


def test_a_once_part_sees_only_its_values_and_is_rendered_once_for_each_set_of_them():
    renders: dict = {}
    assert read_once("Ann", "Monday", renders) == "<Ann>[|Monday]"  # the reader's name does not reach the part
    renders[next(iter(renders))] = "(kept)"
    assert read_once("Bob", "Monday", renders) == "<Bob>(kept)"
    assert read_once("Cy", "Tuesday", renders) == "<Cy>[|Tuesday]"  # another value: rendered again
    assert len(renders) == 2


def test_a_once_part_outside_a_batch_or_with_a_value_that_is_no_key_is_rendered_for_its_reader():
    assert read_once("Ann", "Monday", None) == "<Ann>[|Monday]"
    unhashable = Template("{% load shared_board %}{% once days=days %}{{ days|length }}{% endonce %}")
    renders: dict = {}
    assert unhashable.render(Context({"days": [1, 2], "shared_renders": renders})) == "2"
    assert renders == {}


# `{% keep %}`: a part kept for the process, for each set of its values (by content), seeing only them.
KEEP = Template(
    "{% load shared_board %}<{{ player }}>{% keep row=row %}[{{ player }}|{{ row.good }}{{ row.n }}]{% endkeep %}"
)


def read_kept(player: str, row: object, renders: dict | None) -> str:
    context: dict[str, object] = {"player": player, "row": row}
    if renders is not None:
        context["shared_renders"] = renders
    return KEEP.render(Context(context))


@pytest.fixture
def kept(monkeypatch: pytest.MonkeyPatch) -> dict:
    """The process's kept parts, empty for the test."""
    parts: dict = {}
    monkeypatch.setattr(shared_board, "_kept", parts)
    return parts


def test_a_kept_part_sees_only_its_values_and_is_kept_across_batches_by_their_content(kept: dict):
    assert read_kept("Ann", {"good": "oil", "n": 3}, {}) == "<Ann>[|oil3]"  # the reader's name does not reach it
    assert len(kept) == 1
    kept[next(iter(kept))] = "(kept)"
    assert read_kept("Bob", {"good": "oil", "n": 3}, {}) == "<Bob>(kept)"  # another batch, an equal row
    assert read_kept("Cy", {"good": "oil", "n": 4}, {}) == "<Cy>[|oil4]"
    assert read_kept("Di", {"good": "oil", "n": True}, {}) == "<Di>[|oilTrue]"  # True is not 1 here
    assert len(kept) == 3


def test_a_message_is_kept_by_its_id_context_and_parameters_not_its_english(kept: dict):
    """Two messages with one English (a game's term in two meanings) are two keys: each says its own translation."""
    assert shared_board.frozen(Mp("piraeus good", "Oil")) != shared_board.frozen(Mp("manila good", "Oil"))
    assert shared_board.frozen(M("{n} dr", n=2)) != shared_board.frozen(M("{n} dr", n=3))
    assert shared_board.frozen([1, True]) != shared_board.frozen([True, 1])
    with pytest.raises(TypeError):
        shared_board.frozen({"when": object()})


def test_a_kept_part_outside_a_batch_or_with_a_value_that_is_no_key_is_rendered_for_its_reader(kept: dict):
    assert read_kept("Ann", {"good": "oil", "n": 3}, None) == "<Ann>[|oil3]"
    assert read_kept("Ann", {"good": object(), "n": 3}, {}).startswith("<Ann>[|&lt;object")
    assert kept == {}


def test_the_process_keeps_at_most_keep_most_parts(kept: dict, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(shared_board, "KEEP_MOST", 3)
    for n in range(7):
        assert read_kept("Ann", {"good": "oil", "n": n}, {}) == f"<Ann>[|oil{n}]"
        assert len(kept) <= 3
