"""Hypothesis strategies for the fast-path tests: any variant core accepts, kept small."""

from __future__ import annotations

from hypothesis import strategies as st

from cantstop import Pairing, Variant


@st.composite
def variants(draw: st.DrawFn) -> tuple[Variant, int]:
    """A custom variant (every field drawn) and a player count it allows."""
    faces = draw(st.integers(2, 7))
    columns = 2 * faces - 1
    heights = tuple(draw(st.lists(st.integers(1, 9), min_size=columns, max_size=columns)))
    wild_dice = draw(st.integers(0, 4))
    wild_face = draw(st.integers(1, faces)) if wild_dice else None
    to_win = draw(st.integers(1, min(columns, 4)))
    # The most players whose game must end (Variant.most_players): more could claim every column.
    safe = 4 if to_win == 1 else min(4, (columns - 1) // (to_win - 1))
    low = draw(st.integers(1, safe))
    high = draw(st.integers(low, 4))
    variant = Variant(
        name="drawn",
        heights=heights,
        runners=draw(st.integers(1, min(columns, 4))),
        to_win=to_win,
        faces=faces,
        wild_face=wild_face,
        wild_dice=wild_dice,
        pairing=draw(st.sampled_from(list(Pairing))),
        step_limit=draw(st.none() | st.integers(1, 12)),
        skip=draw(st.booleans()),
        no_stop_on_occupied=draw(st.booleans()),
        min_players=low,
        max_players=high,
    )
    return variant, draw(st.integers(low, variant.most_players))
