"""Examples from the rulebooks (../shared/seeds), one test each, named after them."""

from cantstop import Phase, new_game
from cantstop.core.state import make_state


def runners_on(columns: dict[int, int], variant: str = "classic") -> object:
    game = new_game(variant, 2)
    runners = tuple(columns.get(c, 0) for c in range(13))
    return make_state(game.variant, game.pieces, runners, 0, Phase.ROLL, None, len(columns))


def test_roll_1546_offers_three_pairings() -> None:
    assert new_game().choices((1, 5, 4, 6)) == ((5, 11), (6, 10), (7, 9))


def test_runners_on_3_and_6_roll_2455() -> None:
    state = runners_on({3: 1, 6: 1})
    assert state.choices((2, 4, 5, 5)) == ((6, 10), (7,), (9,))  # type: ignore[attr-defined]
