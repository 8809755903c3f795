"""A hook's URL is encrypted at rest: Discord's and Slack's carry their own token, so a copy of the database (a
backup, a replica, a dump for a bug report) must not be enough to post to a channel.

Fernet (the `cryptography` package, already a dependency: AES-128-CBC with an HMAC-SHA256, a timestamp and a
version byte) keyed from SECRET_KEY through HKDF, so the operator has no second key to keep; SECRET_KEY_FALLBACKS
are tried too, so rotating SECRET_KEY the way Django documents it (the old key as a fallback) keeps every hook
readable; a value is encrypted again with the current key whenever its hook is saved. Losing SECRET_KEY loses
the hooks' addresses (their owners add them again), as it already loses the JSON hooks' signing secrets."""

from __future__ import annotations

import base64
from functools import cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django import forms
from django.conf import settings
from django.db import models

PREFIX = "fernet:"  # what marks a stored value as encrypted (a URL never starts so)


@cache
def _fernet(key: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"pbem.hooks.url").derive(key.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def keys() -> MultiFernet:
    return MultiFernet([_fernet(key) for key in (settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS)])


def seal(text: str) -> str:
    return PREFIX + keys().encrypt(text.encode()).decode()


def unseal(stored: str) -> str:
    """The URL of a stored value; one stored before encryption (no prefix) is read as it is. A value no key opens
    (SECRET_KEY lost) reads as an empty URL, which the guard refuses: the hook fails and its owner is told."""
    if not stored.startswith(PREFIX):
        return stored
    try:
        return keys().decrypt(stored.removeprefix(PREFIX).encode()).decode()
    except InvalidToken:
        return ""


class SealedURL(models.TextField):
    """A URL of at most `max_length` characters in forms, stored encrypted (a text column: the ciphertext is
    longer than the URL)."""

    def __init__(self, *args: Any, max_length: int = 500, **kwargs: Any) -> None:
        self.url_length = max_length
        super().__init__(*args, **kwargs)

    def deconstruct(self) -> Any:
        name, path, args, kwargs = super().deconstruct()
        kwargs["max_length"] = self.url_length
        return name, path, args, kwargs

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        return None if value is None else unseal(value)

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return None if value is None else seal(value)

    def formfield(self, form_class: Any = None, choices_form_class: Any = None, **kwargs: Any) -> Any:
        defaults = {"max_length": self.url_length, "widget": forms.TextInput}
        return models.Field.formfield(self, form_class or forms.CharField, choices_form_class, **{**defaults, **kwargs})
