"""Table talk (issue 17): messages between the players of a game, to the whole table or to chosen seats.

Part of the core, in an app of its own for its models and migrations: `options` (the game's press
options, read by games.play.turns when a game is created), `models`, `services` (writing, reading, reporting,
sharing), `page` (what the game page shows of it) and `views` (the form's POSTs)."""
