"""Quick pairing: a player asks for a game and is paired with the waiting players nearest in
rating (docs/play.md, "Quick pairing")."""
