# Quick start: `make run` (server with a demo game on SQLite, tasks inline, email to var/outbox/)
# and `make test` (lint, types, tests). Both create .venv from requirements.txt on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1:8000

# Use the real PostgreSQL and Redis when this machine has them and nothing else was chosen;
# otherwise the tests that need them skip (CI sets PBEM_REQUIRE_SERVICES=1, turning skips into failures).
SERVICES = $(shell $(PYTHON) -c "import socket,sys; \
	up=lambda p: socket.socket().connect_ex(('127.0.0.1',p))==0; \
	print(('DATABASE_URL=postgres://postgres@127.0.0.1:5432/pbem ' if up(5432) else '') + \
	('CELERY_BROKER_URL=redis://127.0.0.1:6379/14' if up(6379) else ''))" 2>/dev/null)

.PHONY: run test lint types pytest messages compiled screenshots bench bench-bots bench-hooks bench-leagues bench-scale bench-workers bench-faults clean venv

venv: $(STAMP)
$(STAMP): requirements.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.txt
	touch $(STAMP)

# The German and French catalogues (locale/ and each engine's games/engines/<slug>/locale/) brought up to date with
# the code (games/management/commands/makemessages.py: sorted, unwrapped, no dates, so two people's changes merge
# in git), then compiled. The compiled .mo files are not kept in git (binary files do not merge): `compiled` makes
# them before the tests and the demo, and a deployment runs compilemessages as it runs collectstatic.
messages: venv
	$(BIN)/python manage.py makemessages
	$(MAKE) --no-print-directory compiled

COMPILE_IGNORE = -i .venv -i var -i node_modules
compiled: venv
	$(BIN)/python manage.py compilemessages -v 0 $(COMPILE_IGNORE)

# The demo is development: DEBUG=1 (debug pages, the /outbox/ page), http on this machine.
DEMO_ENV = DEBUG=1 SITE_URL=$${SITE_URL:-http://$(HOST)}

run: venv compiled
	$(DEMO_ENV) $(BIN)/python manage.py migrate -v 0
	$(DEMO_ENV) $(BIN)/python manage.py createcachetable
	$(DEMO_ENV) $(BIN)/python manage.py demo
	$(DEMO_ENV) $(BIN)/python manage.py runserver $(HOST)

test: lint types pytest

lint: venv
	$(BIN)/ruff check .

types: venv
	$(BIN)/mypy .

# The suite runs in PYTEST_WORKERS processes (pytest-xdist; tests/conftest.py says how each keeps its own test
# database, Redis database, RabbitMQ virtual host and folders): 2 for CI's 2 cores. worksteal: a process that
# runs out of tests takes half of what the other has left, so both end together.
PYTEST_WORKERS ?= 2

pytest: venv compiled
	env $(if $(DATABASE_URL),,$(filter DATABASE_URL=%,$(SERVICES))) \
	    $(if $(CELERY_BROKER_URL),,$(filter CELERY_BROKER_URL=%,$(SERVICES))) \
	    $(BIN)/pytest -n $(PYTEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# A phone (390 px) and a desktop (1280 px) picture of each game's page and turn email, and of each game's board
# on a phone, taken in Debian's Chromium by the browser tests' own flows (tests/incoming/test_browser_games.py), the pages
# around the games, Manila's ranked list, and each game's turn email in light, dark and forced-dark rendering
# (tests/outgoing/test_email_looks.py), in var/screenshots/; the desktop page and the phone board of each game, which the
# README shows, are copied to tests/screenshots/. Fails (after copying) if the flows do.
screenshots: venv
	rm -rf var/screenshots
	PBEM_SCREENSHOTS=var/screenshots $(MAKE) --no-print-directory pytest \
	    PYTEST_ARGS="tests/incoming/test_browser_games.py tests/incoming/test_browser_pages.py tests/incoming/test_browser_orders.py tests/outgoing/test_email_looks.py -q -k 'plays or pages_fit or table_talk or ranked or reads'"; status=$$?; \
	    cp var/screenshots/*-desktop-page.png var/screenshots/*-phone-board.png tests/screenshots/ && exit $$status

# Each bench target below has a tiny smoke run in `make test` (tests/test_bench_smoke.py; bench-bots and bench-scale:
# tests/play/test_commands.py), so none rots unseen; the figures of a real run are never asserted.
bench: venv
	$(BIN)/python bench/run.py

# League figures: round draws for 1,000 players, standings of a 500-game season, and of a 5,000-game league
# beside 100,000 other games (bench/leagues.py; builds that database on first use). Smoke: --no-scale.
bench-leagues: venv
	$(BIN)/python bench/leagues.py

# The deadline and league sweeps on 10,000 and 100,000 open games (bench/scale.py; databases built with bulk
# SQL on first use, a few minutes, reused after). Not in CI beyond its smoke run at 1,000 games.
bench-scale: venv
	$(BIN)/python bench/scale.py

# Bot games through 1, 2 and 4 worker processes: resolutions per second per count (bench/workers.py; PostgreSQL
# and Redis, or BROKER=amqp://... for RabbitMQ; a few minutes; in CI only its smoke run: 1 worker, 1 game).
bench-workers: venv
	$(BIN)/python bench/workers.py $(if $(BROKER),--broker $(BROKER))

# Faults: bot games through a real worker SIGKILLed 100 times and a 60 s broker outage (bench/faults.py;
# PostgreSQL and Redis; about 20 minutes; in CI only its smoke run: 2 kills, a 1 s outage).
bench-faults: venv
	$(BIN)/python bench/faults.py

# How well the bots play: a strong seat against random ones at 3 and 4 players, and against easy ones, in every game,
# through manage.py simulate; writes its table, with confidence intervals, into bench/README.md (bench/bots.py).
bench-bots: venv
	$(BIN)/python bench/bots.py

# What the webhooks app costs a resolution: without it, idle, and with 5 hooks a game (bench/hooks.py; PostgreSQL).
bench-hooks: venv
	$(BIN)/python bench/hooks.py

clean:
	rm -rf $(VENV) var .mypy_cache .ruff_cache .pytest_cache
