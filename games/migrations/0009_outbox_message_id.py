from urllib.parse import urlparse

from django.conf import settings
from django.db import migrations, models
from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat


def record_sent_ids(apps, schema_editor):
    """Emails sent before this were sent with <pbem.<game>.<row>@<site domain>>: record it, so the next emails
    of a game point at the first one each reader really got."""
    domain = urlparse(settings.SITE_URL).hostname or "pbem.localhost"
    OutboundEmail = apps.get_model("games", "OutboundEmail")
    OutboundEmail.objects.filter(status="sent").update(
        message_id=Concat(
            Value("<pbem."),
            Cast("game_id", CharField()),
            Value("."),
            Cast("id", CharField()),
            Value(f"@{domain}>"),
            output_field=CharField(),
        )
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0008_notify_owed_and_mail_problems"),
    ]

    operations = [
        migrations.AddField(
            model_name="outboundemail",
            name="message_id",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.RunPython(record_sent_ids, migrations.RunPython.noop),
    ]
