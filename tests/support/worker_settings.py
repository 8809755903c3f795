"""Settings of a real test worker whose email is written to files by tests.support.recording_mail."""

from pbem.settings import *  # noqa: F403

EMAIL_BACKEND = "tests.support.recording_mail.RecordingBackend"
