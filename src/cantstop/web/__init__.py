"""The browser game: an authoritative FastAPI server, its storage and the ES-module client.

Rooms by concern: `db/` (storage), `games/` (live play, bots, clock, chat), `lobby`,
`players/` (ratings, profiles), `routes/` (one router each), with `deps`, `errors`,
`http` (the edge), `rate_limit` and `settings` shared by all; docs/architecture.md maps them.
"""
