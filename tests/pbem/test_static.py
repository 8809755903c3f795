"""Static files in production: with DEBUG off Django serves none, so the admin's CSS and scripts come from
STATIC_ROOT through whitenoise, under gunicorn alone."""

from __future__ import annotations

from django.core.management import call_command
from django.test import Client


def test_collected_static_files_are_served_with_debug_off(settings, tmp_path):
    settings.DEBUG = False
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", interactive=False, verbosity=0)
    client = Client()  # a new handler: whitenoise reads STATIC_ROOT when the middleware starts

    css = client.get("/static/admin/css/base.css")
    assert css.status_code == 200
    assert css["Content-Type"].startswith("text/css")
    assert b"body" in b"".join(css.streaming_content)
    # Compressed for clients that ask, and SecurityMiddleware (before whitenoise) still adds its headers.
    gzipped = client.get("/static/admin/css/base.css", HTTP_ACCEPT_ENCODING="gzip")
    assert gzipped["Content-Encoding"] == "gzip"
    assert gzipped["X-Content-Type-Options"] == "nosniff"
    assert client.get("/static/admin/css/no-such-file.css").status_code == 404
