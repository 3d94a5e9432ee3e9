"""The analysis processes: started lower in priority than the server and warmed up, replaced
when one dies under a job (which is refused, to ask again), stopped with the server, and
refusing everything where there are none."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from web_helpers import Server

from cantstop.web.errors import NotOffered, Unavailable
from cantstop.web.review import analysts
from cantstop.web.review.analysts import Analysts


def test_the_processes_run_below_the_server_and_one_that_dies_is_replaced() -> None:
    pool = Analysts(1, niceness=3)

    async def scene() -> None:
        pool.start()
        try:
            assert await pool.run(os.nice, 0) == os.nice(0) + 3  # its priority, lowered as it started
            with pytest.raises(Unavailable, match="try again") as died:
                await pool.run(os._exit, 1)
            assert died.value.retry_after == 5 and pool.failures == 1
            assert await pool.run(int, "7", whole=True) == 7  # a new process took its place
        finally:
            pool.close()

    asyncio.run(scene())


def test_closing_stops_a_process_in_the_middle_of_a_job() -> None:
    pool = Analysts(1)

    async def scene() -> None:
        pool.start()
        pid = await pool.run(os.getpid)
        running = asyncio.ensure_future(pool.run(time.sleep, 600))
        for _ in range(1000):
            if pool.running:
                break
            await asyncio.sleep(0)
        assert pool.running == 1
        pool.close()  # returns once its processes are gone, well before the job's ten minutes
        with pytest.raises(Unavailable, match="stopping"):
            await running
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        with pytest.raises(Unavailable, match="stopping"):  # a request after the end starts nothing
            await pool.run(int, "1")

    asyncio.run(scene())


def test_no_processes_refuse_every_job_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    off = Analysts(0)
    assert off.off is not None and "CANTSTOP_ANALYSIS_WORKERS" in off.off
    with pytest.raises(NotOffered, match="set to 0"):
        asyncio.run(off.run(int, "1"))
    monkeypatch.setattr(analysts, "EXTRA", ("numba", "cantstop_no_such_module"))
    assert analysts.fast_missing() == (
        "this server cannot analyse games: it lacks cantstop_no_such_module (install the fast extra: pip install 'cantstop[fast]')"
    )
    assert Analysts(2).off == analysts.fast_missing()


def children(pid: int) -> set[int]:
    """The processes `pid` started (Linux: its threads' children)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(child) for child in (task / "children").read_text().split()}
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def warmed_children(pid: int) -> set[int]:
    """The processes of server `pid` once its analysis process is up (CANTSTOP_ANALYSIS_WARM=1:
    it starts with the server, before any request)."""
    for _ in range(500):
        if children(pid):
            break
        time.sleep(0.02)
    found = children(pid)
    assert found, "the analysis process starts with the server"
    return found


def all_gone(pids: set[int]) -> bool:
    """Whether every one of `pids` ends (each sees its server gone) within ten seconds."""
    for _ in range(500):
        if not any(alive(pid) for pid in pids):
            return True
        time.sleep(0.02)
    return False


def test_a_server_killed_outright_takes_its_analysis_processes_with_it(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'killed.sqlite3'}", env={"CANTSTOP_ANALYSIS_WARM": "1"}).start()
    try:
        assert server.process is not None
        warmed_children(server.process.pid)
        # A job that needs the analysis process: it answers once the process is up.
        game_id = httpx.post(server.url + "/api/games", json={"seats": ["open", "open"]}).json()["id"]
        for seat, name in enumerate(("Ann", "Bob")):
            httpx.post(f"{server.url}/api/games/{game_id}/join", json={"seat": seat, "name": name})
        assert httpx.get(f"{server.url}/api/games/{game_id}/rollmap", timeout=120).status_code == 200
        started = children(server.process.pid)
        assert started, "the analysis process (and multiprocessing's resource tracker) run beside the server"
        os.kill(server.process.pid, signal.SIGKILL)  # no shutdown handler runs
        server.process.wait()
        assert all_gone(started), "an analysis process outlived its server"
    finally:
        server.kill()


def test_a_server_stopped_by_sigterm_ends_its_analysis_processes_and_leaks_nothing(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'stopped.sqlite3'}", env={"CANTSTOP_ANALYSIS_WARM": "1"}).start()
    try:
        assert server.process is not None and server.process.stdout is not None
        started = warmed_children(server.process.pid)
        server.process.send_signal(signal.SIGTERM)  # as systemd or docker stop a server
        said = server.process.communicate(timeout=60)[0].decode()
        assert server.process.returncode in (0, -signal.SIGTERM), said  # uvicorn ends by the signal once shut down
        # Nothing outlives the server: its analysis processes, and multiprocessing's resource
        # tracker, which unlinks any semaphore of the pool still named at the exit. (Whether
        # the tracker has one to unlink, and warns that it does, depends on when the pool's
        # reference cycles were collected: `Analysts.close` collects them, but on a loaded
        # machine the warning was still printed once in a full run, with nothing left behind.)
        assert "Traceback" not in said, said
        assert all_gone(started), "an analysis process (or multiprocessing's resource tracker) outlived its server"
    finally:
        server.kill()
