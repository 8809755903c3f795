"""Webhooks as a delivery channel (issue 31, item 4): a player's notices and a game's or league's public news,
posted to Discord, Slack, Matrix, ntfy or a signed JSON receiver through an outbox. A plug-in beside the
leagues and table talk: it reaches the core through games/extensions.py only."""
