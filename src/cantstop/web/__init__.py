"""The browser game: an authoritative FastAPI server, its storage and the ES-module client."""
