"""The votes' emails, through the one mail pipeline (games/outgoing/outbox.py): a vote opened (to every player asked,
but its proposer) and a vote that failed (to every player at the table). A passed vote ends the game, and the
core's game-over email tells it. Each is rendered when written, in its reader's zone, kept as a VoteEmail row
and sent after commit, in the reader's thread of the game's emails; the mail policy is asked before a row is
written and again before it is sent. They are for play (games/outgoing/mailpolicy.py, Need.PLAY): a player asked to
vote hears of it whatever they chose for news, and so does the table of its answer. They name no voter."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse

from games.extensions import EmailAsk, Outbox
from games.models import Game, Seat
from games.outgoing import mailpolicy, messages, outbox
from games.outgoing.dispatch import after_commit, task_name
from games.outgoing.emails import GAME_SUBJECT, first_sent, game_link
from games.outgoing.facts import addressee, game_facts
from games.outgoing.mailpolicy import Need
from games.votes.models import Kind, Proposal, VoteEmail
from games.votes.rules import GUIDE_SECTION

# The votes' sender, woken after commit (bound in games/votes/tasks.py).
SEND_VOTE_EMAILS = task_name("votes.tasks.send_emails")


def _queue(game: Game, proposal: Proposal, kind: str, seats: list[Seat], context: dict[str, Any]) -> None:
    players = tuple(seat.player for seat in seats if seat.player is not None)
    if not players:
        return
    ask = EmailAsk(kind=f"vote-{kind}", players=players, game=game, need=Need.PLAY.value)
    declined = mailpolicy.declined(ask)
    facts = game_facts(game)
    rows = []
    for seat in seats:
        player = seat.player
        if player is None or player.pk in declined:
            continue
        reader = {
            **context,
            "game": facts,
            "player": addressee(player),
            "link": game_link(seat, game) + "#votes",  # the page's vote box (templates/votes/_panel.html)
            "guide_url": settings.SITE_URL + reverse("games-rules", args=[game.engine]) + "#" + GUIDE_SECTION,
        }
        zone, language = messages.zone_of(player.time_zone), messages.language_of(player)
        rendered = messages.render(f"emails/votes/{kind}", reader, zone, thread_subject=GAME_SUBJECT, language=language)
        rows.append(
            VoteEmail(
                game=game,
                proposal=proposal,
                player=player,
                to=player.email,
                kind=kind,
                subject=rendered.subject[:250],
                headline=rendered.headline[:250],
                text=rendered.text,
                html=rendered.html,
            )
        )
    VoteEmail.objects.bulk_create(rows, ignore_conflicts=True)
    if rows:
        after_commit(SEND_VOTE_EMAILS)


def _seats(game: Game) -> list[Seat]:
    return list(Seat.objects.filter(game=game, player__isnull=False).select_related("player").order_by("number"))


def vote_opened(game: Game, proposal: Proposal, exclude: int) -> None:
    """Every player asked to vote but the proposer (seat `exclude`), who knows."""
    seats = [seat for seat in _seats(game) if seat.number != exclude]
    _queue(game, proposal, "opened", seats, {"what": Kind(proposal.kind).label, "closes_at": proposal.closes_at})


def vote_failed(game: Game, proposal: Proposal) -> None:
    # The choices' lazy labels, rendered in each reader's language (get_*_display would fix the writer's).
    context = {"what": Kind(proposal.kind).label, "why": Proposal.Reason(proposal.reason).label}
    _queue(game, proposal, "failed", _seats(game), context)


def send_pending() -> int:
    """Send every pending vote email, each in its reader's thread of the game, if the policy still allows it."""
    rows = list(VoteEmail.objects.filter(status=VoteEmail.Status.PENDING).select_related("player").order_by("pk"))
    roots: dict[int, dict[str, str]] = {}
    outgoing = []
    for row in rows:
        if not mailpolicy.allows(row.player, Need.PLAY):
            outgoing.append(outbox.Outgoing([row.pk], None))  # skipped: the address went bad meanwhile
            continue
        if row.game_id not in roots:
            roots[row.game_id] = first_sent(row.game_id, {r.to for r in rows if r.game_id == row.game_id})
        rendered = messages.Rendered(row.subject, row.text, row.html, row.headline, messages.language_of(row.player))
        thread = messages.Thread(messages.message_id(f"pbem.vote.{row.pk}"), root=roots[row.game_id].get(row.to))
        outgoing.append(
            outbox.Outgoing([row.pk], messages.compose(rendered, row.to, kind=f"vote-{row.kind}", thread=thread))
        )
    return outbox.deliver(VoteEmail, outgoing)


def wake_sender(values: list[Any]) -> None:
    after_commit(SEND_VOTE_EMAILS)


# For the sweep (games/outgoing/outbox.py): failed rows retried, rows whose wake-up call was lost sent.
OUTBOX = Outbox(model=VoteEmail, wake=wake_sender, value="game_id")
