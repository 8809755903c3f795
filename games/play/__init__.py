"""What plays: the service layer every caller goes through (orders.py: a turn's order, one call per intent;
turns.py: create a game, resolve a phase; bots.py; newgame.py; organise.py, an organiser's actions;
addresses.py, a player's own address), the history of a game (history.py), and what runs on its own: the
sweep and the Celery tasks."""
