"""Templates receive what their reader may see and nothing else (games/facts.py). Over a seeded random game
of every registered game (and the toy): every value the game page and every email template is handed,
walked through dict items, list items, dataclass fields and forms (tests/template_audit.py, which every
test runs), is plain data or a public fact, never a model instance (a Game leads to the state and the
seed, a Phase to every seat's prompt, a Seat, Player, Order or Event back to its game) nor an engine; and
secrets planted in the state, the seed, the other seats' prompts and their private log lines never show
in any page or email body or subject."""

from __future__ import annotations

import pytest

from games.engines import all_engines
from games.models import Event, Game, Phase
from tests.game_renders import PLAYERS, Read, emails_due, history_pages, order_pages, pages, points, seat_clients

pytestmark = pytest.mark.usefixtures("toy_game")
GAMES = [engine.slug for engine in all_engines()] + ["toy"]
SEED = 7318009215537
STATE_SECRET = "PLANTED-STATE-SECRET"


def plant_secrets(game: Game) -> None:
    """A secret in the state (kept by every resolution, which copies the state) and a private log line
    for each seat."""
    state = {**game.state, "planted": STATE_SECRET}
    count = game.event_count
    Event.objects.bulk_create(
        Event(game=game, phase_number=1, seq=count + 1 + n, seat=n, text=f"PLANTED-LINE-{n}") for n in range(PLAYERS)
    )
    Game.objects.filter(pk=game.pk).update(state=state, event_count=count + PLAYERS)


def plant_prompt_secrets(phase: Phase) -> None:
    for seat, prompt in phase.prompts.items():
        prompt["text"] += f" PLANTED-PROMPT-{seat}"
    Phase.objects.filter(pk=phase.pk).update(prompts=phase.prompts)


def secrets_shown(read: Read) -> list[str]:
    others = [n for n in range(PLAYERS) if n != read.seat]
    secrets = [STATE_SECRET, str(SEED), *(f"PLANTED-PROMPT-{n}" for n in others)]
    secrets += [f"PLANTED-LINE-{n}" for n in others]
    return [secret for secret in secrets if secret in read.content]


@pytest.mark.parametrize("slug", GAMES)
def test_no_template_can_reach_or_shows_the_state_the_seed_or_another_seats_prompt(
    slug, make_game, template_audit, settings
):
    settings.PBEM_REPLY_ADDRESS = "turns@in.pbem.example"  # turn emails show a reply example too
    game = make_game(humans=PLAYERS, engine=slug, seed=SEED)
    plant_secrets(game)
    clients = seat_clients(game)
    own_seen: set[str] = set()
    looked_back: list[int] = []
    stopped: list[int] = []
    then: tuple[int, dict] | None = None  # the phase last stopped at, and the state it was played in
    for phase in points(game, seed=f"secrecy:{slug}"):
        if phase is not None:
            plant_prompt_secrets(phase)
        # Each phase stopped at is read again from the history pages once it has resolved.
        history = history_pages(game, then[0], then[1], clients) if then is not None else []
        looked_back += [then[0]] if then is not None else []
        game.refresh_from_db()
        then = (phase.number, game.state) if phase is not None else None
        stopped += [phase.number] if phase is not None else []
        for read in (
            pages(game, phase, clients)
            + order_pages(game, phase, clients)
            + emails_due(game, phase, remind=True)
            + history
        ):
            assert secrets_shown(read) == [], (read.what, read.seat)
            own = [kind for kind in ("PROMPT", "LINE") if f"PLANTED-{kind}-{read.seat}" in read.content]
            own_seen.update(f"{kind}-{read.seat}" for kind in own)
    assert template_audit == []  # tests/template_audit.py: no model instance nor engine reached any template
    # The plants were there to be leaked: each seat read its own, and the state kept its secret.
    assert own_seen == {f"{kind}-{n}" for kind in ("PROMPT", "LINE") for n in range(PLAYERS)}
    assert looked_back == stopped and stopped[:2] == [1, 2]  # every phase stopped at, read again as history
    game.refresh_from_db()
    assert game.state["planted"] == STATE_SECRET and game.status == "finished"
