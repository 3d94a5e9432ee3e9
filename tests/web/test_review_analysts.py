"""The analysis processes: started lower in priority than the server and warmed up, replaced
when one dies under a job (which is refused, to ask again), stopped with the server, and
refusing everything where there are none."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

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
