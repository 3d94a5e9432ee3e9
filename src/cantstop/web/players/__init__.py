"""Players and ratings: openskill ratings of finished games, and each player's profile."""
