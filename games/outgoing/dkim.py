"""DKIM signatures on the mail we send through a relay of our own (EMAIL_PROVIDER=smtp): with PBEM_DKIM_SELECTOR and
PBEM_DKIM_KEY_FILE set, pbem/settings.py makes SigningBackend the email backend, so every message, whichever app
wrote it, is signed as the exact bytes handed to the relay (a provider's API signs with the provider's keys).

dkimpy signs: relaxed canonicalization of headers and body (a relay may re-fold a header or trim a line's end
without breaking it), RSA-SHA256, the headers RFC 6376 advises plus List-Unsubscribe-Post (RFC 8058: a one-click
unsubscribe counts only when it is signed) and Auto-Submitted; those a forger would add a second of to change what
the reader sees are signed once more than they appear, so adding one breaks the signature. The domain (d=) is
PBEM_DKIM_DOMAIN, or DEFAULT_FROM_EMAIL's, which DMARC wants aligned with the From. `manage.py dnsrecords` prints
the record to publish."""

from __future__ import annotations

import base64
import smtplib
from email.utils import parseaddr
from functools import cache
from pathlib import Path

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.conf import settings
from django.core.mail.backends.smtp import EmailBackend
from django.core.mail.message import EmailMessage, sanitize_address

SIGNED = (b"list-unsubscribe-post", b"auto-submitted")
# Signed one time more than they appear: a second From, Subject or Reply-To added on the way breaks the signature.
FROZEN = {b"from", b"to", b"cc", b"subject", b"reply-to", b"date", b"message-id", b"list-unsubscribe", *SIGNED}


def configured() -> bool:
    return bool(settings.PBEM_DKIM_SELECTOR and settings.PBEM_DKIM_KEY_FILE)


def domain() -> str:
    return (settings.PBEM_DKIM_DOMAIN or parseaddr(settings.DEFAULT_FROM_EMAIL)[1].rpartition("@")[2]).lower()


@cache
def private_key(path: str) -> bytes:
    """The key file's PEM, read once per process (a new key means restarting the workers, as a new setting does)."""
    return Path(path).read_bytes()


def public_key(path: str) -> str:
    """The key's public half as DKIM's p= tag wants it: base64 of its SubjectPublicKeyInfo (DER)."""
    key = serialization.load_pem_private_key(private_key(path), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise TypeError("not an RSA key")  # k=rsa: the algorithm every receiver checks
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(der).decode()


def sign(message: bytes) -> bytes:
    """The message with its DKIM-Signature header first."""
    signer = dkim.DKIM(message, linesep=b"\r\n")
    signer.should_sign |= set(SIGNED)
    signer.frozen_sign |= FROZEN
    signature = signer.sign(
        settings.PBEM_DKIM_SELECTOR.encode(),
        domain().encode(),
        private_key(settings.PBEM_DKIM_KEY_FILE),
        canonicalize=(b"relaxed", b"relaxed"),
    )
    return signature + message


class SigningBackend(EmailBackend):
    """Django's SMTP backend, sending each message signed: its _send with the bytes signed before sendmail."""

    def _send(self, email_message: EmailMessage) -> bool:
        if not email_message.recipients():
            return False
        encoding = email_message.encoding or settings.DEFAULT_CHARSET
        from_email = sanitize_address(email_message.from_email, encoding)
        recipients = [sanitize_address(address, encoding) for address in email_message.recipients()]
        data = sign(email_message.message().as_bytes(linesep="\r\n"))
        assert self.connection is not None  # opened by send_messages before any _send
        try:
            self.connection.sendmail(from_email, recipients, data)
        except smtplib.SMTPException:
            if not self.fail_silently:
                raise
            return False
        return True


def dkim_record(selector: str, key_file: str) -> tuple[str, str]:
    """(name, TXT value) of the DKIM key record."""
    return f"{selector}._domainkey.{domain()}", f"v=DKIM1; k=rsa; p={public_key(key_file)}"


def txt_strings(value: str) -> str:
    """A TXT value as DNS zone files write it: quoted strings of at most 255 characters (a 2048-bit key's is longer)."""
    return " ".join(f'"{value[start : start + 255]}"' for start in range(0, len(value), 255))
