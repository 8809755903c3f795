"""The JSON API (/api/v1/): the same sealed turns as the pages and emails, for clients and bots.

A plug-in app beside games/leagues and games/talk: its own tables (players' tokens, organisers' bot accounts),
its own pages (tokens on My games) and its admin. It reaches the core through the service layer
(games/api/calls.py is the one module that calls the order service) and games/extensions.py. docs/api.md is
the manual for client writers.
"""
