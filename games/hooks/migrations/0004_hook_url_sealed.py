"""Hook URLs encrypted at rest (games/hooks/sealed.py): the column becomes text (a ciphertext is longer than its
URL) and every stored URL is encrypted; backwards, each is decrypted again."""

from collections.abc import Callable
from typing import Any

from django.db import migrations

import games.hooks.sealed


def rewrite(change: Callable[[str], str]) -> Callable[[Any, Any], None]:
    def run(apps: Any, schema_editor: Any) -> None:
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT id, url FROM hooks_hook")
            for pk, stored in cursor.fetchall():
                cursor.execute("UPDATE hooks_hook SET url = %s WHERE id = %s", [change(stored), pk])

    return run


def seal(stored: str) -> str:
    return stored if stored.startswith(games.hooks.sealed.PREFIX) else games.hooks.sealed.seal(stored)


class Migration(migrations.Migration):
    dependencies = [
        ("hooks", "0003_hook_pace"),
    ]

    operations = [
        migrations.AlterField(
            model_name="hook",
            name="url",
            field=games.hooks.sealed.SealedURL(max_length=500),
        ),
        migrations.RunPython(rewrite(seal), rewrite(games.hooks.sealed.unseal)),
    ]
