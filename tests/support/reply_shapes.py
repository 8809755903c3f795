"""More shapes of a reply, for the round trip of every order through the clients (issue 37): the same lines
written by plain-text clients (hard-wrapped at 72 and 76 columns or not), as HTML alone in <p>, <br>, <div> or the
turn email's own <pre>, around an inline photo, under Outlook's and Windows Mail's header blocks in many languages,
under attributions as each language's clients write them (date first, address wrapped), bottom-posted, and with a
phone's signature. Each builder takes the turn email (tests/support/reply_samples.py Turn) and the lines the player
typed, and returns the message; written from the clients' documented formats, no one's real mail.
"""

from __future__ import annotations

import html
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage

from tests.support import reply_samples as samples
from tests.support.reply_samples import Turn

Shape = Callable[[Turn, list[str]], EmailMessage]


@dataclass(frozen=True)
class Headers:
    """A client's quoted header block in one language: its labels and how it writes the date sent."""

    language: str
    sender: str
    sent: str
    to: str
    subject: str
    date: str


# Outlook's and Windows Mail's header block, as each language's build writes it.
HEADER_BLOCKS = [
    Headers("en", "From", "Sent", "To", "Subject", "Wednesday, December 2, 2026 5:40 PM"),
    Headers("de", "Von", "Gesendet", "An", "Betreff", "Mittwoch, 2. Dezember 2026 17:40"),
    Headers("fr", "De ", "Envoyé ", "À ", "Objet ", "mercredi 2 décembre 2026 17:40"),
    Headers("es", "De", "Enviado", "Para", "Asunto", "miércoles, 2 de diciembre de 2026 17:40"),
    Headers("it", "Da", "Inviato", "A", "Oggetto", "mercoledì 2 dicembre 2026 17:40"),
    Headers("nl", "Van", "Verzonden", "Aan", "Onderwerp", "woensdag 2 december 2026 17:40"),
    Headers("pt", "De", "Enviado", "Para", "Assunto", "quarta-feira, 2 de dezembro de 2026 17:40"),
    Headers("ru", "От", "Отправлено", "Кому", "Тема", "2 декабря 2026 г. 17:40"),
    Headers("uk", "Від", "Надіслано", "Кому", "Тема", "2 грудня 2026 р. 17:40"),
    Headers("tr", "Kimden", "Gönderildi", "Kime", "Konu", "2 Aralık 2026 Çarşamba 17:40"),
    Headers("fi", "Lähettäjä", "Lähetetty", "Vastaanottaja", "Aihe", "keskiviikko 2. joulukuuta 2026 17.40"),
    Headers("hu", "Feladó", "Elküldve", "Címzett", "Tárgy", "2026. december 2., szerda 17:40"),
    Headers("el", "Από", "Στάλθηκε", "Προς", "Θέμα", "Τετάρτη, 2 Δεκεμβρίου 2026 5:40 μμ"),
    Headers("ar", "من", "تم الإرسال", "إلى", "الموضوع", "الأربعاء، 2 ديسمبر 2026 5:40 م"),
    Headers("he", "מאת", "נשלח", "אל", "נושא", "יום רביעי 02 דצמבר 2026 17:40"),
    Headers("ja", "差出人", "送信日時", "宛先", "件名", "2026年12月2日 17:40"),
    Headers("pl", "Od", "Wysłano", "Do", "Temat", "środa, 2 grudnia 2026 17:40"),
]

# Attributions above a ">" quote, as each language's clients write them ({name}, {address}); some wrap the
# address to the next line, some begin with the date.
ATTRIBUTIONS = [
    "On Wed, 2 Dec 2026 at 17:40, {name} <{address}> wrote:",
    "On Wed, 2 Dec 2026 at 17:40, Port of Piraeus turns at {name} <\n{address}> wrote:",
    "Am Mi., 2. Dez. 2026 um 17:40 Uhr schrieb {name} <{address}>:",
    "Le mer. 2 déc. 2026 à 17:40, {name} <{address}> a écrit :",
    "W dniu 2.12.2026 o 17:40, użytkownik {name} <\n{address}> napisał:",
    "30.09.2026, 18.30, {name} <{address}>:",
    "2026-12-02 17:40 GMT+01:00 {name} <{address}>:",
    "ср, 2 дек. 2026 г. в 17:40, {name} <{address}>:",
    "El mié, 2 dic 2026 a las 17:40, {name} (<{address}>) escribió:",
    "2026年12月2日(水) 17:40 {name} <{address}>:",
]

# What phones and app clients write as the last line of a reply.
PHONE_SIGNATURES = [
    "Sent from my iPhone",
    "Get Outlook for iOS",
    "Gesendet von Outlook für Android",
    "Von meinem iPhone gesendet",
    "Envoyé de mon iPhone",
    "Отправлено с iPhone",
    "Sent from Mail for Windows",
]


def _plain(turn: Turn, text: str, agent: str = "Mozilla Thunderbird") -> EmailMessage:
    message = samples._message(turn, "Re: ", "mail.example.org", User_Agent=agent)
    message.set_content(text, cte="quoted-printable")
    return message


def plain(turn: Turn, lines: list[str], attribution: str = ATTRIBUTIONS[0]) -> EmailMessage:
    """A plain-text client that does not wrap (Thunderbird set so): the lines, the attribution, the quote."""
    said = attribution.format(name="pbem", address=turn.sender_address)
    return _plain(turn, "\n".join(lines) + f"\n\n{said}\n{turn.quoted}\n")


def attributed(attribution: str) -> Shape:
    return lambda turn, lines: plain(turn, lines, attribution)


def bottom_posted(turn: Turn, lines: list[str]) -> EmailMessage:
    """The attribution and the quote first, the reply under them (mutt, Usenet habits)."""
    said = ATTRIBUTIONS[0].format(name="pbem", address=turn.sender_address)
    return _plain(turn, f"{said}\n{turn.quoted}\n\n" + "\n".join(lines) + "\n", agent="Mutt/2.2.12")


def hard_wrapped(width: int, with_html: bool = False) -> Shape:
    """A client that breaks every line longer than `width` at a space and says nothing of it (no format=flowed):
    mutt at 72, Outlook's plain text at 76; with `with_html`, a webmail that sends the HTML unbroken beside it."""

    def build(turn: Turn, lines: list[str]) -> EmailMessage:
        said = ATTRIBUTIONS[0].format(name="pbem", address=turn.sender_address)
        text = "\n".join(lines) + f"\n\n{said}\n{turn.quoted}\n"
        broken = "\n".join(
            "\n".join(textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)) or ""
            for line in text.split("\n")
        )
        message = _plain(turn, broken, agent="Mutt/2.2.12")
        if with_html:
            message.add_alternative(_html_body(lines, "div", turn), subtype="html", cte="quoted-printable")
        return message

    return build


def _html_body(lines: list[str], how: str, turn: Turn) -> str:
    """The reply's lines in HTML as `how` says (one <div> or <p> a line, <br> between lines, or a <pre>), then
    Gmail's quote of the turn email."""
    if how == "pre":
        written = f"<pre>{html.escape(chr(10).join(lines))}</pre>"
    elif how == "br":
        written = "<div>" + "<br>".join(html.escape(line) for line in lines) + "</div>"
    else:
        written = "".join(
            f"<{how}>{html.escape(line) if line else ('&nbsp;' if how == 'p' else '<br>')}</{how}>" for line in lines
        )
    quote = html.escape(turn.text).replace("\n", "<br>")
    return (
        f'<html><body>{written}<div class="gmail_quote">On Wed, 2 Dec 2026 at 17:40, pbem '
        f"&lt;{html.escape(turn.sender_address)}&gt; wrote:<br><blockquote>{quote}</blockquote></div></body></html>\n"
    )


def html_only(how: str) -> Shape:
    """A client sending HTML alone, its lines in `how` (div, p, br or pre: the turn email's example kept)."""

    def build(turn: Turn, lines: list[str]) -> EmailMessage:
        message = samples._message(turn, "Re: ", "mail.example.org")
        message.set_content(_html_body(lines, how, turn), subtype="html", cte="quoted-printable")
        return message

    return build


def inline_photo(turn: Turn, lines: list[str]) -> EmailMessage:
    """Apple Mail with a photo pasted above the order: a text part, the image inline, a text part with the rest
    (the order and the quote)."""
    message = samples._message(turn, "Re: ", "icloud.com", X_Mailer="Apple Mail (2.3826.300.87)")
    message.set_content("Here is the board as I see it:\n", cte="quoted-printable")
    message.make_mixed()
    message.add_attachment(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, maintype="image", subtype="png", disposition="inline")
    said = ATTRIBUTIONS[0].format(name="pbem", address=turn.sender_address)
    rest = EmailMessage()
    rest.set_content("\n" + "\n".join(lines) + f"\n\n{said}\n\n{turn.quoted}\n", cte="quoted-printable")
    rest["Content-Disposition"] = "inline"
    message.attach(rest)
    return message


def header_block(headers: Headers, windows_mail: bool, name: str = "pbem") -> tuple[list[str], str]:
    """The quoted header block (its text lines, its HTML): Outlook's From/Sent/To/Subject under a rule, or
    Windows Mail's From/Sent/To with no Subject, the sender's name alone (linked in HTML) under a border
    written long-hand."""
    rows = [(headers.sender, name), (headers.sent, headers.date), (headers.to, "Player 1")]
    if not windows_mail:
        rows.append((headers.subject, "{subject}"))
    text = [f"{label}: {value}" for label, value in rows]
    cells = "<br>".join(f"<b>{html.escape(label)}: </b>{html.escape(value)}" for label, value in rows)
    link = f'<a href="mailto:{{address}}">{html.escape(name)}</a>'
    cells = cells.replace(f"</b>{html.escape(name)}", f"</b>{link}", 1)
    style = (
        "border:none;border-top-style:solid;border-top-color:#E1E1E1;border-top-width:1.0pt;padding:3.0pt 0cm 0cm 0cm"
        if windows_mail
        else "border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"
    )
    return text, f'<div style="{style}"><p class="MsoNormal">{cells}</p></div>'


def outlook(headers: Headers, windows_mail: bool = False) -> Shape:
    """Outlook for Windows (or Windows Mail) in `headers`' language: the reply, a blank line, the header block
    (Outlook's under a line of underscores in text), the quoted email unmarked; HTML beside it."""

    def build(turn: Turn, lines: list[str]) -> EmailMessage:
        block, markup = header_block(headers, windows_mail)
        block = [line.replace("{subject}", turn.subject) for line in block]
        markup = markup.replace("{subject}", html.escape(turn.subject)).replace("{address}", turn.sender_address)
        rule = [] if windows_mail else ["_" * 32]
        text = "\n".join([*lines, "", *rule, *block, "", turn.text])
        written = "".join(f'<p class="MsoNormal">{html.escape(line) or "&nbsp;"}</p>' for line in [*lines, ""])
        quote = html.escape(turn.text).replace("\n", "<br>")
        body = f"<html><body><div class=WordSection1>{written}{markup}<p>{quote}</p></div></body></html>\n"
        message = samples._message(turn, "RE: ", "PAXPR02MB1234.eurprd02.prod.outlook.com")
        message.set_content(text + "\n", cte="quoted-printable")
        message.add_alternative(body, subtype="html", cte="quoted-printable")
        return message

    return build


def without_text(build: Shape) -> Shape:
    """The same client sending its HTML alone."""
    return lambda turn, lines: samples.html_only(build)(turn, lines)


def shapes() -> dict[str, Shape]:
    """Every shape by name: the clients of tests/support/reply_samples.py and those above."""
    found: dict[str, Shape] = {
        "Gmail": samples.gmail,
        "Gmail plain text (flowed)": samples.gmail_plain_text,
        # Outlook's own signature, without "-- ": the writer's name (any other line under a value of steps may be
        # one more step, and is refused: tests/incoming/mail/test_replies.py).
        "Outlook (web)": lambda turn, lines: samples.outlook(turn, lines, signature=("Player 1",)),
        "Outlook plain text": lambda turn, lines: samples.outlook_classic(turn, lines, signature=("Player 1",)),
        "Apple Mail": samples.apple_mail,
        "Apple Mail plain text (flowed)": samples.apple_mail_plain,
        "Gmail, HTML alone": samples.html_only(samples.gmail),
        "plain": plain,
        "bottom-posted": bottom_posted,
        "hard-wrapped at 72": hard_wrapped(72),
        "hard-wrapped at 76": hard_wrapped(76),
        "hard-wrapped at 76, with HTML": hard_wrapped(76, with_html=True),
        "HTML alone, <p>": html_only("p"),
        "HTML alone, <div>": html_only("div"),
        "HTML alone, <br>": html_only("br"),
        "HTML alone, <pre>": html_only("pre"),
        "Apple Mail, inline photo": inline_photo,
    }
    for number, attribution in enumerate(ATTRIBUTIONS[1:], start=1):
        found[f"attribution {number}: {attribution[:20]}"] = attributed(attribution)
    for headers in HEADER_BLOCKS:
        found[f"Outlook, {headers.language}"] = outlook(headers)
        found[f"Windows Mail, {headers.language}"] = outlook(headers, windows_mail=True)
        found[f"Windows Mail, {headers.language}, HTML alone"] = without_text(outlook(headers, windows_mail=True))
    return found


WRAPPING = {"hard-wrapped at 72", "hard-wrapped at 76"}  # shapes that may break a long line, and send no HTML
