"""Matches between bots: seat orders, duplicate dice, honest statistics (see docs/arena.md).

Modules: `schedule` (which game is played with which seats and dice), `player`
(a bot name or `cmd:` program as a player), `match` (one game, played by a
`cantstop.table.Table` that forfeits a failing bot), `stats` (Wilson intervals,
Bradley–Terry Elo), `sprt` (the sequential test), `runner` (a whole match across
processes) and `report` (what is printed and written).
"""
