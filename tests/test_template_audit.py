"""The template audit (tests/support/template_audit.py, run by tests/conftest.py on every render) itself: a model
handed to an audited template is found, where the render starts, and once, though the template includes another
that is handed the same context."""

from __future__ import annotations

from django.template.loader import render_to_string

from games.models import Game


def test_a_model_handed_to_an_email_is_found_once_where_its_render_starts(template_audit: list[str]) -> None:
    game = Game(title="Harbour")  # never saved: a model instance is what matters
    thread = {"name": "Table", "messages": [{"author": "Ann", "author_title": "Blue", "text": "hi", "game": game}]}
    text = render_to_string("emails/_talk-section.txt", {"section": {"content": [thread]}})
    assert "hi" in text  # the section rendered, and its include (emails/_talk.txt) with it
    found = list(template_audit)
    template_audit.clear()  # (the fixture fails a test that leaves a finding)
    assert found == ["emails/_talk-section.txt: ['section']['content'][0]['messages'][0]['game']: Game"], found
