"""The whole suite's settings: property tests try new inputs in every CI run, and say how to
repeat them.

Hypothesis picks its "ci" profile when it sees a CI, and that profile derandomizes: every
run would try the very inputs of the last. Here CI keeps the profile's other settings but
draws a fresh seed per run instead, and the run prints it at its start and in its summary.
`CANTSTOP_HYPOTHESIS_SEED=N` (in CI or not) makes a run try the inputs of seed N again.
"""

from __future__ import annotations

import os
import secrets

import pytest
from hypothesis import settings

SEED_VARIABLE = "CANTSTOP_HYPOTHESIS_SEED"
IN_CI = settings.get_current_profile_name() == "ci"  # hypothesis chose it: a CI is running us

if IN_CI:
    settings.register_profile("ci-fresh", settings.get_profile("ci"), derandomize=False)
    settings.load_profile("ci-fresh")


def run_seed() -> int | None:
    """The seed of this run's property tests: the one given, else a fresh one in CI (kept in
    the environment, so that the worker processes of pytest-xdist, started later, share it)."""
    given = os.environ.get(SEED_VARIABLE)
    if given is None and IN_CI:
        given = os.environ[SEED_VARIABLE] = str(secrets.randbelow(2**32))
    if given is None:
        return None
    try:
        return int(given)
    except ValueError:
        raise pytest.UsageError(f"{SEED_VARIABLE}={given!r}: give a whole number, as a run prints it") from None


@pytest.hookimpl(tryfirst=True)  # before hypothesis' own plugin reads --hypothesis-seed
def pytest_configure(config: pytest.Config) -> None:
    seed = run_seed()
    if seed is not None and config.getoption("hypothesis_seed", None) is None:
        config.option.hypothesis_seed = seed


def _seed_line(config: pytest.Config) -> str | None:
    seed = config.getoption("hypothesis_seed", None)
    if seed is None or hasattr(config, "workerinput"):  # an xdist worker: its controller says it
        return None
    return f"hypothesis seed {seed}: {SEED_VARIABLE}={seed} tries this run's inputs again"


def pytest_sessionstart(session: pytest.Session) -> None:
    line = _seed_line(session.config)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if line is not None and reporter is not None:  # shown even under -q, unlike the header
        reporter.write_line(line)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    line = _seed_line(config)
    if line is not None:
        terminalreporter.write_line(line)
