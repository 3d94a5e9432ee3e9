"""What a client may send about a game it plays, over HTTP and its WebSocket: anything else
is refused before use."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from cantstop.web.schemas import Strict

ActionValue = Annotated[
    str | list[Annotated[int, Field(ge=2, le=20)]],
    Field(description="'roll', 'stop', or a choice: '6+10' or [6, 10]", max_length=8),
]


class ActionIn(Strict):
    version: int = Field(ge=0, description="the state version the action was made on")
    action: ActionValue


class WsAction(ActionIn):
    type: Literal["action"]


class WsChat(Strict):
    type: Literal["chat"]
    # No length limit here: the message's own size limit bounds it, and the chat's rule
    # (1..200 characters once trimmed) is checked where it lives, with its own words.
    text: str = Field(description="plain text, 1..200 characters once trimmed")
    token: str | None = Field(None, max_length=100, description="speak for this held seat (people at one screen)")


class WsMute(Strict):
    type: Literal["mute"]
    spectators: bool = Field(description="true: only players may write in the chat")
    token: str | None = Field(None, max_length=100, description="the seat of the player asking, if not the connection's")


class WsResign(Strict):
    type: Literal["resign"]
    token: str | None = Field(None, max_length=100, description="resign this held seat (people at one screen), not the connection's")


class WsPresent(Strict):
    type: Literal["present"]
    tokens: list[Annotated[str, Field(max_length=100)]] = Field(
        max_length=4, description="the tokens of the seats this screen holds (people at one screen): each shows as connected"
    )
