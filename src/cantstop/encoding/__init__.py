"""A position and its actions as numpy arrays, for learning agents and the bots they become.

- `action_index(variant)` (`actions`): the project's one action numbering as a `Discrete`
  space's indices, with the mask of a position's legal actions.
- `encode(state, seat)` (`observation`): the float32 observation vector of one seat.

The environments (`cantstop.envs`) and the `ppo` bot read positions through these, so a
policy trained in an environment plays the same inputs as a bot. Needs numpy, which the
`fast` and `envs` extras bring.
"""

from cantstop.extras import missing_extra

try:
    import numpy  # noqa: F401
except ImportError as error:
    raise missing_extra("fast", "cantstop.encoding", error) from error
