"""The text protocol for bots outside this program (docs/protocol.md).

`messages` holds the words both ends share, `server` is the engine end that
serves a built-in bot (`cantstop bot NAME`), `client` the controller end that
lets the arena play a program (`cmd:COMMAND`).
"""
