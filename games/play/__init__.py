"""What plays: the service layer every caller goes through (turns.py: create a game, submit an order,
resolve a phase; bots.py; newgame.py; organise.py, an organiser's actions; addresses.py, a player's own
address), the history of a game (history.py), and what runs on its own: the sweep and the Celery tasks."""
