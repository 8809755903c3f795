"""A round's seed decides its draw only (issue 28): its games no longer derive their seeds from it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("leagues", "0008_league_email_threads")]

    operations = [migrations.RenameField(model_name="round", old_name="seed", new_name="draw_seed")]
