"""SIGTERM while games are played: the sockets are told to reconnect (1012), the server
stops, and after a restart every acknowledged action is in the database."""

from __future__ import annotations

import json
import signal
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx
from web_helpers import Server, auth, pick
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from cantstop.core.record import read_record

GAMES = 6
RESTART = 1012  # the WebSocket close code for "service restart": the page reconnects


class Seat(threading.Thread):
    """One player's connection: plays its moves as fast as the server answers and notes
    every version the server acknowledged, and the code the server closed with."""

    def __init__(self, ws_url: str, token: str, seat: int) -> None:
        super().__init__(daemon=True)
        self.ws_url, self.token, self.seat = ws_url, token, seat
        self.acked: list[int] = []
        self.closed_with: int | None = None
        self.started_play = threading.Event()

    def run(self) -> None:
        try:
            with connect(self.ws_url, additional_headers=auth(self.token), open_timeout=30) as ws:
                self.play(ws)
        except ConnectionClosed as closed:
            self.closed_with = closed.rcvd.code if closed.rcvd else None

    def play(self, ws: ClientConnection) -> None:
        rolls = 0
        for _ in range(100_000):
            message: dict[str, Any] = json.loads(ws.recv(timeout=60))
            if message["type"] == "ok":
                self.acked.append(message["version"])
                self.started_play.set()
            if message["type"] not in ("hello", "update"):
                continue
            game = message["game"]
            state = game["state"]
            if state is None or game["status"] == "over" or state["player"] != self.seat:
                continue
            action = pick(state, rolls)
            rolls = 0 if action == "stop" else rolls + (action == "roll")
            ws.send(json.dumps({"type": "action", "version": game["version"], "action": action}))


def test_sigterm_during_play_tells_sockets_to_reconnect_and_loses_nothing_acknowledged(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'stop.sqlite3'}"
    server = Server(db).start()
    seats: dict[str, list[Seat]] = {}
    try:
        with httpx.Client(base_url=server.url) as http:
            for _ in range(GAMES):
                game_id = http.post("/api/games", json={"variant": "classic", "seats": ["open", "open"]}).json()["id"]
                tokens = [http.post(f"/api/games/{game_id}/join", json={"seat": s, "name": f"P{s}"}).json()["token"] for s in (0, 1)]
                url = f"{server.url.replace('http', 'ws')}/ws/games/{game_id}"
                seats[game_id] = [Seat(url, tokens[s], s) for s in (0, 1)]
        for pair in seats.values():
            for seat in pair:
                seat.start()
        for pair in seats.values():  # every game under way before the signal
            assert any(seat.started_play.wait(60) for seat in pair)
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)
        code = server.process.wait(timeout=60)
        assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has stopped cleanly
        for pair in seats.values():
            for seat in pair:
                seat.join(60)
                assert not seat.is_alive()
                assert seat.closed_with == RESTART
    finally:
        server.kill()
    acked: dict[str, int] = defaultdict(int)
    for game_id, pair in seats.items():
        acked[game_id] = max(v for seat in pair for v in [*seat.acked, 0])
    assert sum(acked.values()) > 0
    with Server(db) as again, httpx.Client(base_url=again.url) as http:
        for game_id, last in acked.items():
            game = http.get(f"/api/games/{game_id}").json()
            assert game["version"] >= last  # the last acknowledged action, and all before it, are stored
            record = read_record(http.get(f"/api/games/{game_id}/record").text)
            assert len(record.events) == game["version"]
            record.final()  # every stored move replays through the engine
