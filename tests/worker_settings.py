"""Settings of a real test worker whose email is written to files by tests.recording_mail."""

from pbem.settings import *  # noqa: F403

EMAIL_BACKEND = "tests.recording_mail.RecordingBackend"
