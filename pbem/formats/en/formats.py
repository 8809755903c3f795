"""English dates and numbers as the site wrote them when it spoke English only (LANGUAGE_CODE was en-gb): Django's
British formats ("7 Dec 2026", 24-hour clocks where a template asks for them) for the language code "en"."""

from django.conf.locale.en_GB.formats import *  # noqa: F403
