"""The database: rows and their schema, the values storage hands out, the statements of the
hot paths, the engine and its migrations, notices between processes, and `Storage`, the one
small interface the rest of the server uses (called off the event loop by `Recorder`)."""
