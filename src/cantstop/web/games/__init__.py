"""Games in play: each live game and its act path (`live`), who has it open (`connections`),
the bot seats, the move clock, the chat, what a client is sent about a game (`describe`,
`odds`, `ways`), and its routes (`routes`, `socket`)."""
