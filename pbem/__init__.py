"""The pbem project package: settings, Celery app, URLs."""

from pbem.celery import app as celery_app

__all__ = ["celery_app"]
