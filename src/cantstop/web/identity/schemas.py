"""What a client may send to the identity room: anything else is refused before use."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from cantstop.web.schemas import Strict

# Long enough for any password the rules allow, short enough that a huge one costs nothing.
PASSWORD = Field(min_length=1, max_length=200, description="the password, as typed")


class Credentials(Strict):
    name: str = Field(min_length=1, max_length=40)
    password: str = PASSWORD


class NewPassword(Strict):
    current: str = PASSWORD
    new: str = PASSWORD


class Hook(Strict):
    url: str = Field(max_length=2000, description="where your turn is POSTed: an http:// or https:// address, public unless the server allows private ones")


class Confirm(Strict):
    password: str = PASSWORD


class PasskeyAnswer(Strict):
    handle: str = Field(max_length=100, description="the handle that came with the options")
    credential: dict[str, Any] = Field(description="the PublicKeyCredential, as its toJSON() gives it")
