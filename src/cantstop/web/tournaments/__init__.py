"""Swiss tournaments: an account creates one, players enter before its start, each round is
paired by the Swiss system (`swiss`, plain functions) once the last game of the one before
has ended, and the standings follow every result."""
