"""Matches between bots: seat orders, duplicate dice, honest statistics (see docs/arena.md).

Modules: `schedule` (which game is played with which seats and dice), `player`
(bots as players that may forfeit), `match` (one game), `stats` (Wilson intervals,
Bradley–Terry Elo), `sprt` (the sequential test), `runner` (a whole match across
processes) and `report` (what is printed and written).
"""
