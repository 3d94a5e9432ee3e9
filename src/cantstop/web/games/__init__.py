"""Games in play: each live game and its act path (`live`), the bot seats, the move clock,
the chat, and what a client is sent about a game (`describe`, `odds`, `ways`)."""
