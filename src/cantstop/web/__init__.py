"""The browser game: an authoritative FastAPI server, its storage and the ES-module client.

Rooms by concern, each with its routes, dependencies, schemas and service: `games/` (live
play, bots, clock, chat), `lobby/`, `players/` (ratings, profiles), `identity/` (accounts),
`ops/`; with `deps`, `errors`, `http` (the edge), `rate_limit`, `names` and `settings`
shared by all, and `db/` (storage) under them; docs/architecture.md maps them.
"""
