"""A seeded game plays the same in every process. Python salts the hash of every str afresh in each
process, so iterating over a set of strings (or anything ordered by hash) would let the worker that
resolves a phase, the bot that plays a seat and a replay disagree about the same seed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from games.engines import all_engines
from games.engines.base import Engine

ROOT = Path(__file__).resolve().parents[2]
PLAY = """
import json, random, sys
from games.engines import get_engine
engine = get_engine(sys.argv[1])
rng = random.Random(5)
state = engine.setup(engine.max_players, {}, random.Random(5))
log = []
for step in range(60):
    prompts = engine.prompts(state)
    if not prompts:
        break
    orders = {seat: engine.random_order(state, seat, rng) for seat in prompts}
    state, events = engine.resolve(state, orders, random.Random(step))
    log.append([orders, [event.to_json() for event in events], {s: p.to_json() for s, p in prompts.items()}])
print(json.dumps([log, state, engine.view(state, None)], sort_keys=True))
"""


def play_in_a_process(engine: Engine, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", PLAY, engine.slug], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.parametrize("engine", all_engines(), ids=lambda e: e.slug)
def test_a_seeded_game_plays_the_same_whatever_the_processs_hash_seed(engine: Engine) -> None:
    assert play_in_a_process(engine, "1") == play_in_a_process(engine, "2")
