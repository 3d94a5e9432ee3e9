"""Screenshots of the browser game for the docs: a game, a phone, a profile, the first-visit
tour, a finished game's analysis.

Run: .venv/bin/python scripts/web_screenshots.py [--out docs/img]
Starts `cantstop serve` on a throwaway SQLite file, lets bots finish a few games (for the
ratings), plays a few moves as a person, and drives Debian's Chromium (never a downloaded
one: set CANTSTOP_TEST_CHROMIUM to use another). Images are quantised to stay small.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(db: Path, port: int) -> subprocess.Popen[bytes]:
    cantstop = Path(sys.executable).with_name("cantstop")
    server = subprocess.Popen([str(cantstop), "serve", "--port", str(port), "--db", f"sqlite:///{db}", "--bot-delay", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/variants", timeout=1)
            return server
        except httpx.TransportError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("the server did not come up")


def small(path: Path) -> None:
    """Fewer colours, same look: a board screenshot needs no more than 128. The octree keeps
    small bright marks (a green presence dot) that the default median cut turns grey."""
    from PIL import Image

    with Image.open(path) as image:
        image.convert("RGB").quantize(128, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)


def play_until_choice(page: Any, moves: int) -> None:
    """Press Roll / a choice / Stop (after two rolls) for `moves` moves, then roll to a choice."""
    rolls = 0
    for _ in range(2000):
        if moves <= 0 and page.locator("#controls .choice:enabled").count():
            return
        if page.locator("#controls .choice:enabled").count():
            key = "1"
        elif page.locator("#controls .stop:enabled").count() and rolls >= 2:
            key, rolls = "s", -1
        elif page.locator("#controls .roll:enabled").count():
            key = "r"
        else:
            page.wait_for_timeout(30)
            continue
        version = page.evaluate("document.body.dataset.version")
        page.keyboard.press(key)
        page.wait_for_function("(v) => document.body.dataset.version !== v && document.body.dataset.busy === 'false'", arg=version)
        rolls += key == "r" or key == "s"
        moves -= 1
    raise SystemExit("no choice came")


def main() -> None:
    parser = argparse.ArgumentParser(description="Screenshots of the browser game for the docs.")
    parser.add_argument("--out", type=Path, default=Path("docs/img"))
    out = parser.parse_args().out
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="cantstop-shots-"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = serve(folder / "shots.sqlite3", port)
    try:
        for seats in (["bot:expert", "bot:rule28"], ["bot:rule28", "bot:random"], ["bot:expert", "bot:random"]) * 3:
            httpx.post(url + "/api/games", json={"seats": seats})
        created = httpx.post(url + "/api/games", json={"seats": ["open", "bot:rule28"], "take": [{"seat": 0, "name": "Ann"}]}).json()
        for _ in range(600):  # the bots' games end on their own
            if len(httpx.get(url + "/api/finished").json()) == 9:
                break
            time.sleep(0.1)
        chromium = os.environ.get("CANTSTOP_TEST_CHROMIUM") or shutil.which("chromium") or "chromium"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox"])
            token = created["taken"][0]["token"]
            seat = f"localStorage.setItem('cantstop-seats-{created['id']}', JSON.stringify({{0: '{token}'}}));"
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.add_init_script("localStorage.setItem('cantstop-tour-done', '1');" + seat)
            page = context.new_page()
            page.goto(url + created["url"])
            page.wait_for_function("() => document.body.dataset.status === 'playing'")
            play_until_choice(page, 14)
            page.wait_for_timeout(700)  # the dice have stopped tumbling
            page.hover("#controls .choice >> nth=0")
            page.screenshot(path=str(out / "web.png"))
            page.set_viewport_size({"width": 360, "height": 740})
            page.screenshot(path=str(out / "web-phone.png"))
            page.set_viewport_size({"width": 1000, "height": 760})
            page.goto(url + "/player/bot:rule28")
            page.wait_for_selector("[data-ready=true]")
            page.screenshot(path=str(out / "web-profile.png"))
            analysed = next(g["id"] for g in httpx.get(url + "/api/finished").json() if g["players"] == ["bot:expert", "bot:rule28"])
            page.set_viewport_size({"width": 1280, "height": 760})
            page.goto(f"{url}/game/{analysed}#analysis")  # the first request computes it
            page.wait_for_selector("#analysis[data-ready=true]", timeout=180_000)
            page.click(".analysis-mistakes button >> nth=0")  # a point of the game: its options and its roll map
            page.wait_for_selector(".analysis-here .analysis-options")
            page.wait_for_timeout(500)
            page.screenshot(path=str(out / "web-analysis.png"), full_page=True)
            newcomer = browser.new_context(viewport={"width": 900, "height": 760}).new_page()
            newcomer.goto(url)  # a newcomer's one click to a game, where the tour opens over it
            newcomer.click("#quick-play")
            newcomer.wait_for_selector("dialog.tour[open]")
            newcomer.click(".tour-next")
            newcomer.click(".tour-controls .button")
            newcomer.click(".tour-next")
            newcomer.hover(".tour-controls .choice >> nth=1")
            newcomer.wait_for_timeout(700)
            newcomer.screenshot(path=str(out / "web-tour.png"))
            browser.close()
        for name in ("web.png", "web-phone.png", "web-profile.png", "web-tour.png", "web-analysis.png"):
            small(out / name)
            print(out / name, (out / name).stat().st_size, "bytes")
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
