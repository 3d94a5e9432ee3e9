"""The rules engine: pure standard-library Python, no randomness of its own."""
