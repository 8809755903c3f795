"""Hook URLs encrypted at rest (games/hooks/sealed.py): the column holds no URL nor its token, the model reads the
URL back, a rotated SECRET_KEY (the old one a fallback) still reads it, and the migration seals the URLs stored
before it and opens them again backwards."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.hooks import sealed
from games.hooks.models import Hook
from games.models import Player

pytestmark = pytest.mark.django_db(transaction=True)
URL = "https://discord.com/api/webhooks/123/SECRET-TOKEN"


def stored_url(pk: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT url FROM hooks_hook WHERE id = %s", [pk])
        return str(cursor.fetchone()[0])


def a_hook() -> Hook:
    player = Player.objects.create(email="p@example.com", name="P")
    return Hook.objects.create(name="Alerts", kind=Hook.Kind.DISCORD, url=URL, player=player, notices=["turn"])


def test_the_column_holds_no_url_and_the_model_reads_it_back(settings: Any) -> None:
    hook = a_hook()
    raw = stored_url(hook.pk)
    assert raw.startswith(sealed.PREFIX) and "SECRET-TOKEN" not in raw and "discord" not in raw
    assert Hook.objects.get().url == URL and Hook.objects.get().host == "discord.com"
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "a new key " * 5, [settings.SECRET_KEY]
    assert Hook.objects.get().url == URL  # rotated the way Django documents: the old key a fallback
    Hook.objects.get().save()
    settings.SECRET_KEY_FALLBACKS = []
    assert Hook.objects.get().url == URL  # saved again, under the new key alone
    settings.SECRET_KEY = "yet another key " * 4
    assert Hook.objects.get().url == ""  # no key opens it: the guard refuses an empty address


def test_the_migration_seals_what_was_stored_before_it_and_opens_it_backwards() -> None:
    hook = a_hook()
    executor = MigrationExecutor(connection)
    executor.migrate([("hooks", "0003_hook_pace")])
    assert stored_url(hook.pk) == URL
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert stored_url(hook.pk).startswith(sealed.PREFIX) and Hook.objects.get().url == URL
