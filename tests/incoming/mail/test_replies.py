"""Replies written by real mail clients (tests/support/reply_samples.py), posted as Postmark, Mailgun and SendGrid post
them: each is read as its writer meant (the order stored, or no order found), automatic ones are dropped
unanswered, and receipts answer in the thread under the game's own subject."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from email.message import EmailMessage

import pytest
from anymail.inbound import AnymailInboundMessage
from django.core import mail
from django.core.cache import cache

from games.engines.base import Field, Prompt
from games.incoming.mail import quotes, replies
from games.incoming.mail.quotes import reply_lines
from games.incoming.mail.replies import html_to_text, parse_order, reply_text, unflow
from games.models import Order
from tests.support import reply_samples as samples
from tests.support.inbound import turn_email
from tests.support.phases import open_phase
from tests.support.reply_samples import RAW_DELIVERIES, Turn

pytestmark = pytest.mark.django_db(transaction=True)
AUTH = "Basic " + base64.b64encode(b"hook:secret").decode()
SELLER = {"role": "seller"}
NO_ORDER, AUTOMATIC = "no order", "automatic"
SIGNED = ["Player 1", "role: buyer"]  # a signature line shaped like a field


@pytest.fixture(autouse=True)
def replies_on(settings):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:secret", "MAILGUN_WEBHOOK_SIGNING_KEY": samples.MAILGUN_KEY}
    cache.clear()


@dataclass(frozen=True)
class Sample:
    name: str
    client: str
    build: Callable[[Turn], EmailMessage]
    meant: dict | str  # the order the writer meant, NO_ORDER, or AUTOMATIC
    flowed: bool = False  # its format=flowed survives only in raw MIME deliveries


def with_header(message: EmailMessage, name: str, value: str) -> EmailMessage:
    message[name] = value
    return message


def replying_to_own_reply(build: Callable[..., EmailMessage], earlier: str, header: str) -> Callable[..., EmailMessage]:
    """Outlook, replying to the player's own earlier reply (from Sent Items): that reply and the turn email
    below it are quoted unmarked, under Outlook's header blocks."""

    def build_reply(turn: Turn, lines: list[str]) -> EmailMessage:
        block = f"From: {samples.PLAYER}\nSent: Wednesday, December 2, 2026 6:02 PM\nTo: {turn.reply_to}"
        quoted = f"{earlier}\n\nBob\n\n{header}\n{block}\nSubject: RE: {turn.subject}\n\n{turn.text}"
        return build(replace(turn, text=quoted), lines)

    return build_reply


UNDERSCORES = "_" * 32
SAMPLES = [
    Sample("text and HTML", "Gmail", lambda t: samples.gmail(t, ["role: seller", "", "Good luck all!"]), SELLER),
    Sample(
        "a field-shaped signature",
        "Gmail",
        lambda t: samples.gmail(t, ["Today I will: Sell my own goods"], SIGNED),
        SELLER,
    ),
    Sample(
        "the field only in the signature", "Gmail", lambda t: samples.gmail(t, ["Deciding tonight."], SIGNED), NO_ORDER
    ),
    Sample("HTML only", "Gmail", lambda t: samples.html_only(samples.gmail)(t, ["role: seller"], SIGNED), SELLER),
    Sample(
        "HTML only, the field only in the signature",
        "Gmail",
        lambda t: samples.html_only(samples.gmail)(t, ["Not this turn."], SIGNED),
        NO_ORDER,
    ),
    Sample(
        "plain text, format=flowed; delsp=yes",
        "Gmail",
        lambda t: samples.gmail_plain_text(
            t,
            ["I thought about buying, but with wine this high I would rather sell what I hold, so:", "role: seller"],
            SIGNED,
        ),
        SELLER,
        flowed=True,
    ),
    Sample("text and HTML", "Outlook", lambda t: samples.outlook(t, ["role: seller"]), SELLER),
    Sample(
        "HTML only",
        "Outlook",
        lambda t: samples.html_only(samples.outlook)(t, ["Today I will: sell my own goods"]),
        SELLER,
    ),
    Sample(
        "plain text, -----Original Message-----",
        "Outlook",
        lambda t: samples.outlook_classic(t, ["role: seller"]),
        SELLER,
    ),
    Sample(
        "a reply to the player's own reply, no order in it",
        "Outlook",
        lambda t: replying_to_own_reply(samples.outlook, "role: buyer", UNDERSCORES)(
            t, ["Scratch that, still thinking."]
        ),
        NO_ORDER,
    ),
    Sample(
        "a reply to the player's own reply, plain text",
        "Outlook",
        lambda t: replying_to_own_reply(samples.outlook_classic, "role: buyer", "-----Original Message-----")(
            t, ["role: seller"]
        ),
        SELLER,
    ),
    Sample(
        "text and HTML",
        "Apple Mail",
        lambda t: samples.apple_mail(t, ["role: seller", "", "Sent from my iPhone"]),
        SELLER,
    ),
    Sample(
        "HTML only", "Apple Mail", lambda t: samples.html_only(samples.apple_mail)(t, ["role: seller"], SIGNED), SELLER
    ),
    Sample("a field-shaped signature", "Apple Mail", lambda t: samples.apple_mail(t, ["Passing."], SIGNED), NO_ORDER),
    Sample(
        "plain text, format=flowed",
        "Apple Mail",
        lambda t: samples.apple_mail_plain(t, ["Today I will: Sell my own goods"], SIGNED),
        SELLER,
        flowed=True,
    ),
    Sample(
        "plain text, format=flowed, the field only in the signature",
        "Apple Mail",
        lambda t: samples.apple_mail_plain(t, ["Away this weekend, the default is fine."], SIGNED),
        NO_ORDER,
        flowed=True,
    ),
    Sample(
        "Auto-Submitted: no",
        "Gmail",
        lambda t: with_header(samples.gmail(t, ["role: seller"]), "Auto-Submitted", "no"),
        SELLER,
    ),
    Sample("vacation responder", "auto-reply", samples.gmail_vacation, AUTOMATIC),
    Sample("Exchange out of office", "auto-reply", samples.exchange_out_of_office, AUTOMATIC),
    Sample("cPanel autoresponder", "auto-reply", samples.cpanel_autoresponder, AUTOMATIC),
    Sample("Precedence: bulk", "auto-reply", samples.list_bulk, AUTOMATIC),
    Sample("X-Auto-Response-Suppress", "auto-reply", samples.exchange_suppress_only, AUTOMATIC),
    Sample("a mailing list's copy", "auto-reply", samples.mailing_list, AUTOMATIC),
]


def post(client, delivery: str, message: EmailMessage):
    url, fields, kind = samples.DELIVERIES[delivery](message)
    if kind == "json":
        return client.post(url, json.dumps(fields), content_type="application/json", HTTP_AUTHORIZATION=AUTH)
    return client.post(url, fields, HTTP_AUTHORIZATION=AUTH)


def what_became_of(client, game, turn: Turn, delivery: str, sample: Sample) -> list[str]:
    """Post the sample; the ways its handling differs from what its writer meant (empty: read right)."""
    phase = open_phase(game)
    Order.objects.filter(phase=phase).delete()
    mail.outbox.clear()
    message = sample.build(turn)
    if post(client, delivery, message).status_code != 200:
        return ["not answered 200"]
    stored = [order.data for order in Order.objects.filter(phase=phase)]
    wrong = []
    if sample.meant == AUTOMATIC:
        return [f"stored {stored}"] * bool(stored) + ["answered"] * bool(mail.outbox)
    if stored != ([sample.meant] if isinstance(sample.meant, dict) else []):
        wrong.append(f"stored {stored}")
    if len(mail.outbox) != 1:
        return [*wrong, f"{len(mail.outbox)} receipts"]
    [receipt] = mail.outbox
    words = "You will sell your own goods today." if sample.meant == SELLER else "No order found"
    if words not in receipt.body:
        wrong.append(f"receipt says {receipt.body.splitlines()[:3]}")
    threading = {
        "Subject": receipt.subject,
        "In-Reply-To": receipt.extra_headers.get("In-Reply-To"),
        "References": receipt.extra_headers.get("References"),
        "Auto-Submitted": receipt.extra_headers.get("Auto-Submitted"),
        "Message-ID at the site": receipt.extra_headers.get("Message-ID", "").endswith("@pbem.example>"),
    }
    expected = {
        "Subject": f"Re: {turn.subject}",
        "In-Reply-To": message["Message-ID"],
        "References": " ".join(filter(None, [turn.references, turn.message_id, message["Message-ID"]])),
        "Auto-Submitted": "auto-replied",
        "Message-ID at the site": True,
    }
    return wrong + [f"receipt's {name}: {threading[name]!r}" for name in expected if threading[name] != expected[name]]


@pytest.mark.parametrize("delivery", list(samples.DELIVERIES))
def test_replies_from_real_clients_are_read_as_their_writers_meant(client, make_game, delivery, capsys):
    game = make_game(humans=3)
    turn = turn_email()
    tried = [sample for sample in SAMPLES if delivery in RAW_DELIVERIES or not sample.flowed]
    outcomes = {(sample.client, sample.name): what_became_of(client, game, turn, delivery, sample) for sample in tried}
    with capsys.disabled():  # the tally per client shape, for the record
        for shape in dict.fromkeys(sample.client for sample in tried):
            results = [wrong for (client_name, _), wrong in outcomes.items() if client_name == shape]
            read = sum(not [w for w in wrong if not w.startswith("receipt's")] for wrong in results)
            print(f"\n  {delivery}: {shape} parsed right {read}/{len(results)}, all right {results.count([])}", end="")
    assert {key: wrong for key, wrong in outcomes.items() if wrong} == {}


# --- The pieces, one by one -----------------------------------------------------------------------------------------


def test_flowed_text_is_joined_before_fields_are_read():
    # A long line for a text field (a sequence of steps, as Phoenician Sea Trader asks), soft-wrapped by the sender.
    steps = "sail Tyre; buy 2 purple dye; sail Carthage; sell 2 purple dye; buy 1 tin; sail Gades; sell 1 tin"
    turn = Turn("turns+1-0123456789abcdef@in.pbem.example", "pbem <turns@pbem.example>", "Your turn", "<a@b>", "", "")
    for build in (samples.gmail_plain_text, samples.apple_mail_plain):
        sent = build(turn, [f"Your turn: {steps}"], SIGNED)
        assert f"Your turn: {steps}" not in sent.get_content()  # the sender really wrapped the line
        message = AnymailInboundMessage.parse_raw_mime(sent.as_string())
        prompt = Prompt(
            "turn", "", (Field("steps", "text", "Your turn", max=2000, help="steps, separated by ';'"),)
        ).to_json()
        assert parse_order(prompt, reply_text(message)) == {"steps": steps}


def test_unflow_keeps_signatures_quotes_and_hard_breaks():
    flowed = "role: \nseller\n-- \nrole: buyer\n> quoted \n> line\n>> deeper\n From here\nhard\nbreak"
    assert unflow(flowed) == "role: seller\n-- \nrole: buyer\n> quoted line\n>> deeper\nFrom here\nhard\nbreak"
    assert unflow("Sell my  \nown goods", delsp=True) == "Sell my own goods"


def test_html_is_read_as_a_mail_client_shows_it():
    markup = (
        "<html><head><style>p {color: red}</style><title>x</title></head><body>"
        "<div>role:&nbsp;seller</div><p>Thanks,<br>Ann</p><script>role = 'buyer'</script>"
        "<blockquote>role: buyer<blockquote>deeper</blockquote>still quoted</blockquote><div>after</div></body></html>"
    )
    assert html_to_text(markup).split("\n") == ["role: seller", "Thanks,", "Ann", ">", "after"]


@pytest.mark.parametrize(
    "quote",
    [
        "> role: buyer",
        "-- \nrole: buyer",
        "--\nrole: buyer",
        "On Wed, 2 Dec 2026 at 17:40, pbem <turns@pbem.example> wrote:\nrole: buyer",
        "On Wed, 2 Dec 2026 at 17:40, Port of Piraeus turns at pbem <\nturns@pbem.example> wrote:\nrole: buyer",
        "On 2 Dec 2026, at 17:40, pbem <turns@pbem.example> wrote:\nrole: buyer",
        "-----Original Message-----\nrole: buyer",
        "________________________________\nrole: buyer",
        "From: pbem <turns@pbem.example>\nSent: Wednesday, December 2, 2026 5:40 PM\nrole: buyer",
        "*From:* pbem <turns@pbem.example>\n*Date:* Wed, 2 Dec 2026\nrole: buyer",
    ],
)
def test_what_follows_a_quote_or_signature_is_not_read(quote):
    assert reply_lines(f"role: seller\n\n{quote}\n") == ["role: seller"]


def test_lines_that_only_look_like_quote_headers_are_read():
    text = "On reflection:\nrole: seller\nFrom: my phone\nwrote: nothing"
    assert reply_lines(text) == ["On reflection:", "role: seller", "From: my phone", "wrote: nothing"]


def test_a_field_given_twice_keeps_its_first_value():
    """A signature below the order ("Role: buyer") cannot change it; the receipt's words are the engine's
    read-back (tests/incoming/mail/test_inbound.py)."""
    prompt = {
        "fields": [
            {
                "name": "role",
                "label": "Today I will",
                "kind": "choice",
                "choices": [
                    {"value": "buyer", "label": "Buy goods"},
                    {"value": "seller", "label": "Sell my own goods"},
                ],
            },
            {
                "name": "goods",
                "label": "Goods to sell",
                "kind": "multichoice",
                "choices": [
                    {"value": "wine", "label": "wine (you hold 2)"},
                    {"value": "oil", "label": "oil (you hold 1)"},
                ],
            },
        ]
    }
    order = parse_order(prompt, "role: seller\ngoods: wine and oil\nBob Smith\nRole: buyer")
    assert order == {"role": "seller", "goods": ["wine", "oil"]}


def test_choices_that_differ_only_in_punctuation_are_told_apart():
    prompt = {
        "fields": [
            {
                "name": "move",
                "kind": "choice",
                "label": "Move",
                "choices": [
                    {"value": "jade+1", "label": "jade forward 1"},
                    {"value": "jade-1", "label": "jade back 1"},
                    {"value": "none", "label": "no move"},
                ],
            }
        ]
    }
    assert parse_order(prompt, "move: jade+1") == {"move": "jade+1"}
    assert parse_order(prompt, "move: JADE-1") == {"move": "jade-1"}
    assert parse_order(prompt, "move: Jade forward 1") == {"move": "jade+1"}


# --- Issue 27: quotes in any language, lines a client broke, and what a one-seat turn takes --------------------------

ROLE = {
    "fields": [
        {
            "name": "role",
            "label": "Today I will",
            "kind": "choice",
            "choices": [{"value": "buyer", "label": "Buy goods"}, {"value": "seller", "label": "Sell my own goods"}],
        }
    ]
}
OURS = quotes.Ours(("turns@pbem.example", "turns+4-0123456789abcdef@in.pbem.example"), "Harbour League #4")


@pytest.mark.parametrize(
    "quote",
    [
        "Von: pbem\nGesendet: Mittwoch, 2. Dezember 2026 17:40\nAn: Player 1\nBetreff: Harbour League #4",
        "De : pbem\nEnvoyé : mercredi 2 décembre 2026 17:40\nÀ : Player 1\nObjet : RE: Harbour League #4",
        "От: pbem <turns@pbem.example>\nОтправлено: 2 декабря 2026 г. 17:40",
        "Kimden: pbem\nGönderildi: 2 Aralık 2026\nKime: Player 1\nKonu: Harbour League #4",
        "-----Ursprüngliche Nachricht-----\nrole: buyer",
        "---------- Forwarded message ---------\nrole: buyer",
        "Begin forwarded message:\n\nFrom: pbem <turns@pbem.example>",
        "Am 02.12.26 um 17:40 schrieb pbem:\n> role: buyer",
        "Em 02/12/2026 17:40, pbem escreveu:\n> role: buyer",
        "ke 2.12.2026 klo 17.40 pbem <turns@pbem.example> kirjoitti:",
    ],
)
def test_a_quote_is_found_by_its_shape_by_what_is_ours_and_in_the_librarys_languages(quote):
    text = f"role: seller\nThanks\n\n{quote}\nrole: buyer\n"
    assert quotes.reply_lines(text, OURS, replies.field_keys(ROLE)) == ["role: seller", "Thanks"]


def test_what_the_player_wrote_is_never_taken_for_a_quote_header():
    """A sentence that names the game, a field line that a header pattern would take (Polish "Data:" starts a
    header block for mail-parser-reply) and a last line ending in ":" with no quote after it all stay."""
    prompt = {"fields": [{"name": "data", "label": "Data", "kind": "text", "choices": []}]}
    text = "My order for Harbour League #4:\nData: wine\nDo: all of it\nThat is all:"
    keys = replies.field_keys(prompt)
    assert quotes.reply_lines(text, OURS, keys) == text.splitlines()


def test_a_line_of_the_order_a_client_may_have_broken_is_found():
    prompt = {"fields": [{"name": "actions", "label": "Actions", "kind": "steps", "choices": []}]}
    line = "actions: move L1 Hamburg 1; move S1 Port Sudan 1; boost S1; move S1 Port Sudan"

    def broken(*lines: str) -> tuple[str, str] | None:
        return replies.read_order(prompt, texts_of("\n".join(lines))).broken

    assert broken(line, "2", "", "Thanks") == (line, "2")
    assert broken("actions:", line.removeprefix("actions: "), "2") == (line.removeprefix("actions: "), "2")
    assert broken(line, "", "2") is None  # a blank line: the player ended it there
    assert broken(line, "actions: sell S1") is None  # the next field
    assert broken("actions: sell S1", "Thanks, see you") is None  # too short to reach a wrap


def texts_of(plain: str, html: str = "", flowed: bool = False) -> replies.Texts:
    return replies.Texts(plain, flowed, replies.html_to_text(html))


def test_a_broken_text_part_is_read_from_the_html_and_without_html_is_marked_broken():
    prompt = {"fields": [{"name": "steps", "label": "Your turn", "kind": "steps", "choices": []}]}
    full = "steps: sail Tyre; buy 2 purple dye; sail Carthage; sell 2 purple dye; buy 1 tin; sail Gades"
    broken = full.replace(" sail Gades", "\nsail Gades")
    from_html = replies.read_order(prompt, texts_of(broken, f"<div>{full}</div><div><br></div><div>Bye</div>"))
    assert from_html.order == {"steps": full.removeprefix("steps: ")} and from_html.broken is None
    alone = replies.read_order(prompt, texts_of(broken))
    assert alone.broken == (broken.split("\n")[0], "sail Gades")
    flowed = replies.read_order(prompt, texts_of(broken.replace("\n", " \n"), flowed=True))
    assert flowed.broken is None  # format=flowed: the client says which breaks are its own, and they are joined


def test_a_field_given_twice_differently_is_noted():
    reading = replies.read_order(ROLE, texts_of("role: seller\nrole: Seller\nToday I will: buy goods"))
    assert reading.order == {"role": "seller"} and reading.twice == ("role",)


@pytest.mark.parametrize(
    "markup",
    [
        '<div>role: seller</div><hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg">From: pbem</div>',
        '<p>role: seller</p><div style="border:none;border-top:solid #E1E1E1 1.0pt"><p>Von: pbem</p></div>',
        # Windows Mail's border written long-hand, the sender's name linked, in a language no list of labels holds.
        '<p>role: seller</p><div style="border:none;border-top-style: solid;border-top-color:#E1E1E1"><p><b>Gửi từ:'
        ' </b><a href="mailto:turns@pbem.example">pbem</a></p></div>',
        '<div>role: seller</div><div class="gmail_quote"><div class="gmail_attr">Am Mi. schrieb pbem:</div></div>',
        '<p>role: seller</p><div class="moz-cite-prefix">Le 02/12/2026, pbem a écrit :</div>',
    ],
)
def test_where_a_clients_html_puts_the_quote_reads_as_a_quote(markup):
    assert replies.html_to_text(markup).split("\n")[:2] == ["role: seller", quotes.QUOTE_MARK]


# --- Issue 37: a value of steps read whole, and an order never stored shorter than written ---------------------------

ACTIONS = {"fields": [{"name": "actions", "label": "Your actions", "kind": "steps", "choices": []}]}
OFFERS = {
    "fields": [
        {"name": "offers", "label": "My offers", "kind": "steps", "choices": []},
        {"name": "tiles", "label": "Special tiles I play", "kind": "steps", "choices": []},
    ]
}


@pytest.mark.parametrize(
    ("text", "order"),
    [
        (
            "actions:\nmove S1 Hamburg 1\nmove L1 Hamburg 1\norder hidden",
            "move S1 Hamburg 1\nmove L1 Hamburg 1\norder hidden",
        ),  # noqa: E501
        ("Here it is:\n\nactions: move S1 Hamburg 1\nboost S1\n\n-- \nAnn", "move S1 Hamburg 1\nboost S1"),
        ("Your actions: boost S1; sell S1\norder hidden\n\nOn Mon pbem wrote:\n> x", "boost S1; sell S1\norder hidden"),
        ("actions: order hidden", "order hidden"),
        ("actions:", ""),
    ],
)
def test_a_value_of_steps_goes_on_over_the_lines_under_its_field_line(text, order):
    reading = replies.read_order(ACTIONS, texts_of(text))
    assert reading.order == {"actions": order} and reading.unread == () and reading.broken is None


def test_a_value_of_steps_ends_at_the_next_field_line_and_its_lines_may_look_like_headers():
    text = "offers:\nHarbor: 20 ducats + silk\nStreet 3-2: 5\ntiles:\ntrade wine for silk\n\nThanks, Ann\n"
    reading = replies.read_order(OFFERS, texts_of(text + "\nFrom: pbem <turns@pbem.example>\nSent: today"))
    assert reading.order == {"offers": "Harbor: 20 ducats + silk\nStreet 3-2: 5", "tiles": "trade wine for silk"}
    # The cut of a header block stops at the order's lines, even right above it.
    glued = "offers:\nHarbor: 20 ducats\nFrom: pbem <turns@pbem.example>\nSent: today\nSubject: Harbour League #4"
    assert replies.read_order(OFFERS, texts_of(glued), OURS).order["offers"] == "Harbor: 20 ducats"


@pytest.mark.parametrize(
    ("text", "read", "unread"),
    [
        ("actions:\n\nmove S1 Hamburg 1\nmove L1 Hamburg 1", ["actions:"], ["move S1 Hamburg 1", "move L1 Hamburg 1"]),
        ("actions: move S1 Hamburg 1\n\nmove L1 Hamburg 1", ["actions: move S1 Hamburg 1"], ["move L1 Hamburg 1"]),
        ("actions: boost S1\n\nOver to you", ["actions: boost S1"], ["Over to you"]),
        ("offers: Harbor: 5\n\nVilla Colini: 3\ntiles:", ["offers: Harbor: 5", "tiles:"], ["Villa Colini: 3"]),
    ],
)
def test_lines_under_a_value_of_steps_after_a_blank_line_are_left_unread_and_named(text, read, unread):
    prompt = OFFERS if "offers" in text else ACTIONS
    reading = replies.read_order(prompt, texts_of(text))
    assert list(reading.read) == read and list(reading.unread) == unread


def test_under_a_one_line_field_only_a_value_left_open_leaves_lines_unread():
    goods = {"name": "goods", "label": "Goods", "kind": "multichoice", "choices": [{"value": "wine", "label": "w"}]}
    prompt = {"fields": [*ROLE["fields"], goods]}
    assert replies.read_order(prompt, texts_of("role: buyer\nGood luck all!")).unread == ()
    assert replies.read_order(prompt, texts_of("goods: wine,\noil\n\nBye")).unread == ("oil",)
    assert replies.read_order(prompt, texts_of("role:\n\nbuyer")).unread == ("buyer",)
    assert replies.read_order(prompt, texts_of("goods: wine and\n\nBye")).unread == ()


def test_html_keeps_the_lines_of_pre_and_the_blank_lines_a_client_shows():
    assert html_to_text("<p>Hi</p><pre>actions:\nmove S1 Hamburg 1\n\nboost S1</pre>") == (
        "Hi\nactions:\nmove S1 Hamburg 1\n\nboost S1"
    )
    gmail = "<div>actions:</div><div>boost S1</div><div><br></div><div>Bye</div>"
    outlook = '<p class="MsoNormal">actions:</p><p class="MsoNormal">boost S1</p><p class="x">&nbsp;</p><p>Bye</p>'
    assert html_to_text(gmail) == html_to_text(outlook) == "actions:\nboost S1\n\nBye"
    assert html_to_text("<p>a<br><br>b</p><div>c<br></div><div>d</div>") == "a\n\nb\nc\nd"


@pytest.mark.parametrize(
    "signed",
    ["Thanks!\nAnn", "Best regards,\nAnn", "Mit freundlichen Grüßen\nAnn", "Ann", "Sent from my iPhone", "Hilsen"],
)
def test_a_sign_off_or_the_writers_name_after_a_blank_line_ends_a_value_of_steps(signed):
    ours = quotes.Ours(signers=("Ann Smith",))
    reading = replies.read_order(ACTIONS, texts_of(f"actions:\nboost S1\n\n{signed}"), ours)
    assert reading.order == {"actions": "boost S1"} and reading.unread == ()
    # Right under a step, with no blank line, a sign-off or name may be a step: it is read, for the engine to
    # refuse; a phone's line never is.
    glued = replies.read_order(ACTIONS, texts_of(f"actions:\nboost S1\n{signed}"), ours).order
    assert (glued == {"actions": "boost S1"}) == signed.startswith("Sent from")
