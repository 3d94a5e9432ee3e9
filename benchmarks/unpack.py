"""Why core/state.py unpacks a State's twelve fields by position in its moves.

Building the next state needs every field; one positional unpack reads them all at
once, where twelve attribute reads go through twelve descriptors. Run:
`python benchmarks/unpack.py` (both ways on the same state, alternating, best of 7).
"""

from __future__ import annotations

import platform
import timeit
from datetime import UTC, datetime

from cantstop import State, new_game


def unpack(st: State) -> tuple[object, ...]:
    variant, pieces, runners, claimed, player, phase, _, steps, turn, status, _, runner_columns = st
    return (variant, pieces, runners, claimed, player, phase, None, steps, turn, status, (), runner_columns)


def attributes(st: State) -> tuple[object, ...]:
    return (st.variant, st.pieces, st.runners, st.claimed, st.seat, st.phase, None, st.steps, st.turn,
            st.status, (), st.runner_columns)


def main() -> None:
    state = new_game("classic", 2)
    n = 500_000
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {platform.machine()}, Python {platform.python_version()}")
    best = {"unpack": float("inf"), "attributes": float("inf")}
    for _ in range(4):
        for name, fn in (("unpack", unpack), ("attributes", attributes)):
            best[name] = min(best[name], min(timeit.repeat(lambda fn=fn: fn(state), number=n, repeat=7)) / n * 1e9)
    print(f"positional unpack {best['unpack']:.0f} ns, attribute reads {best['attributes']:.0f} ns per state")


if __name__ == "__main__":
    main()
